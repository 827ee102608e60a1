package duckdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/qevaltest"
)

// newDB writes a fresh DuckDB file with setup run on a writable connection and returns
// its path.
func newDB(t testing.TB, setup []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range setup {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			t.Fatalf("setup %q: %v", s, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func newExecutor(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor {
	t.Helper()
	e, err := duckdb.Open("duckdb:"+newDB(t, setup), limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// The executor keeps the contract every engine keeps.
func TestConformance(t *testing.T) {
	qevaltest.RunExecutorTests(t, newExecutor, qevaltest.ExecutorOptions{
		SlowQuery: "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1",
		BlobLiteral: func(b []byte) string {
			var s strings.Builder
			for _, c := range b {
				fmt.Fprintf(&s, "\\x%02X", c)
			}
			return "'" + s.String() + "'::BLOB"
		},
	})
}

// Hostile statements: nothing reaches the file system, the network, the configuration
// or the database file; each is refused with a specific error, and the data is intact.
func TestHostile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.csv")
	os.WriteFile(secret, []byte("a\n42\n"), 0o644)
	out := filepath.Join(dir, "out.csv")
	setup := []string{"CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1), (2)", "CREATE SEQUENCE seq"}
	e := newExecutor(t, setup, qeval.Limits{Timeout: 5 * time.Second})
	for _, q := range []string{
		"DELETE FROM t",
		"INSERT INTO t VALUES (3)",
		"UPDATE t SET a = 0",
		"DROP TABLE t",
		"CREATE TABLE u AS SELECT 1",
		"CREATE TEMP TABLE u AS SELECT 1",
		"CREATE MACRO m(x) AS x + 1",
		"ALTER TABLE t ADD COLUMN b INTEGER",
		"COPY t TO '" + out + "'",
		"EXPORT DATABASE '" + dir + "/export'",
		"ATTACH '" + dir + "/other.duckdb' AS o",
		"DETACH main",
		"DETACH test",
		"USE memory",
		"INSTALL httpfs",
		"LOAD httpfs",
		"SET memory_limit = '100GB'",
		"SET enable_external_access = true",
		"RESET enable_external_access",
		"PRAGMA threads = 64",
		"SET temp_directory = '" + dir + "'",
		"SET max_temp_directory_size = '1TB'",
		"SELECT * FROM read_csv('" + secret + "')",
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM '" + secret + "'",
		"SELECT * FROM read_parquet('https://example.com/x.parquet')",
		"SELECT nextval('seq')",
		"BEGIN TRANSACTION",
		"CHECKPOINT",
		"VACUUM",
		"SELECT 1; DELETE FROM t",
		"DELETE FROM t; SELECT 1",
		"CALL pragma_version()",
		"SELECT * FROM glob('/etc/*')",
	} {
		_, err := e.Query(context.Background(), q)
		if err == nil {
			t.Errorf("Query(%q) ran; want it refused", q)
			continue
		}
		if c := qeval.ErrorCode(err); c != qeval.CodeForbidden {
			t.Errorf("Query(%q): code %s (%v), want forbidden", q, c, err)
		}
	}
	rs, err := e.Query(context.Background(), "SELECT sum(a), count(*) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(3) || rs.Rows[0][1] != qeval.Int(2) {
		t.Errorf("the table after the hostile statements: %v %v", rs, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("COPY … TO wrote %s", out)
	}
	rs, err = e.Query(context.Background(), "SELECT current_setting('enable_external_access'), readonly, current_setting('lock_configuration') FROM duckdb_databases() WHERE database_name = current_database()")
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != qeval.Bool(false) || rs.Rows[0][1] != qeval.Bool(true) || rs.Rows[0][2] != qeval.Bool(true) {
		t.Errorf("settings after the hostile statements: %v %v", rs, err)
	}
}

// A refusal names the statement; a missing file and a folder are specific errors.
func TestErrors(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE t (a INTEGER)"}, qeval.Limits{})
	_, err := e.Query(context.Background(), "DROP TABLE t")
	if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "DROP is not allowed") {
		t.Errorf("DROP: %v", err)
	}
	_, err = e.Query(context.Background(), "SELECT nope FROM t")
	if qeval.ErrorCode(err) != qeval.CodeQuery || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := duckdb.Open(filepath.Join(t.TempDir(), "missing.duckdb"), qeval.Limits{}); qeval.ErrorCode(err) != qeval.CodeNotFound {
		t.Errorf("missing file: %v", err)
	}
	if _, err := duckdb.Open(t.TempDir(), qeval.Limits{}); qeval.ErrorCode(err) != qeval.CodeInvalid {
		t.Errorf("folder: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.duckdb")
	os.WriteFile(junk, []byte("not a database"), 0o644)
	if _, err := duckdb.Open(junk, qeval.Limits{}); qeval.ErrorCode(err) != qeval.CodeInvalid {
		t.Errorf("junk file: %v", err)
	}
}

// Engine types become the same qeval values as on the other engines.
func TestValues(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{})
	rs, err := e.Query(context.Background(), `SELECT 1::TINYINT, 2::HUGEINT, 3.50::DECIMAL(10,2), 2.25::DECIMAL(10,2), 0.5::FLOAT,
		DATE '2024-02-29', TIMESTAMP '2024-02-29 10:11:12', true, 'x'::BLOB, [1, 2], {'a': 1}, NULL::INTEGER, 18446744073709551615::UBIGINT`)
	if err != nil {
		t.Fatal(err)
	}
	want := []qeval.Value{qeval.Int(1), qeval.Int(2), qeval.Float(3.5), qeval.Float(2.25), qeval.Float(0.5),
		qeval.Time(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)), qeval.Time(time.Date(2024, 2, 29, 10, 11, 12, 0, time.UTC)),
		qeval.Bool(true), qeval.Bytes([]byte("x")), qeval.Text("[1,2]"), qeval.Text(`{"a":1}`), qeval.Null, qeval.Float(18446744073709551615)}
	for i, w := range want {
		if got := rs.Rows[0][i]; got != w {
			t.Errorf("column %d (%s): %v (%s), want %v (%s)", i, rs.Columns[i].Type, got, got.Kind, w, w.Kind)
		}
	}
}

// A result past the byte cap is too_large at once, not after DuckDB has built all of it
// (a cross join grew to 6 GB before its deadline): the statement runs under a LIMIT of
// the rows the cap can hold. The bound changes nothing else: duplicate column names,
// the order of an ORDER BY, a trailing semicolon and comment are kept.
func TestQuery_ResultBoundedBeforeDuckDBBuildsIt(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE g AS SELECT range AS id, 'name ' || range AS name FROM range(30)"},
		qeval.Limits{Timeout: 20 * time.Second, MaxBytes: 1 << 20})
	start := time.Now()
	_, err := e.Query(context.Background(), "SELECT * FROM g a, g b, g c, g d, g e, g f, g h, g i")
	if qeval.ErrorCode(err) != qeval.CodeTooLarge {
		t.Fatalf("8-way cross join: %v, want too_large", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("too_large after %s", el)
	}
	rs, err := e.Query(context.Background(), "SELECT a.id, b.id, a.name FROM g a JOIN g b ON a.id = b.id ORDER BY a.id DESC LIMIT 3; -- last; comment")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rs.ColumnNames(), ","); got != "id,id,name" {
		t.Errorf("columns %s, want id,id,name", got)
	}
	if len(rs.Rows) != 3 || rs.Rows[0][0] != qeval.Int(29) || rs.Rows[2][0] != qeval.Int(27) {
		t.Errorf("rows %v, want 29, 28, 27 in that order", rs.Rows)
	}
}

// A query prepared under the bound alone (one prepare instead of two) gives what the
// longer way gives: its own column names, including ones DuckDB would rename in a
// subquery or that look renamed; a '$' or '?' in the text; a trailing semicolon.
func TestQuery_BoundedFirstKeepsTheQuerysOwnShape(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE g AS SELECT range AS id FROM range(3)"}, qeval.Limits{})
	for _, c := range []struct{ query, cols, first string }{
		{"SELECT id, id FROM g ORDER BY id", "id,id", "0"},
		{"SELECT id AS x, id AS X FROM g ORDER BY id", "x,X", "0"},
		{"SELECT id AS a_1, id + 1 AS a FROM g ORDER BY id", "a_1,a", "0"},
		{"SELECT '$1' AS d, '?' AS q FROM g LIMIT 1", "d,q", "$1"},
		{"SELECT count(*) FROM g ;  \n", "count_star()", "3"},
	} {
		rs, err := e.Query(context.Background(), c.query)
		if err != nil {
			t.Errorf("%q: %v", c.query, err)
			continue
		}
		if got := strings.Join(rs.ColumnNames(), ","); got != c.cols {
			t.Errorf("%q: columns %s, want %s", c.query, got, c.cols)
		}
		if len(rs.Rows) == 0 || rs.Rows[0][0].String() != c.first {
			t.Errorf("%q: rows %v, want the first to start with %s", c.query, rs.Rows, c.first)
		}
	}
	if _, err := e.Query(context.Background(), "SELECT id FROM g WHERE id = ?"); qeval.ErrorCode(err) != qeval.CodeQuery {
		t.Errorf("a query with a parameter: %v, want a query error", err)
	}
	if _, err := e.Query(context.Background(), "SELECT 1; SELECT 2"); qeval.ErrorCode(err) != qeval.CodeForbidden {
		t.Errorf("two statements: %v, want forbidden", err)
	}
}
