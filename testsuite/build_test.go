package testsuite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/testsuite"
)

// shop is a small database with the constraints generation must keep: a CHECK, NOT
// NULL, UNIQUE, a declared foreign key, a WITHOUT ROWID table, a generated column, a
// table without primary key, a view and an empty table.
const shopSchema = `
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, age INT CHECK (age >= 18));
CREATE TABLE product (code TEXT PRIMARY KEY, title TEXT UNIQUE, price REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INT NOT NULL REFERENCES customer(id),
  product TEXT REFERENCES product(code), qty INT, total REAL GENERATED ALWAYS AS (qty * 2.5) VIRTUAL);
CREATE TABLE note (body TEXT);
CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE qty > 2;`

func mustShop(tb testing.TB, dir string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "shop"), 0o755); err != nil {
		tb.Fatal(err)
	}
	w, err := sqlite.Create(filepath.Join(dir, "shop", "shop.sqlite"), shopSchema)
	if err != nil {
		tb.Fatal(err)
	}
	I, T, F := qeval.Int, qeval.Text, qeval.Float
	ins := func(table string, cols []string, rows ...[]qeval.Value) {
		if _, err := w.Insert(table, cols, rows); err != nil {
			tb.Fatal(err)
		}
	}
	ins("customer", []string{"id", "name", "city", "age"},
		[]qeval.Value{I(1), T("Ann"), T("Paris"), I(30)}, []qeval.Value{I(2), T("Bob"), T("Lyon"), I(41)},
		[]qeval.Value{I(3), T("Cid"), T("Paris"), I(25)}, []qeval.Value{I(4), T("Dee"), qeval.Null, I(19)})
	ins("product", []string{"code", "title", "price"},
		[]qeval.Value{T("p1"), T("Pen"), F(1.5)}, []qeval.Value{T("p2"), T("Ink"), F(7)}, []qeval.Value{T("p3"), T("Pad"), F(3.25)})
	ins("orders", []string{"id", "customer_id", "product", "qty"},
		[]qeval.Value{I(1), I(1), T("p1"), I(2)}, []qeval.Value{I(2), I(1), T("p2"), I(5)},
		[]qeval.Value{I(3), I(2), T("p3"), I(1)}, []qeval.Value{I(4), I(3), T("p1"), I(3)})
	ins("note", []string{"body"}, []qeval.Value{T("hello")}, []qeval.Value{T("hello")})
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

func options(dir, out string) testsuite.Options {
	return testsuite.Options{DBDir: dir, Out: out, Seed: 7, Version: "test", Candidates: 12, PerSchema: 3,
		Open:   sqlite.Opener,
		Create: func(path, like string) (testsuite.TableWriter, error) { return sqlite.CreateLike(path, like) },
		Check:  sqlite.Check}
}

var shopGolds = []testsuite.Gold{
	{DBID: "shop", Ref: "g1", SQL: "SELECT name FROM customer WHERE city = 'Paris' AND age > 20"},
	{DBID: "shop", Ref: "g2", SQL: "SELECT T1.name, count(*) FROM customer AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id GROUP BY T1.id ORDER BY count(*) DESC LIMIT 1"},
	{DBID: "shop", Ref: "g3", SQL: "SELECT title FROM product WHERE price BETWEEN 2 AND 8 ORDER BY price"},
	{DBID: "shop", Ref: "g4", SQL: "SELECT count(DISTINCT city) FROM customer"},
	{DBID: "shop", Ref: "g5", SQL: "SELECT sum(total) FROM big_orders"},
	{DBID: "shop", Ref: "bad", SQL: "SELECT nope FROM customer"},
	{DBID: "shop", Ref: "slow", SQL: "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"},
	{DBID: "missing", Ref: "m1", SQL: "SELECT 1"},
	{DBID: "empty", Ref: "e1", SQL: "SELECT kind, count(*) FROM thing WHERE size > 3 GROUP BY kind"},
}

func TestBuild_ConstraintsAndBadInput(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	mustShop(t, dir)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	w, err := sqlite.Create(filepath.Join(dir, "empty", "empty.sqlite"), "CREATE TABLE thing (id INTEGER PRIMARY KEY, kind TEXT, size INT)")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	opt := options(dir, out)
	opt.Timeout = 300 * time.Millisecond
	m, err := testsuite.Build(context.Background(), shopGolds, opt)
	if err != nil {
		t.Fatal(err)
	}
	var shop, missing, empty *testsuite.Database
	for _, d := range m.Databases {
		switch d.DBID {
		case "shop":
			shop = d
		case "missing":
			missing = d
		case "empty":
			empty = d
		}
	}
	if empty == nil || empty.Error != "" || len(empty.Files) < 2 || !strings.Contains(strings.Join(empty.Notes, "\n"), "table thing: no rows") {
		t.Errorf("database without rows: %+v, want generated databases and a note", empty)
	} else if empty.Files[1].Rows["thing"] == 0 {
		t.Errorf("database without rows: generated file has no rows: %+v", empty.Files[1])
	}
	if missing == nil || !strings.Contains(missing.Error, "copy the original database") {
		t.Errorf("missing database: %+v, want an error about the original", missing)
	}
	if shop == nil || shop.Error != "" {
		t.Fatalf("shop: %+v, want it built", shop)
	}
	notes := strings.Join(shop.Notes, "\n")
	for _, want := range []string{"view big_orders", "table note: no primary key", "table product: WITHOUT ROWID",
		"column total is generated", "table audit: no rows"} {
		if !strings.Contains(notes, want) {
			t.Errorf("shop notes lack %q:\n%s", want, notes)
		}
	}
	errs := map[string]string{}
	for _, g := range shop.Golds {
		errs[g.Ref] = g.Error
	}
	if !strings.Contains(errs["bad"], "no such column") {
		t.Errorf("gold bad: error %q, want the engine's message", errs["bad"])
	}
	if !strings.Contains(errs["slow"], "timed out") {
		t.Errorf("gold slow: error %q, want a timeout", errs["slow"])
	}
	generated := 0
	for _, f := range shop.Files {
		if f.Generated {
			generated++
		}
	}
	if generated == 0 {
		t.Fatalf("no generated database kept; rejected: %v", shop.Rejected)
	}
	files, _ := filepath.Glob(filepath.Join(out, "shop", "*.sqlite"))
	if len(files) != generated+1 {
		t.Errorf("suite folder holds %d files, manifest lists %d", len(files), generated+1)
	}
	if _, err := os.Stat(filepath.Join(out, "shop", ".work")); !os.IsNotExist(err) {
		t.Errorf("work folder left behind: %v", err)
	}
	ctx := context.Background()
	for _, f := range files {
		if err := sqlite.Check(f); err != nil {
			t.Errorf("Check(%s)=%v", f, err)
		}
		ex, err := sqlite.Open(f, qeval.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		// generated rows keep the constraints the file cannot check by itself
		for q, want := range map[string]int64{
			"SELECT count(*) FROM orders WHERE customer_id NOT IN (SELECT id FROM customer)":                      0,
			"SELECT count(*) FROM orders WHERE product IS NOT NULL AND product NOT IN (SELECT code FROM product)": 0,
			"SELECT count(*) FROM customer WHERE age < 18 OR name IS NULL":                                        0,
			"SELECT count(*) FROM orders WHERE total IS NOT qty * 2.5":                                            0,
		} {
			rs, err := ex.Query(ctx, q)
			if err != nil || rs.Rows[0][0].Int != want {
				t.Errorf("%s: %s = %v (%v), want %d", filepath.Base(f), q, rs, err, want)
			}
		}
		// no tie at the cut of g2: the first two counts differ
		rs, err := ex.Query(ctx, "SELECT count(*) FROM customer AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id GROUP BY T1.id ORDER BY count(*) DESC LIMIT 2")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs.Rows) == 2 && rs.Rows[0][0] == rs.Rows[1][0] && strings.Contains(filepath.Base(f), "_ts") {
			t.Errorf("%s: tie at the LIMIT 1 cut of g2: %v", filepath.Base(f), rs.Rows)
		}
		ex.Close()
	}
	// the gold as prediction matches on the whole suite
	ev, err := execmatch.New(execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	for _, g := range shopGolds[:5] {
		v := ev.Match(ctx, qeval.Item{Database: filepath.Join(out, "shop"), Gold: g.SQL, Pred: g.SQL})
		if !v.Match {
			t.Errorf("gold %s as prediction: %s %s, want match", g.Ref, v.Outcome, v.Error)
		}
	}
	// the suite tells apart a near miss the original database cannot
	near := qeval.Item{Database: filepath.Join(out, "shop"), Gold: shopGolds[0].SQL, Pred: "SELECT name FROM customer WHERE city = 'Paris' AND age >= 20"}
	single := near
	single.Database = filepath.Join(dir, "shop", "shop.sqlite")
	if v := ev.Match(ctx, single); !v.Match {
		t.Fatalf("near miss on the original: %s, want a match there (the test needs it)", v.Outcome)
	}
	if v := ev.Match(ctx, near); v.Match {
		t.Errorf("near miss (>= for >) on the suite: match, want the suite to tell it apart")
	}
	if shop.Killed == 0 || shop.Killable < shop.Killed {
		t.Errorf("shop killed %d of killable %d neighbours, want some", shop.Killed, shop.Killable)
	}
}

func TestBuild_Deterministic(t *testing.T) {
	dir := t.TempDir()
	mustShop(t, dir)
	var manifests [2]string
	for i := range manifests {
		out := t.TempDir()
		if _, err := testsuite.Build(context.Background(), shopGolds[:5], options(dir, out)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		delete(m, "build_ms")
		b, _ := json.Marshal(m)
		manifests[i] = string(b)
	}
	if manifests[0] != manifests[1] {
		t.Errorf("two builds with the same seed differ:\n%s\n%s", manifests[0], manifests[1])
	}
	if !strings.Contains(manifests[0], `"seed":7`) || !strings.Contains(manifests[0], `"qeval_version":"test"`) {
		t.Errorf("manifest lacks the seed or version: %s", manifests[0])
	}
}

func TestBuild_OutIsTheDatabaseFolder(t *testing.T) {
	dir := t.TempDir()
	mustShop(t, dir)
	before, _ := os.ReadFile(filepath.Join(dir, "shop", "shop.sqlite"))
	_, err := testsuite.Build(context.Background(), shopGolds[:1], options(dir, dir))
	if err == nil || !strings.Contains(err.Error(), "the suite folder is the database folder") {
		t.Errorf("Build with Out = DBDir: %v, want a refusal", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "shop", "shop.sqlite"))
	if len(before) == 0 || string(before) != string(after) {
		t.Error("the original database changed")
	}
}

func TestShrink(t *testing.T) {
	dir := t.TempDir()
	mustShop(t, dir)
	orig := filepath.Join(dir, "shop", "shop.sqlite")
	gold := "SELECT name FROM customer WHERE city = 'Paris'"
	pred := "SELECT name FROM customer WHERE city = 'Paris' OR city IS NULL"
	ce, err := testsuite.Shrink(context.Background(), testsuite.ShrinkOptions{Database: orig, Gold: gold, Pred: pred,
		Mode: compare.SpiderTS, Open: sqlite.Opener,
		Create: func(path, like string) (testsuite.TableWriter, error) { return sqlite.CreateLike(path, like) }})
	if err != nil {
		t.Fatal(err)
	}
	if ce.RowsAfter != 1 || len(ce.Inserts) != 1 || !strings.Contains(ce.Inserts[0], `INSERT INTO "customer"`) || !strings.Contains(ce.Inserts[0], "NULL") {
		t.Errorf("counterexample %d rows %v, want the one customer without a city", ce.RowsAfter, ce.Inserts)
	}
	if ce.Gold.NumRows() != 0 || ce.Pred.NumRows() != 1 || ce.Explanation.Equal {
		t.Errorf("results on the counterexample: gold %v, pred %v", ce.Gold, ce.Pred)
	}
	// equal queries have no counterexample
	_, err = testsuite.Shrink(context.Background(), testsuite.ShrinkOptions{Database: orig, Gold: gold, Pred: gold,
		Open: sqlite.Opener, Create: func(path, like string) (testsuite.TableWriter, error) { return sqlite.CreateLike(path, like) }})
	if err == nil || !strings.Contains(err.Error(), "do not differ") {
		t.Errorf("Shrink of equal queries: %v, want an error saying they do not differ", err)
	}
}
