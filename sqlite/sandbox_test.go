package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

const sandboxSchema = "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, n INT)"

func mustSandbox(tb testing.TB, opt sqlite.SandboxOptions, limits qeval.Limits) (*sqlite.Sandbox, string) {
	tb.Helper()
	src := buildDB(tb, tb.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	if opt.Dir == "" {
		opt.Dir = tb.TempDir()
	}
	sb, err := sqlite.NewSandbox(context.Background(), src, limits, opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sb.Close() })
	return sb, src
}

func mustRun(tb testing.TB, sb *sqlite.Sandbox, stmts ...string) {
	tb.Helper()
	for _, s := range stmts {
		if _, err := sb.Query(context.Background(), s); err != nil {
			tb.Fatalf("Query(%q): %v", s, err)
		}
	}
}

// TestSandbox_WritesStayInTheCopy: writes and DDL change the copy, never the source
// (its SHA-256 is the same), and Close removes the copy.
func TestSandbox_WritesStayInTheCopy(t *testing.T) {
	t.Run("InMemory", func(t *testing.T) { writesStayInTheCopy(t, sqlite.SandboxOptions{}) })
	t.Run("InAFile", func(t *testing.T) { writesStayInTheCopy(t, sqlite.SandboxOptions{MemoryBytes: -1}) })
}

func writesStayInTheCopy(t *testing.T, opt sqlite.SandboxOptions) {
	opt.Dir = t.TempDir()
	sb, src := mustSandbox(t, opt, qeval.Limits{})
	before := fileHash(t, src)
	mustRun(t, sb,
		"UPDATE t SET n = n + 1 WHERE id = 1",
		"INSERT INTO t VALUES (3, 'c', 30)",
		"DELETE FROM t WHERE id = 2",
		"CREATE TABLE big AS SELECT id, n * 2 AS m FROM t",
		"CREATE UNIQUE INDEX t_name ON t(name)",
		"BEGIN", "UPDATE t SET n = 0", "ROLLBACK",
		"PRAGMA foreign_keys = ON",
	)
	rs, err := sb.Rows(context.Background(), "t", true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]qeval.Value{{qeval.Int(1), qeval.Text("a"), qeval.Int(11)}, {qeval.Int(3), qeval.Text("c"), qeval.Int(30)}}
	if !reflect.DeepEqual(rs.Rows, want) {
		t.Errorf("rows of t = %v, want %v", rs.Rows, want)
	}
	tables, err := sb.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[0].Name != "big" || tables[1].Name != "t" {
		t.Fatalf("Tables = %+v", tables)
	}
	tt := tables[1]
	if !reflect.DeepEqual(tt.PrimaryKey, []string{"id"}) || tt.Columns[1] != (qeval.ColumnState{Name: "name", Type: "TEXT", NotNull: true}) ||
		tt.Columns[2].Type != "INTEGER" || !reflect.DeepEqual(tt.Indexes, []string{"unique (name)"}) {
		t.Errorf("table t = %+v", tt)
	}
	if fileHash(t, src) != before {
		t.Error("the source changed")
	}
	copyFile := sb.File()
	if opt.MemoryBytes < 0 {
		if _, err := os.Stat(copyFile); err != nil {
			t.Fatalf("the copy is not there: %v", err)
		}
	} else if copyFile != "" {
		t.Errorf("a small source was copied into the file %s, not into memory", copyFile)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(opt.Dir); len(entries) != 0 {
		t.Errorf("the sandbox folder holds %v after Close", entries)
	}
	// a second copy of the same source starts from the source again, not from the first
	sb2, err := sqlite.NewSandbox(context.Background(), src, qeval.Limits{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer sb2.Close()
	if rs, err := sb2.Rows(context.Background(), "t", true); err != nil || rs.NumRows() != 2 || rs.Rows[1][2] != qeval.Int(20) {
		t.Errorf("a new copy: %v, %v", rs, err)
	}
}

// TestSandbox_OutsideStaysRefused: what reaches outside the copy is refused, and no
// file appears.
func TestSandbox_OutsideStaysRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	sb, _ := mustSandbox(t, sqlite.SandboxOptions{Dir: dir, MemoryBytes: -1}, qeval.Limits{})
	for _, q := range []string{
		"ATTACH DATABASE '" + out + "' AS x",
		"VACUUM INTO '" + out + "'",
		"VACUUM",
		"SELECT writefile('" + out + "', 'x')",
		"SELECT load_extension('" + out + "')",
		"PRAGMA max_page_count = 1000000000",
		"PRAGMA journal_mode = WAL",
		"PRAGMA writable_schema = ON",
		"CREATE VIRTUAL TABLE v USING fts5(x)",
	} {
		_, err := sb.Query(context.Background(), q)
		if err == nil {
			t.Errorf("Query(%q) ran", q)
			continue
		}
		// writefile and fts5 are not even compiled in: refused as unknown
		if code := qeval.ErrorCode(err); code != qeval.CodeForbidden && !strings.Contains(q, "fts5") && !strings.Contains(q, "writefile") {
			t.Errorf("Query(%q) = %v (%s), want forbidden", q, err, code)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), qeval.SandboxPrefix) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files in the sandbox folder: %v, want the copy alone", names)
	}
}

func TestSandbox_TooLarge(t *testing.T) {
	sb, _ := mustSandbox(t, sqlite.SandboxOptions{MaxGrowthBytes: 64 << 10}, qeval.Limits{})
	_, err := sb.Query(context.Background(), "CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) SELECT i, randomblob(100) AS b FROM r")
	if qeval.ErrorCode(err) != qeval.CodeTooLarge {
		t.Fatalf("a copy grown past its bound: %v (%s), want too_large", err, qeval.ErrorCode(err))
	}
	// the copy is still usable: the statement was rolled back
	mustRun(t, sb, "INSERT INTO t VALUES (3, 'c', 30)")
}

func TestSandbox_Deadline(t *testing.T) {
	sb, _ := mustSandbox(t, sqlite.SandboxOptions{}, qeval.Limits{Timeout: 50 * time.Millisecond})
	_, err := sb.Query(context.Background(), "INSERT INTO t(name) WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 'x' FROM r WHERE i < 0")
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Fatalf("a statement that never ends: %v, want a timeout", err)
	}
}

// TestSandbox_CostLeavesTheCopy: Cost counts VM steps and rolls the statement back.
func TestSandbox_CostLeavesTheCopy(t *testing.T) {
	sb, _ := mustSandbox(t, sqlite.SandboxOptions{}, qeval.Limits{})
	all, err := sb.Cost(context.Background(), "UPDATE t SET n = n + 1")
	if err != nil {
		t.Fatal(err)
	}
	one, err := sb.Cost(context.Background(), "UPDATE t SET n = n + 1 WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	if !(one > 0 && all > one) {
		t.Errorf("Cost: all rows %v, one row %v; want 0 < one < all", all, one)
	}
	rs, err := sb.Rows(context.Background(), "t", true)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Rows[0][2] != qeval.Int(10) || rs.Rows[1][2] != qeval.Int(20) {
		t.Errorf("Cost changed the copy: %v", rs.Rows)
	}
	if sb.CostUnit() != "vm_steps" {
		t.Errorf("CostUnit() = %q", sb.CostUnit())
	}
}

// TestSandbox_Fingerprint: equal rows give equal digests, as a bag or in order; every
// difference of a value (its storage class, a byte past a word's end, a NULL) changes
// the digest; an integral float is the integer it equals.
func TestSandbox_Fingerprint(t *testing.T) {
	sb, _ := mustSandbox(t, sqlite.SandboxOptions{}, qeval.Limits{})
	ctx := context.Background()
	fp := func(table string, ordered bool) string {
		t.Helper()
		d, _, err := sb.Fingerprint(ctx, table, []string{"a", "b"}, ordered)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	rows := map[string]string{
		"base":      "(1, 'abcdefgh'), (2.5, X'00'), (NULL, 'x')",
		"reordered": "(NULL, 'x'), (2.5, X'00'), (1, 'abcdefgh')",
		"float one": "(1.0, 'abcdefgh'), (2.5, X'00'), (NULL, 'x')",
		"text one":  "('1', 'abcdefgh'), (2.5, X'00'), (NULL, 'x')",
		"longer":    "(1, 'abcdefgh' || char(0)), (2.5, X'00'), (NULL, 'x')",
		"ninth":     "(1, 'abcdefghi'), (2.5, X'00'), (NULL, 'x')",
		"ninth j":   "(1, 'abcdefghj'), (2.5, X'00'), (NULL, 'x')",
		"blob zero": "(1, 'abcdefgh'), (2.5, X'0000'), (NULL, 'x')",
		"text x":    "(1, 'abcdefgh'), (2.5, X'00'), (NULL, X'78')",
		"null":      "(1, 'abcdefgh'), (2.5, X'00'), (0, 'x')",
		"swapped":   "(1, 'abcdefgh'), (X'00', 2.5), (NULL, 'x')",
		"doubled":   "(1, 'abcdefgh'), (1, 'abcdefgh'), (2.5, X'00'), (NULL, 'x')",
	}
	for name, values := range rows {
		mustRun(t, sb, `CREATE TABLE "`+name+`" (a, b)`, `INSERT INTO "`+name+`" VALUES `+values)
	}
	if fp("base", false) != fp("reordered", false) || fp("base", false) != fp("float one", false) {
		t.Error("the same bag of rows has two digests")
	}
	if fp("base", true) == fp("reordered", true) {
		t.Error("rows in another order have the same ordered digest")
	}
	seen := map[string]string{fp("base", false): "base"}
	for name := range rows {
		if name == "base" || name == "reordered" || name == "float one" {
			continue
		}
		d := fp(name, false)
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s have the same digest %s", name, other, d)
		}
		seen[d] = name
	}
	if _, n, _ := sb.Fingerprint(ctx, "doubled", []string{"a", "b"}, false); n != 4 {
		t.Errorf("the digest of 4 rows counts %d", n)
	}
}
