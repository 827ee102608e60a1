package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/clickhouse"
)

// qeval mirror copies a SQLite database into DuckDB: the same query gives the same
// answer on the copy; an existing target is refused unless --replace; a source that is
// not there is named.
func TestMirror_DuckDB(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "chinook.duckdb")
	code, out, stderr := runCLI(t, "", "mirror", "--to", "duckdb:"+target, "../../examples/chinook/chinook.sqlite")
	if code != exitOK || !strings.Contains(out, "chinook: 11 tables, 15607 rows") {
		t.Fatalf("code %d\n%s\n%s", code, out, stderr)
	}
	q := "SELECT g.Name, count(*) AS n, round(sum(t.UnitPrice), 2) AS total FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY n DESC, g.Name LIMIT 3"
	_, onSQLite, _ := runCLI(t, "", "exec", "--db", "../../examples/chinook/chinook.sqlite", "--json", "--query", q)
	code, onDuck, stderr := runCLI(t, "", "exec", "--db", "duckdb:"+target, "--json", "--query", q)
	if code != exitOK || !strings.Contains(onDuck, `"Rock",1297`) || !strings.Contains(onSQLite, `"Rock",1297`) {
		t.Errorf("the same query on SQLite and on the DuckDB copy:\n%s\n%s\n%s", onSQLite, onDuck, stderr)
	}
	// the copy is read-only through qeval (the registry's statement guard speaks first)
	code, _, stderr = runCLI(t, "", "exec", "--db", "duckdb:"+target, "--query", "DELETE FROM Track")
	if code == exitOK || !strings.Contains(stderr, "DELETE statements are not allowed") {
		t.Errorf("DELETE on the copy: code %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "mirror", "--to", "duckdb:"+target, "../../examples/chinook/chinook.sqlite")
	if code == exitOK || !strings.Contains(stderr, "file exists") || !strings.Contains(stderr, "--replace") {
		t.Errorf("mirror onto an existing file: code %d, %s", code, stderr)
	}
	if code, _, stderr = runCLI(t, "", "mirror", "--replace", "--to", "duckdb:"+target, "../../examples/chinook/chinook.sqlite"); code != exitOK {
		t.Errorf("mirror --replace: code %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "mirror", "--to", "duckdb:"+dir, filepath.Join(dir, "nope.sqlite"))
	if code == exitOK || !strings.Contains(stderr, "nope.sqlite") {
		t.Errorf("a missing source: code %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.duckdb")); err == nil {
		t.Errorf("a failed copy left nope.duckdb behind")
	}
}

// qeval mirror into ClickHouse: a database per source, queried read-only afterwards;
// an existing database is refused without --replace.
func TestMirror_ClickHouse(t *testing.T) {
	dsn := os.Getenv("QEVAL_TEST_CLICKHOUSE")
	if dsn == "" {
		dsn = "clickhouse://default@127.0.0.1:9000/default"
	}
	// the test server's user is the unrestricted default
	code, _, stderr := runCLI(t, "", "exec", "--unsafe-allow-privileged", "--db", dsn, "--query", "SELECT 1")
	if code != exitOK {
		t.Skipf("ClickHouse is not reachable at %s (%s); .ci/run installs and starts Debian's clickhouse-server", dsn, strings.TrimSpace(stderr))
	}
	src := filepath.Join(t.TempDir(), "qeval_mirror_test.sqlite")
	raw, err := os.ReadFile("../../examples/chinook/chinook.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(src, raw, 0o644)
	code, out, stderr := runCLI(t, "", "mirror", "--replace", "--to", dsn, src)
	if code != exitOK || !strings.Contains(out, "qeval_mirror_test: 11 tables, 15607 rows") {
		t.Fatalf("code %d\n%s\n%s", code, out, stderr)
	}
	target := strings.TrimSuffix(dsn, "/default") + "/qeval_mirror_test"
	t.Cleanup(func() { clickhouse.DropDatabase(context.Background(), dsn, "qeval_mirror_test") })
	q := "SELECT Name, Milliseconds FROM Track WHERE TrackId IN (1, 3503) ORDER BY TrackId"
	code, got, stderr := runCLI(t, "", "exec", "--unsafe-allow-privileged", "--db", target, "--json", "--query", q)
	if code != exitOK || !strings.Contains(got, `"For Those About To Rock (We Salute You)",343719`) {
		t.Errorf("query on the ClickHouse copy: code %d\n%s\n%s", code, got, stderr)
	}
	code, _, stderr = runCLI(t, "", "mirror", "--to", dsn, src)
	if code == exitOK || !strings.Contains(stderr, "the database exists") {
		t.Errorf("mirror onto an existing database: code %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "exec", "--unsafe-allow-privileged", "--db", target, "--query", "DROP DATABASE qeval_mirror_test")
	if code == exitOK || !strings.Contains(stderr, "DROP statements are not allowed") {
		t.Errorf("DROP through exec: code %d, %s", code, stderr)
	}
	// without the flag the default user, which reads every database, is refused (issue 39)
	code, _, stderr = runCLI(t, "", "exec", "--db", target, "--query", "SELECT count() FROM system.one")
	if code == exitOK || !strings.Contains(stderr, "may read every database") || !strings.Contains(stderr, "setup-role") {
		t.Errorf("exec as the default user: code %d, %s", code, stderr)
	}
}

// A suite's prediction_database runs the generated queries on a copy of the data on
// another engine; the expected queries stay on the suite's database.
func TestRun_PredictionDatabase(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "", "mirror", "--to", "duckdb:"+filepath.Join(dir, "chinook.duckdb"), "../../examples/chinook/chinook.sqlite"); code != exitOK {
		t.Fatal(stderr)
	}
	src, _ := filepath.Abs("../../examples/chinook/chinook.sqlite")
	p := writeFile(t, dir, "s.yaml", `name: cross
database: `+src+`
prediction_database: duckdb:chinook.duckdb
cases:
  - id: same
    expected_query: SELECT count(*) AS n FROM Track
    generated_query: SELECT count(*) AS n FROM Track
  - id: like-case
    expected_query: SELECT Name FROM Genre WHERE Name LIKE 'rock'
    generated_query: SELECT Name FROM Genre WHERE Name LIKE 'rock'
`)
	out := filepath.Join(dir, "r.json")
	code, _, stderr := runCLI(t, "", "run", p, "--judge", "none", "--quiet", "--json", out)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	raw, _ := os.ReadFile(out)
	var rep struct {
		Cases []struct {
			ID        string `json:"id"`
			Execution struct {
				Outcome string `json:"outcome"`
			} `json:"execution"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Cases) != 2 {
		t.Fatalf("report: %v", err)
	}
	// LIKE ignores case on SQLite, not on DuckDB: the same text is a mismatch across engines
	if rep.Cases[0].Execution.Outcome != "match" || rep.Cases[1].Execution.Outcome != "mismatch" {
		t.Errorf("outcomes %+v, want match then mismatch", rep.Cases)
	}
	// a prediction database that is not there is reported before the run
	bad := writeFile(t, dir, "bad.yaml", "name: x\ndatabase: "+src+"\nprediction_database: duckdb:missing.duckdb\ncases:\n  - {id: a, expected_query: SELECT 1, generated_query: SELECT 1}\n")
	if code, _, stderr := runCLI(t, "", "run", bad, "--judge", "none", "--quiet"); code == exitOK || !strings.Contains(stderr, "missing.duckdb") {
		t.Errorf("missing prediction database: code %d, %s", code, stderr)
	}
}
