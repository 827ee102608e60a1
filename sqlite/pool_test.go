package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// reused makes a reused copy of src (qeval.WithSandboxReuse).
func reused(tb testing.TB, src string, opt sqlite.SandboxOptions, limits qeval.Limits) *sqlite.Sandbox {
	tb.Helper()
	sb, err := sqlite.NewSandbox(qeval.WithSandboxReuse(context.Background()), src, limits, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}

func value(tb testing.TB, sb *sqlite.Sandbox, q string) qeval.Value {
	tb.Helper()
	rs, err := sb.Query(context.Background(), q)
	if err != nil {
		tb.Fatalf("Query(%q): %v", q, err)
	}
	if rs.NumRows() != 1 || len(rs.Rows[0]) != 1 {
		tb.Fatalf("Query(%q) = %v, want one value", q, rs.Rows)
	}
	return rs.Rows[0][0]
}

// pristine fails unless sb holds the source of mustSandbox as it was made: its rows,
// its one table, no temporary object, the settings a new connection has.
func pristine(tb testing.TB, sb *sqlite.Sandbox) {
	tb.Helper()
	rs, err := sb.Rows(context.Background(), "t", true)
	if err != nil {
		tb.Fatal(err)
	}
	want := [][]qeval.Value{{qeval.Int(1), qeval.Text("a"), qeval.Int(10)}, {qeval.Int(2), qeval.Text("b"), qeval.Int(20)}}
	if !reflect.DeepEqual(rs.Rows, want) {
		tb.Errorf("rows of t = %v, want %v", rs.Rows, want)
	}
	tables, err := sb.Tables(context.Background())
	if err != nil || len(tables) != 1 || len(tables[0].Columns) != 3 || tables[0].Indexes != nil {
		tb.Errorf("Tables = %+v, %v; want t alone, as made", tables, err)
	}
	for q, want := range map[string]qeval.Value{
		"SELECT count(*) FROM sqlite_temp_master": qeval.Int(0),
		"SELECT last_insert_rowid()":              qeval.Int(0),
		"PRAGMA foreign_keys":                     qeval.Int(0),
		"PRAGMA recursive_triggers":               qeval.Int(0),
	} {
		if got := value(tb, sb, q); got != want {
			tb.Errorf("%s = %v in a copy, want %v", q, got, want)
		}
	}
}

// TestSandbox_ReusedCopiesStartPristine: whatever a side did in a reused copy (writes,
// DDL, its own transactions, COMMIT included, a setting, a temporary table, a
// statement that timed out or grew the copy past its bound, a transaction left open),
// the next copy taken from the pool is the source as it is, and the copies are reused.
func TestSandbox_ReusedCopiesStartPristine(t *testing.T) {
	src := buildDB(t, t.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	opt, limits := sqlite.SandboxOptions{MaxGrowthBytes: 64 << 10}, qeval.Limits{Timeout: time.Second}
	sides := map[string][]string{
		"writes and DDL": {"UPDATE t SET n = n + 1", "INSERT INTO t VALUES (3, 'c', 30)", "DELETE FROM t WHERE id = 1",
			"CREATE TABLE u AS SELECT * FROM t", "CREATE UNIQUE INDEX t_name ON t(name)", "ALTER TABLE t ADD COLUMN m INT"},
		"a committed transaction": {"BEGIN", "DELETE FROM t", "COMMIT", "SAVEPOINT s", "INSERT INTO t VALUES (9, 'z', 0)", "RELEASE s"},
		"settings":                {"PRAGMA foreign_keys = ON", "PRAGMA recursive_triggers = ON", "INSERT INTO t VALUES (7, 'g', 70)"},
		"a temporary table":       {"CREATE TEMP TABLE x AS SELECT * FROM t", "DELETE FROM t"},
		"an open transaction":     {"BEGIN", "UPDATE t SET name = 'q'"},
	}
	for name, stmts := range sides {
		t.Run(name, func(t *testing.T) {
			sb := reused(t, src, opt, limits)
			pristine(t, sb)
			mustRun(t, sb, stmts...)
			sb.Close()
			next := reused(t, src, opt, limits)
			defer next.Close()
			pristine(t, next)
		})
	}
	t.Run("a timeout", func(t *testing.T) {
		sb := reused(t, src, opt, limits)
		mustRun(t, sb, "DELETE FROM t WHERE id = 2")
		_, err := sb.Query(context.Background(), "INSERT INTO t(name) WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 'x' FROM r WHERE i < 0")
		if qeval.ErrorCode(err) != qeval.CodeTimeout {
			t.Fatalf("a statement that never ends: %v, want a timeout", err)
		}
		sb.Close()
		next := reused(t, src, opt, limits)
		defer next.Close()
		pristine(t, next)
	})
	t.Run("too large", func(t *testing.T) {
		sb := reused(t, src, opt, limits)
		mustRun(t, sb, "UPDATE t SET n = 0")
		_, err := sb.Query(context.Background(), "CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) SELECT i, randomblob(100) AS b FROM r")
		if qeval.ErrorCode(err) != qeval.CodeTooLarge {
			t.Fatalf("a copy grown past its bound: %v, want too_large", err)
		}
		sb.Close()
		next := reused(t, src, opt, limits)
		defer next.Close()
		pristine(t, next)
		// the next copy has its bound too
		_, err = next.Query(context.Background(), "CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) SELECT i, randomblob(100) AS b FROM r")
		if qeval.ErrorCode(err) != qeval.CodeTooLarge {
			t.Fatalf("the next copy grown past its bound: %v, want too_large", err)
		}
	})
	sqlite.CloseIdleCopies()
	sb := reused(t, src, opt, limits)
	sb.Close()
	if n, _ := sqlite.IdleCopies(); n != 1 {
		t.Fatalf("%d idle copies after one closed, want 1", n)
	}
	again := reused(t, src, opt, limits)
	if n, _ := sqlite.IdleCopies(); n != 0 {
		t.Errorf("a copy was made while the pool had one: %d idle", n)
	}
	mustRun(t, again, "BEGIN", "DELETE FROM t")
	again.Close() // a transaction left open: the copy is closed, not kept
	if n, _ := sqlite.IdleCopies(); n != 0 {
		t.Errorf("a copy with an open transaction went back to the pool: %d idle", n)
	}
}

// TestSandbox_ReusedCopyOfAChangedSource: a source file changed since its copies were
// made is copied again, never served from the pool's copies of the old file.
func TestSandbox_ReusedCopyOfAChangedSource(t *testing.T) {
	src := buildDB(t, t.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	sb := reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{})
	pristine(t, sb)
	sb.Close()
	db, err := sql.Open("sqlite3", src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE t SET n = 99 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// the same size; a modification time that differs whatever the clock's resolution
	if err := os.Chtimes(src, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	images, _ := sqlite.Images()
	next := reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{})
	defer next.Close()
	if got := value(t, next, "SELECT n FROM t WHERE id = 1"); got != qeval.Int(99) {
		t.Errorf("a copy of the changed source reads n = %v, want 99", got)
	}
	// the old version's image went with it
	if n, _ := sqlite.Images(); n != images {
		t.Errorf("%d images kept after the source changed, %d before", n, images)
	}
}

// TestSandbox_ReusedCopyRefusesConnectionCounters: changes() and total_changes() read
// what the connection counted before this copy; a reused copy refuses them and says it
// is lost (its side runs again in a fresh copy); a fresh copy runs them.
func TestSandbox_ReusedCopyRefusesConnectionCounters(t *testing.T) {
	src := buildDB(t, t.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	sb := reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{})
	mustRun(t, sb, "UPDATE t SET n = 1")
	if sb.Lost() {
		t.Fatal("lost before a refusal")
	}
	if _, err := sb.Query(context.Background(), "SELECT total_changes()"); err == nil || !sb.Lost() {
		t.Fatalf("total_changes() in a reused copy: %v, lost %v; want refused and lost", err, sb.Lost())
	}
	if _, err := sb.Query(context.Background(), "SELECT 1"); err == nil {
		t.Error("a statement ran after the copy was lost")
	}
	sb.Close()
	fresh, _ := mustSandbox(t, sqlite.SandboxOptions{}, qeval.Limits{})
	mustRun(t, fresh, "UPDATE t SET n = 1")
	if got := value(t, fresh, "SELECT changes()"); got != qeval.Int(2) {
		t.Errorf("changes() in a fresh copy = %v, want 2", got)
	}
}

// TestSandbox_PoolIsBounded: copies closed at once beyond the bound are closed, not
// kept; CloseIdleCopies empties the pool.
func TestSandbox_PoolIsBounded(t *testing.T) {
	src := buildDB(t, t.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10)")
	sqlite.CloseIdleCopies()
	var open []*sqlite.Sandbox
	for range sqlite.MaxIdleCopies + 3 {
		open = append(open, reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{}))
	}
	var wg sync.WaitGroup
	for _, sb := range open {
		wg.Add(1)
		go func() { defer wg.Done(); sb.Close() }()
	}
	wg.Wait()
	n, bytes := sqlite.IdleCopies()
	if n != sqlite.MaxIdleCopies || bytes <= 0 {
		t.Errorf("%d idle copies (%d bytes) after %d closed, want %d", n, bytes, len(open), sqlite.MaxIdleCopies)
	}
	sqlite.CloseIdleCopies()
	if n, bytes := sqlite.IdleCopies(); n != 0 || bytes != 0 {
		t.Errorf("%d idle copies (%d bytes) after CloseIdleCopies", n, bytes)
	}
}

// TestSandbox_StoredDigest: equal stored rows give equal digests; a changed value, a
// row more, an open transaction or a temporary table of the name change or withhold it.
func TestSandbox_StoredDigest(t *testing.T) {
	ctx := context.Background()
	src := buildDB(t, t.TempDir(), sandboxSchema, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	a := reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{})
	defer a.Close()
	b := reused(t, src, sqlite.SandboxOptions{}, qeval.Limits{})
	defer b.Close()
	mustRun(t, a, "UPDATE t SET n = n * 2 WHERE id = 2", "INSERT INTO t VALUES (3, replace(hex(zeroblob(3000)), '0', 'x'), 0)")
	mustRun(t, b, "UPDATE t SET n = 40 WHERE id = 2", "INSERT INTO t VALUES (3, replace(hex(zeroblob(3000)), '0', 'x'), 0)")
	da, na, oka := a.StoredDigest(ctx, "t")
	db, nb, okb := b.StoredDigest(ctx, "t")
	if !oka || !okb || da != db || na != 3 || nb != 3 {
		t.Fatalf("equal tables: %s %d %v, %s %d %v", da, na, oka, db, nb, okb)
	}
	// the same records under another definition
	mustRun(t, a, "ALTER TABLE t ADD COLUMN c INT DEFAULT 1")
	mustRun(t, b, "ALTER TABLE t ADD COLUMN c INT DEFAULT 2")
	da, _, oka = a.StoredDigest(ctx, "t")
	if d, _, ok := b.StoredDigest(ctx, "t"); !ok || !oka || d == da {
		t.Errorf("columns added with other defaults: %s %v, %s %v; want two digests", da, oka, d, ok)
	}
	// a byte of the overflow pages of the long row
	mustRun(t, b, "UPDATE t SET name = substr(name, 1, 5000) || 'y' || substr(name, 5002) WHERE id = 3")
	if d, _, ok := b.StoredDigest(ctx, "t"); !ok || d == da {
		t.Errorf("a changed byte of an overflow page: %s %v, want a digest other than %s", d, ok, da)
	}
	mustRun(t, a, "BEGIN", "DELETE FROM t WHERE id = 1")
	if _, _, ok := a.StoredDigest(ctx, "t"); ok {
		t.Error("a digest with a transaction open")
	}
	mustRun(t, a, "ROLLBACK", "CREATE TEMP TABLE t (x)")
	if _, _, ok := a.StoredDigest(ctx, "t"); ok {
		t.Error("a digest of a table a temporary one hides")
	}
	if _, _, ok := a.StoredDigest(ctx, "nowhere"); ok {
		t.Error("a digest of no table")
	}
}
