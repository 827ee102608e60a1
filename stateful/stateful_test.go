package stateful_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/stateful"
)

// shopDB builds a small SQLite database: items with a price and a stock.
func shopDB(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "shop.sqlite")
	db := mustScratch(tb, path)
	for _, s := range []string{
		"CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, stock INTEGER)",
		"INSERT INTO item VALUES (1, 'pen', 1.5, 10), (2, 'ink', 4.0, 0), (3, 'pad', 2.5, 7), (4, 'cap', 0.5, 3)",
		"CREATE TABLE sale (item_id INTEGER REFERENCES item(id), qty INTEGER)",
		"INSERT INTO sale VALUES (1, 2), (3, 1)",
	} {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	return path
}

func source(tb testing.TB, path string) *qeval.Source {
	tb.Helper()
	src, err := (&registry.Catalog{}).Resolve(context.Background(), path, "sql")
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

func match(tb testing.TB, src *qeval.Source, c qeval.StatefulSpec, gold, pred string, limits qeval.Limits) qeval.Verdict {
	tb.Helper()
	mode, err := compare.Lookup("bag")
	if err != nil {
		tb.Fatal(err)
	}
	return stateful.Match(context.Background(), c, gold, pred, src, src, stateful.Options{Mode: mode, Limits: limits})
}

func hash(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

// noCopiesLeft fails when a sandbox copy is left in dir.
func noCopiesLeft(tb testing.TB, dir string) {
	tb.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), qeval.SandboxPrefix) {
			tb.Errorf("a sandbox copy is left: %s", e.Name())
		}
	}
}

func TestMatch_Verdicts(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the copies go there
	path := shopDB(t)
	before := hash(t, path)
	src := source(t, path)
	all := qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}}
	cases := []struct {
		name       string
		spec       qeval.StatefulSpec
		gold, pred string
		want       qeval.Outcome
		says       []string
	}{
		{"update written another way", all, "UPDATE item SET price = price * 2 WHERE stock = 0",
			"UPDATE item SET price = price + price WHERE id IN (SELECT id FROM item WHERE stock < 1)", qeval.OutcomeMatch, nil},
		{"update with a wrong where", all, "UPDATE item SET price = price * 2 WHERE stock = 0",
			"UPDATE item SET price = price * 2 WHERE stock < 5", qeval.OutcomeMismatch,
			[]string{"table item (gold 4 rows, generated 4): 1 row(s) changed, e.g. gold (4, \"cap\", 0.5, 3), generated (4, \"cap\", 1, 3)"}},
		{"an extra delete", all, "DELETE FROM sale WHERE item_id = 3",
			"DELETE FROM sale WHERE item_id = 3; DELETE FROM item WHERE stock = 0", qeval.OutcomeMismatch,
			[]string{"table item (gold 4 rows, generated 3): 1 row(s) removed, e.g. (2, \"ink\", 4, 0)"}},
		{"a missing insert", all, "INSERT INTO item VALUES (5, 'tape', 3.0, 1); UPDATE item SET stock = stock - 1 WHERE id = 1",
			"UPDATE item SET stock = stock - 1 WHERE id = 1", qeval.OutcomeMismatch,
			[]string{"1 row(s) removed, e.g. (5, \"tape\", 3, 1)"}},
		{"insert then update matches", all, "INSERT INTO item VALUES (5, 'tape', 3.0, 1); UPDATE item SET stock = stock + 1 WHERE id = 5",
			"INSERT INTO item (id, name, price, stock) VALUES (5, 'tape', 3, 2)", qeval.OutcomeMatch, nil},
		{"create table as select passes its checks", qeval.StatefulSpec{Checks: qeval.Statements{"SELECT name FROM cheap ORDER BY name", "SELECT count(*) FROM cheap"}},
			"CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2",
			"CREATE TABLE cheap (id INTEGER, name TEXT, price REAL, stock INTEGER); INSERT INTO cheap SELECT * FROM item WHERE price <= 1.5", qeval.OutcomeMatch, nil},
		{"a check that differs", qeval.StatefulSpec{Checks: qeval.Statements{"SELECT count(*) FROM cheap"}},
			"CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2", "CREATE TABLE cheap AS SELECT * FROM item", qeval.OutcomeMismatch,
			[]string{"check 1 (SELECT count(*) FROM cheap) differs"}},
		{"a check that fails after the answer", qeval.StatefulSpec{Checks: qeval.Statements{"SELECT count(*) FROM cheap"}},
			"CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2", "CREATE TABLE cheep AS SELECT * FROM item", qeval.OutcomeMismatch,
			[]string{"check 1", "fails after the generated answer", "no such table: cheap"}},
		{"attach is refused", all, "DELETE FROM sale", "ATTACH DATABASE '" + filepath.Join(tmp, "x.db") + "' AS x; DELETE FROM sale",
			qeval.OutcomePredError, []string{"statement 1 of 2 of the generated answer failed", "ATTACH"}},
		{"a failing second statement is named", all, "DELETE FROM sale", "DELETE FROM sale; DELETE FROM nowhere",
			qeval.OutcomePredError, []string{"statement 2 of 2", "no such table: nowhere"}},
		{"a setup that fails", qeval.StatefulSpec{Setup: qeval.Statements{"INSERT INTO nowhere VALUES (1)"}, CompareState: &qeval.StateCompare{All: true}},
			"DELETE FROM sale", "DELETE FROM sale", qeval.OutcomeSetupError, []string{"setup statement 1", "no such table: nowhere"}},
		{"a check that fails on the gold", qeval.StatefulSpec{Checks: qeval.Statements{"SELECT * FROM nowhere"}},
			"DELETE FROM sale", "DELETE FROM sale", qeval.OutcomeGoldError, []string{"check 1 fails on the gold"}},
		{"setup then answer", qeval.StatefulSpec{Setup: qeval.Statements{"INSERT INTO sale VALUES (4, 9)"}, CompareState: &qeval.StateCompare{Tables: []string{"sale"}}},
			"DELETE FROM sale WHERE qty > 5", "DELETE FROM sale WHERE item_id = 4", qeval.OutcomeMatch, nil},
		{"ordered tables", qeval.StatefulSpec{CompareState: &qeval.StateCompare{Tables: []string{"sale"}, Ordered: true}},
			"INSERT INTO sale VALUES (2, 1), (4, 1)", "INSERT INTO sale VALUES (4, 1), (2, 1)", qeval.OutcomeMismatch, []string{"the same rows in another order"}},
		{"a read answer, no comparison named", qeval.StatefulSpec{Setup: qeval.Statements{"DELETE FROM sale"}},
			"SELECT count(*) FROM sale", "SELECT count(*) FROM sale WHERE qty > 100", qeval.OutcomeMatch, nil},
		{"a schema that differs", qeval.StatefulSpec{CompareSchema: true},
			"CREATE INDEX item_name ON item(name)", "CREATE UNIQUE INDEX ix ON item(name)", qeval.OutcomeMismatch, []string{"indexes ((name)) in the gold, (unique (name))"}},
		{"a schema that agrees", qeval.StatefulSpec{CompareSchema: true},
			"ALTER TABLE item ADD COLUMN note TEXT; CREATE INDEX a ON item(name)", "ALTER TABLE item ADD note VARCHAR(30); CREATE INDEX b ON item (name)", qeval.OutcomeMatch, nil},
		{"a costlier answer", qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}, Efficiency: &qeval.Efficiency{MaxRatio: 1}},
			"DELETE FROM sale WHERE item_id = 1", "DELETE FROM sale WHERE item_id IN (SELECT id FROM item WHERE id = 1 UNION SELECT 1 FROM item)",
			qeval.OutcomeMismatch, []string{"the generated answer costs", "vm_steps", "more than max_ratio 1"}},
		{"a teardown", qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}, Teardown: qeval.Statements{"DROP TABLE IF EXISTS tmp"}},
			"CREATE TABLE tmp (x); DELETE FROM sale", "DELETE FROM sale; CREATE TABLE tmp (y)", qeval.OutcomeMismatch, []string{"other columns"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := match(t, src, c.spec, c.gold, c.pred, qeval.Limits{})
			text := v.Error + " " + v.State.String()
			if v.Outcome != c.want || v.Match != (c.want == qeval.OutcomeMatch) {
				t.Fatalf("outcome %s (match %v), want %s: %s", v.Outcome, v.Match, c.want, text)
			}
			for _, s := range c.says {
				if !strings.Contains(text, s) {
					t.Errorf("the verdict does not say %q: %s", s, text)
				}
			}
		})
	}
	if hash(t, path) != before {
		t.Error("the source database changed")
	}
	noCopiesLeft(t, tmp)
	if _, err := os.Stat(filepath.Join(tmp, "x.db")); err == nil {
		t.Error("ATTACH made a file")
	}
}

// TestMatch_Bounds: an answer that never ends is a timeout and one that grows the copy
// past its bound too_large; their copies are removed.
func TestMatch_Bounds(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src := source(t, shopDB(t))
	all := qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}}
	v := match(t, src, all, "DELETE FROM sale",
		"INSERT INTO sale WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 1, 1 FROM r WHERE i < 0", qeval.Limits{Timeout: 100 * time.Millisecond})
	if v.Outcome != qeval.OutcomeTimeout {
		t.Errorf("an answer that never ends: %s (%s), want timeout", v.Outcome, v.Error)
	}
	v = match(t, src, all, "DELETE FROM sale",
		"CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000000) SELECT i, randomblob(200) AS b FROM r", qeval.Limits{})
	if v.Outcome != qeval.OutcomeTooLarge || !strings.Contains(v.Error, "size bound") {
		t.Errorf("an answer that grows the copy: %s (%s), want too_large", v.Outcome, v.Error)
	}
	noCopiesLeft(t, tmp)
}

func mustScratch(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// panicky is a sandbox whose statements panic; it counts its Close calls.
type panicky struct {
	qeval.Sandbox
	closed *int
}

func (p panicky) Query(context.Context, string) (*qeval.ResultSet, error) { panic("boom") }
func (p panicky) CostUnit() string                                        { return "" }
func (p panicky) Close() error                                            { *p.closed++; return nil }

// TestMatch_CopiesGoOnPanicAndCancel: a copy is removed when its side panics, and when
// the run is stopped (the first SIGTERM cancels the run's context) in the middle of an
// answer.
func TestMatch_CopiesGoOnPanicAndCancel(t *testing.T) {
	closed := 0
	src := &qeval.Source{Engine: "fake", Dialect: "sqlite", Files: []string{"x"},
		Sandbox: func(context.Context, string, qeval.Limits) (qeval.Sandbox, error) {
			return panicky{closed: &closed}, nil
		}}
	func() {
		defer func() { recover() }()
		match(t, src, qeval.StatefulSpec{Checks: qeval.Statements{"SELECT 1"}}, "DELETE FROM t", "DELETE FROM t", qeval.Limits{})
	}()
	if closed != 1 {
		t.Errorf("after a panic, Close was called %d times, want 1", closed)
	}
	real := source(t, shopDB(t))
	made, closedReal := 0, 0
	second := make(chan struct{})
	mk := real.Sandbox
	real.Sandbox = func(ctx context.Context, f string, l qeval.Limits) (qeval.Sandbox, error) {
		sb, err := mk(ctx, f, l)
		if made++; made == 2 {
			close(second) // the generated answer's copy is made: stop the run
		}
		return countingClose{sb, &closedReal}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	mode, _ := compare.Lookup("bag")
	done := make(chan qeval.Verdict)
	go func() {
		done <- stateful.Match(ctx, qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}}, "DELETE FROM sale",
			"INSERT INTO sale WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 1, 1 FROM r WHERE i < 0", real, real, stateful.Options{Mode: mode})
	}()
	<-second
	cancel()
	v := <-done
	if v.Outcome != qeval.OutcomeCanceled {
		t.Errorf("a canceled run: %s (%s)", v.Outcome, v.Error)
	}
	if made != 2 || closedReal != 2 {
		t.Errorf("%d copies made, %d closed; want 2 and 2", made, closedReal)
	}
}

// countingClose counts the Close calls of a sandbox.
type countingClose struct {
	qeval.Sandbox
	n *int
}

func (c countingClose) Close() error { *c.n++; return c.Sandbox.Close() }

// TestMatch_ReusedCopies: the copies come from a pool (qeval.WithSandboxReuse), and
// nothing one case did reaches the next: not a committed transaction, not a setting;
// a statement a reused copy refuses runs again in a fresh copy, with its fresh result;
// rows stored otherwise (other rowids) are still compared as a bag.
func TestMatch_ReusedCopies(t *testing.T) {
	src := source(t, shopDB(t))
	sale := qeval.StatefulSpec{CompareState: &qeval.StateCompare{Tables: []string{"sale"}}}
	for i := range 3 {
		v := match(t, src, sale, "BEGIN; DELETE FROM sale; COMMIT; PRAGMA foreign_keys = ON", "DELETE FROM sale WHERE qty > 0", qeval.Limits{})
		if v.Outcome != qeval.OutcomeMatch {
			t.Fatalf("round %d: %s %s", i, v.Outcome, v.Error+" "+v.State.String())
		}
		v = match(t, src, sale, "UPDATE sale SET qty = qty", "UPDATE sale SET qty = qty + 0", qeval.Limits{})
		if v.Outcome != qeval.OutcomeMatch || len(v.State.Tables) != 1 || v.State.Tables[0].GoldRows != 2 || v.State.Tables[0].PredRows != 2 {
			t.Fatalf("round %d: a case after a committed delete: %s %+v", i, v.Outcome, v.State.Tables)
		}
		v = match(t, src, qeval.StatefulSpec{Checks: qeval.Statements{"PRAGMA foreign_keys"}}, "DELETE FROM sale WHERE qty = 1", "DELETE FROM sale WHERE qty < 2", qeval.Limits{})
		if v.Outcome != qeval.OutcomeMatch || v.Gold != nil {
			t.Fatalf("round %d: foreign_keys after a case that set it: %s %s", i, v.Outcome, v.State.String())
		}
	}
	counts := qeval.StatefulSpec{Checks: qeval.Statements{"SELECT changes(), total_changes()"}}
	v := match(t, src, counts, "UPDATE item SET stock = 0 WHERE stock > 0", "UPDATE item SET stock = 0 WHERE stock <> 0", qeval.Limits{})
	if v.Outcome != qeval.OutcomeMatch || len(v.State.Checks) != 1 || !v.State.Checks[0].Equal {
		t.Fatalf("changes() in a check: %s %s %s", v.Outcome, v.Error, v.State.String())
	}
	bag := match(t, src, sale, "INSERT INTO sale VALUES (2, 1), (4, 1)", "INSERT INTO sale VALUES (4, 1), (2, 1)", qeval.Limits{})
	if bag.Outcome != qeval.OutcomeMatch {
		t.Fatalf("the same rows inserted in another order, compared as a bag: %s %s", bag.Outcome, bag.State.String())
	}
}

// TestMatch_SameRecordsOtherDefinition: two copies that store the same records under
// definitions that read them otherwise (a column added with another default) differ.
func TestMatch_SameRecordsOtherDefinition(t *testing.T) {
	src := source(t, shopDB(t))
	sale := qeval.StatefulSpec{CompareState: &qeval.StateCompare{Tables: []string{"sale"}}}
	v := match(t, src, sale, "ALTER TABLE sale ADD COLUMN note INT DEFAULT 1", "ALTER TABLE sale ADD COLUMN note INT DEFAULT 2", qeval.Limits{})
	if v.Outcome != qeval.OutcomeMismatch {
		t.Fatalf("columns added with other defaults: %s %s", v.Outcome, v.State.String())
	}
}
