package registry_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlparse"
)

// Every engine's entry is its whole bundle, and the grammar it declares is the one
// sqlparse reads its dialect with (so the metrics and the guard agree).
func TestEngines_Bundle(t *testing.T) {
	for _, name := range registry.Engines() {
		e, err := registry.LookupEngine(name)
		if err != nil {
			t.Fatal(err)
		}
		if e.Dialect == "" || e.Hint == "" || e.Accepts == nil {
			t.Errorf("%s: dialect %q hint %q, accepts %v: want all set", name, e.Dialect, e.Hint, e.Accepts != nil)
		}
		if e.Dialect == "kql" {
			if e.Grammar != "" {
				t.Errorf("%s: a KQL engine with SQL grammar %q", name, e.Grammar)
			}
			continue
		}
		if g, err := sqlparse.Grammar(e.Dialect); err != nil || g != e.Grammar {
			t.Errorf("%s: declares grammar %q, sqlparse reads dialect %q as %q (%v)", name, e.Grammar, e.Dialect, g, err)
		}
	}
}

// The registry gives every SQL engine the parse-tree statement guard: on DuckDB a
// denied function is refused by the guard before the engine sees the query. On SQLite,
// whose authorizer refuses as much, the engine's own refusal is kept: it names the
// statement's object and a second statement's position.
func TestEngines_GuardInjected(t *testing.T) {
	chinook := "../examples/chinook/chinook.sqlite"
	duck := "duckdb:" + filepath.Join(t.TempDir(), "chinook.duckdb")
	if done, err := registry.Mirror(context.Background(), duck, []registry.MirrorSource{{DBID: "chinook", Path: chinook}}, registry.MirrorOptions{}); err != nil || len(done) != 1 {
		t.Fatalf("mirror: %v %v", done, err)
	}
	for _, tc := range []struct{ target, query, want string }{
		{duck, "SELECT count(*) FROM Genre", ""},
		{duck, "SELECT pg_read_file('/etc/passwd') FROM Genre", "function pg_read_file() is not allowed (read-only executor)"},
		{duck, "DELETE FROM Genre", "DELETE statements are not allowed; only reads are"},
		{chinook, "SELECT count(*) FROM Genre", ""},
		{chinook, "DROP TABLE Genre", "DROP TABLE is not allowed: the executor is read-only"},
		{chinook, "SELECT 1; SELECT 2", "found another at line 1, column 11"},
	} {
		ex, err := registry.EngineFor(tc.target).New(tc.target, registry.Params{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ex.Query(context.Background(), tc.query)
		ex.Close()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s on %s: %v, want rows", tc.query, tc.target, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s on %s: %v, want refused: %s", tc.query, tc.target, err, tc.want)
		}
	}
}

// One constructor, one Params: Now pins the local KQL engine's clock; Opener passes the
// limits of each call; only the engines with a privilege policy say Privileged.
func TestEngines_Params(t *testing.T) {
	kql, err := registry.LookupEngine("kql")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	ex, err := kql.New("kql:", registry.Params{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ex.Query(context.Background(), "print now()")
	ex.Close()
	if err != nil || !rs.Rows[0][0].AsTime().Equal(now) {
		t.Errorf("now() = %v (%v), want %v", rs, err, now)
	}
	ex, err = kql.Opener(registry.Params{Now: now})("kql:", qeval.Limits{MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.Query(context.Background(), "range x from 1 to 3 step 1")
	ex.Close()
	if qeval.ErrorCode(err) != qeval.CodeTooLarge {
		t.Errorf("3 rows with MaxRows 2: %v, want too_large", err)
	}
	for _, name := range registry.Engines() {
		e, _ := registry.LookupEngine(name)
		if want := name == "postgres" || name == "mysql" || name == "clickhouse"; e.Privileged() != want {
			t.Errorf("%s: Privileged() = %v, want %v", name, e.Privileged(), want)
		}
	}
}

// The guarded SQLite executor keeps what only SQLite's executor can do: say which
// tables a query reads (the metrics' engine path) and count its VM steps (BIRD's VES).
func TestEngines_GuardedSQLiteKeepsItsMethods(t *testing.T) {
	ex, err := registry.EngineFor("../examples/chinook/chinook.sqlite").New("../examples/chinook/chinook.sqlite", registry.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	rr, ok := ex.(interface {
		Reads(ctx context.Context, query string) (*qeval.Shape, error)
	})
	if !ok {
		t.Fatal("the SQLite executor lost Reads")
	}
	if sh, err := rr.Reads(context.Background(), "SELECT count(*) FROM Genre"); err != nil || len(sh.Tables) != 1 || !strings.EqualFold(sh.Tables[0], "genre") {
		t.Errorf("Reads = %+v, %v", sh, err)
	}
	sc, ok := ex.(interface {
		VMSteps(ctx context.Context, query string) (int64, error)
	})
	if !ok {
		t.Fatal("the SQLite executor lost VMSteps")
	}
	if n, err := sc.VMSteps(context.Background(), "SELECT count(*) FROM Genre"); err != nil || n <= 0 {
		t.Errorf("VMSteps = %d, %v", n, err)
	}
	if _, err := sc.VMSteps(context.Background(), "SELECT load_extension('x')"); !strings.Contains(qeval.ErrorMessage(err), "is not allowed (read-only executor)") {
		t.Errorf("VMSteps of a denied function: %v, want the guard's refusal", err)
	}
}
