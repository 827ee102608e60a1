package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// buildDB writes a small SQLite database for tests with the standard driver (the
// executor itself cannot write) and returns its path.
func buildDB(tb testing.TB, dir string, stmts ...string) string {
	tb.Helper()
	path := filepath.Join(dir, "test.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("setup %q: %v", s, err)
		}
	}
	return path
}

func fileHash(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

// hostileSetup is a table big enough for cartesian explosions (200^5 rows).
var hostileSetup = []string{
	"CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c REAL)",
	"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 200) INSERT INTO t SELECT x, 'row' || x, x / 3.0 FROM n",
	"CREATE VIEW v AS SELECT a, b FROM t WHERE a < 10",
	"CREATE INDEX t_b ON t(b)",
}

type hostileCase struct {
	sql  string
	code qeval.Code
	msg  string // a substring the message must contain
}

// hostileCases are statements a generated query could hold to damage the database,
// escape the sandbox or exhaust the machine. Each must fail with a specific code and
// message, quickly, and leave the database file byte for byte unchanged.
func hostileCases(outside string) []hostileCase {
	forbidden := func(sql, msg string) hostileCase { return hostileCase{sql, qeval.CodeForbidden, msg} }
	return []hostileCase{
		// writes
		forbidden("INSERT INTO t VALUES (1000, 'x', 1.0)", "INSERT"),
		forbidden("INSERT INTO t SELECT a + 1000, b, c FROM t", "INSERT"),
		forbidden("INSERT INTO t VALUES (2000, 'x', 1) RETURNING *", "INSERT"),
		forbidden("INSERT OR REPLACE INTO t VALUES (1, 'y', 2.0)", "INSERT"),
		forbidden("REPLACE INTO t VALUES (1, 'y', 2.0)", "REPLACE"),
		forbidden("INSERT INTO t VALUES (1, 'x', 1) ON CONFLICT(a) DO UPDATE SET b = 'z'", "INSERT"),
		forbidden("UPDATE t SET b = 'hacked'", "UPDATE"),
		forbidden("UPDATE t SET b = 'hacked' WHERE a = 1 RETURNING a", "UPDATE"),
		forbidden("DELETE FROM t", "DELETE"),
		forbidden("DELETE FROM t WHERE a > 0 RETURNING *", "DELETE"),
		forbidden("WITH x AS (SELECT 1) DELETE FROM t", "DELETE"),
		forbidden("WITH x AS (SELECT 1) INSERT INTO t SELECT 5000, 'a', 1 FROM x", "INSERT"),
		// schema changes
		forbidden("CREATE TABLE evil (x)", "CREATE TABLE"),
		forbidden("CREATE TABLE IF NOT EXISTS evil AS SELECT * FROM t", "CREATE TABLE"),
		forbidden("CREATE TEMP TABLE evil (x)", "CREATE TEMP TABLE"),
		forbidden("CREATE TEMPORARY VIEW ev AS SELECT 1", "CREATE TEMPORARY VIEW"),
		forbidden("CREATE INDEX evil_i ON t(c)", "CREATE INDEX"),
		forbidden("CREATE UNIQUE INDEX evil_u ON t(a, c)", "CREATE UNIQUE INDEX"),
		forbidden("CREATE VIEW evil_v AS SELECT * FROM t", "CREATE VIEW"),
		{"CREATE TRIGGER evil_tr AFTER INSERT ON t BEGIN DELETE FROM t; END", qeval.CodeQuery, "multiple statements"},
		forbidden("CREATE VIRTUAL TABLE evil_f USING fts5(x)", "CREATE VIRTUAL TABLE"),
		forbidden("DROP TABLE t", "DROP TABLE"),
		forbidden("DROP TABLE IF EXISTS t", "DROP TABLE"),
		forbidden("DROP VIEW v", "DROP VIEW"),
		forbidden("DROP INDEX t_b", "DROP INDEX"),
		forbidden("ALTER TABLE t ADD COLUMN d", "ALTER TABLE"),
		forbidden("ALTER TABLE t RENAME TO t2", "ALTER TABLE"),
		forbidden("ALTER TABLE t RENAME COLUMN b TO bb", "ALTER TABLE"),
		forbidden("ALTER TABLE t DROP COLUMN c", "ALTER TABLE"),
		forbidden("UPDATE sqlite_master SET sql = 'x'", "UPDATE"),
		forbidden("DELETE FROM sqlite_master", "DELETE"),
		// files and the sandbox
		forbidden("ATTACH DATABASE '"+outside+"/evil.db' AS evil", "ATTACH"),
		forbidden("ATTACH ':memory:' AS mem", "ATTACH"),
		forbidden("ATTACH 'file:"+outside+"/evil2.db?mode=rwc' AS e2", "ATTACH"),
		forbidden("DETACH DATABASE main", "DETACH"),
		forbidden("VACUUM", "VACUUM"),
		forbidden("VACUUM INTO '"+outside+"/copy.db'", "VACUUM"),
		forbidden("VACUUM main INTO '"+outside+"/copy2.db'", "VACUUM"),
		forbidden("REINDEX", "REINDEX"),
		forbidden("ANALYZE", "ANALYZE"),
		forbidden("PRAGMA writable_schema = 1", "PRAGMA writable_schema"),
		forbidden("PRAGMA query_only = 0", "PRAGMA query_only"),
		forbidden("PRAGMA journal_mode = DELETE", "PRAGMA journal_mode"),
		forbidden("PRAGMA user_version = 7", "PRAGMA user_version"),
		forbidden("PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys"),
		forbidden("PRAGMA hard_heap_limit = 0", "PRAGMA hard_heap_limit"),
		forbidden("PRAGMA main.page_size = 512", "PRAGMA page_size"),
		forbidden("PRAGMA integrity_check", "PRAGMA integrity_check"),
		forbidden("SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so')", "load_extension"),
		forbidden("SELECT load_extension('"+outside+"/evil.so', 'init')", "load_extension"),
		// transactions
		forbidden("BEGIN", "BEGIN"),
		forbidden("BEGIN IMMEDIATE", "BEGIN"),
		forbidden("COMMIT", "COMMIT"),
		forbidden("ROLLBACK", "ROLLBACK"),
		forbidden("SAVEPOINT sp", "SAVEPOINT"),
		forbidden("RELEASE sp", "RELEASE"),
		// injection suffixes: more than one statement is refused before anything runs
		{"SELECT 1; DROP TABLE t", qeval.CodeQuery, "multiple statements"},
		{"SELECT * FROM t WHERE b = 'x'; DELETE FROM t; --'", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1 /* ; */ ; ATTACH '" + outside + "/evil3.db' AS e3", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1;;", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1;\nPRAGMA writable_schema=1;", qeval.CodeQuery, "line 2, column 1"},
		{"select b from t where b = 'a' union select sql from sqlite_master; drop table t", qeval.CodeQuery, "multiple statements"},
		// functions that do not exist here
		{"SELECT writefile('" + outside + "/w.txt', 'data')", qeval.CodeQuery, "no such function"},
		{"SELECT readfile('/etc/passwd')", qeval.CodeQuery, "no such function"},
		// runaway time
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE x > 1e12", qeval.CodeTimeout, "timed out"},
		{"SELECT count(*) FROM t a, t b, t c, t d, t e", qeval.CodeTimeout, "timed out"},
		{"SELECT max(a.b || b.b || c.b) FROM t a CROSS JOIN t b CROSS JOIN t c CROSS JOIN t d", qeval.CodeTimeout, "timed out"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1e15) SELECT sum(x) FROM c", qeval.CodeTimeout, "timed out"},
		{"SELECT a.a FROM t a, t b, t c ORDER BY random()", qeval.CodeTimeout, "timed out"},
		// runaway memory and size
		{"SELECT randomblob(1000000000)", qeval.CodeTooLarge, "too big"},
		{"SELECT zeroblob(1000000000)", qeval.CodeTooLarge, "too big"},
		{"SELECT randomblob(2000000000)", qeval.CodeTooLarge, "too big"},
		{"SELECT printf('%.*c', 900000000, 'x')", qeval.CodeTooLarge, "too big"},
		{"SELECT replace(hex(zeroblob(5000000)), '0', 'abcdef')", qeval.CodeTooLarge, "too big"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT group_concat(hex(randomblob(1000))) FROM c", qeval.CodeTooLarge, "too big"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", qeval.CodeTooLarge, "rows"},
		{"SELECT a.a, b.a FROM t a, t b", qeval.CodeTooLarge, "rows"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT randomblob(10000) FROM c", qeval.CodeTooLarge, "bytes"},
	}
}

func TestExecutor_Hostile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	path := buildDB(t, dir, hostileSetup...)
	before := fileHash(t, path)
	// Runaway queries meet a short deadline; every other statement gets a long one, so
	// that a busy machine cannot turn an expected refusal or cap into a timeout.
	limits := qeval.Limits{Timeout: 400 * time.Millisecond, MaxRows: 20_000, MaxBytes: 32 << 20}
	patient := limits
	patient.Timeout = 10 * time.Second
	e, err := sqlite.Open(path, limits)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	slow, err := sqlite.Open(path, patient)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	cases := hostileCases(outside)
	if len(cases) < 60 {
		t.Fatalf("corpus has %d statements, want at least 60", len(cases))
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
			ex, deadline := slow, patient.Timeout
			if c.code == qeval.CodeTimeout {
				ex, deadline = e, limits.Timeout
			}
			start := time.Now()
			rs, err := ex.Query(context.Background(), c.sql)
			took := time.Since(start)
			if err == nil {
				t.Fatalf("Query(%q) returned %d rows, want an error with code %s", c.sql, rs.NumRows(), c.code)
			}
			if got := qeval.ErrorCode(err); got != c.code {
				t.Errorf("Query(%q): code %s (%v), want %s", c.sql, got, err, c.code)
			}
			if msg := err.Error(); !strings.Contains(msg, c.msg) {
				t.Errorf("Query(%q): message %q does not contain %q", c.sql, msg, c.msg)
			}
			if took > deadline+time.Second {
				t.Errorf("Query(%q) took %v, more than the deadline + 1s", c.sql, took)
			}
		})
	}
	// The database still answers, unchanged.
	rs, err := e.Query(context.Background(), "SELECT count(*), sum(a) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(200) || rs.Rows[0][1] != qeval.Int(20100) {
		t.Errorf("after the corpus: %v %v, want 200 rows summing to 20100", rs, err)
	}
	e.Close()
	slow.Close()
	if after := fileHash(t, path); after != before {
		t.Errorf("the database file changed")
	}
	entries, _ := os.ReadDir(outside)
	for _, en := range entries {
		t.Errorf("a hostile statement created %s", en.Name())
	}
	entries, _ = os.ReadDir(dir)
	for _, en := range entries {
		if n := en.Name(); n != "test.sqlite" && n != "outside" {
			t.Errorf("a hostile statement created %s next to the database", n)
		}
	}
}
