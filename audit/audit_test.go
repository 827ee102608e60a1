package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/sqlite"
)

// shop writes a small database: a tie at LIMIT 1 on price, a text/number mixture,
// computed averages, and no row with qty above 100.
func shop(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shop.sqlite")
	d, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, s := range []string{
		`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, code)`,
		`INSERT INTO item VALUES (1, 'apple', 3.0, 10, 7), (2, 'pear', 5.0, 1, 'x7'), (3, 'plum', 5.0, 3, 9), (4, 'fig', 1.0, 2, 8)`,
	} {
		if _, err := d.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func item(i int, gold, question, db string) audit.Item {
	return audit.Item{Index: i, DBID: "shop", Gold: gold, Question: question,
		Source: &qeval.Source{Name: "shop", Engine: "sqlite", Files: []string{db}, Open: sqlite.Opener}}
}

func TestRun_Flags(t *testing.T) {
	db := shop(t)
	items := []audit.Item{
		item(0, `SELECT name FROM item ORDER BY price DESC LIMIT 1`, "most expensive item?", db),
		item(1, `SELECT name FROM item WHERE qty > 100`, "items with more than 100 in stock?", db),
		item(2, `SELECT count(*) FROM item WHERE qty > 100 AND price > 2`, "how many big expensive items?", db),
		item(3, `SELECT * FROM item WHERE id = 1`, "everything about item 1", db),
		item(4, `SELECT avg(price) FROM item WHERE id < 4`, "mean price of the first three?", db),
		item(5, `SELECT code FROM item`, "codes?", db),
		item(6, `SELECT name FROM item WHERE qty = 10`, "which item has 10 in stock?", db),
		item(7, `select name  from item where qty = 10;`, "name of the item with ten in stock", db),
		item(8, `SELECT id FROM item WHERE qty = 10`, "Which item has 10 in stock", db),
		item(9, `SELECT nosuch FROM item`, "broken", db),
		{Index: 10, DBID: "gone", Gold: "SELECT 1", Ref: "gold.sql:11", Err: errors.New("no database gone")},
		item(11, `SELECT name FROM item ORDER BY price LIMIT 2`, "two cheapest", db),
	}
	rep, err := audit.Run(context.Background(), items, audit.Options{Reversed: reversed})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]string{
		0:  {audit.TieAtLimit},
		1:  {audit.Empty},
		2:  {audit.Weak},
		3:  {audit.SelectStar},
		4:  {audit.FloatRounding},
		5:  {audit.MixedTypes},
		6:  {audit.Duplicate},
		7:  {audit.Duplicate},
		8:  {audit.Duplicate},
		9:  {audit.GoldFails},
		10: {audit.GoldFails},
		11: {},
	}
	for i, f := range rep.Items {
		if strings.Join(f.Flags, ",") != strings.Join(want[i], ",") {
			t.Errorf("item %d (%s): flags %v, want %v; evidence %v", i, items[i].Gold, f.Flags, want[i], f.Evidence)
		}
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "gold.sql:11") || !strings.Contains(rep.Problems[0], "no database gone") {
		t.Errorf("problems %v: want one naming gold.sql:11 and its reason", rep.Problems)
	}
	if rep.Counts[audit.Duplicate] != 3 || rep.Counts[audit.OrderDependent] != 0 || rep.Flagged != 11 {
		t.Errorf("counts %v flagged %d", rep.Counts, rep.Flagged)
	}
	if _, ok := rep.Counts[audit.OrderDependent]; !ok {
		t.Error("every flag has a count, zero or not")
	}
	tie := rep.Items[0].Evidence[audit.TieAtLimit]
	if s := jsonText(t, tie); !strings.Contains(s, "pear") || !strings.Contains(s, "plum") {
		t.Errorf("tie evidence %s: want both tied rows, pear and plum", s)
	}
	if s := jsonText(t, rep.Items[9].Evidence[audit.GoldFails]); !strings.Contains(s, "nosuch") {
		t.Errorf("gold_fails evidence %s: want the engine's message", s)
	}
	if s := jsonText(t, rep.Items[6].Evidence[audit.Duplicate]); !strings.Contains(s, `"same_gold":[{"index":7`) || !strings.Contains(s, `"same_question":[{"index":8`) {
		t.Errorf("duplicate evidence of item 6 %s: same gold as 7, same question as 8", s)
	}
}

// TestRun_OrderDependent: LIMIT without ORDER BY keeps the rows SQLite meets first,
// which reversed scans change.
func TestRun_OrderDependent(t *testing.T) {
	db := shop(t)
	rep, err := audit.Run(context.Background(), []audit.Item{
		item(0, `SELECT name FROM item LIMIT 2`, "", db),
		item(1, `SELECT name FROM item ORDER BY name LIMIT 2`, "", db),
	}, audit.Options{Reversed: reversed})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Items[0].Has(audit.OrderDependent) || rep.Items[1].Has(audit.OrderDependent) {
		t.Fatalf("flags %v and %v: want LIMIT without ORDER BY order-dependent, with ORDER BY not", rep.Items[0].Flags, rep.Items[1].Flags)
	}
	if s := jsonText(t, rep.Items[0].Evidence[audit.OrderDependent]); !strings.Contains(s, "only_normal") {
		t.Errorf("evidence %s: want the rows each scan order returned", s)
	}
	// without a reversed opener the scan-order check is skipped, not guessed
	rep, _ = audit.Run(context.Background(), []audit.Item{item(0, `SELECT name FROM item LIMIT 2`, "", db)}, audit.Options{})
	if rep.Items[0].Has(audit.OrderDependent) {
		t.Error("order_dependent without reversed scans")
	}
}

// TestRun_UnopenableDatabase: a file that is not a database fails its items with the
// file named, and the other database's items are audited.
func TestRun_UnopenableDatabase(t *testing.T) {
	good := shop(t)
	bad := filepath.Join(t.TempDir(), "bad.sqlite")
	if err := os.WriteFile(bad, []byte("this is not a database, just text that is long enough to have a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(context.Background(), []audit.Item{
		item(0, `SELECT 1`, "", bad),
		item(1, `SELECT name FROM item WHERE id = 1`, "", good),
	}, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Items[0].Has(audit.GoldFails) || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "bad.sqlite") {
		t.Errorf("flags %v problems %v: want gold_fails naming bad.sqlite", rep.Items[0].Flags, rep.Problems)
	}
	if len(rep.Items[1].Flags) != 0 {
		t.Errorf("the good database's item: flags %v", rep.Items[1].Flags)
	}
}

// TestRun_Canceled: a canceled audit returns ctx's error and the items it has.
func TestRun_Canceled(t *testing.T) {
	db := shop(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := audit.Run(ctx, []audit.Item{item(0, `SELECT 1`, "", db)}, audit.Options{})
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Total != 1 {
		t.Fatalf("err %v report %+v", err, rep)
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var jsonMarshal = json.Marshal
