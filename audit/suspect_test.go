package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/sqlite"
)

// TestRun_SuspectGold: on a counterexample database, two systems return the same rows
// and the gold other ones, so the gold is suspect_gold with that database as evidence;
// a third system siding with the gold is counted; one system alone against the gold
// is not enough, nor two against three that side with the gold.
func TestRun_SuspectGold(t *testing.T) {
	db := shop(t)
	cex := filepath.Join(t.TempDir(), "0.sqlite")
	d, err := sql.Open("sqlite3", cex)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, code)`,
		`INSERT INTO item VALUES (1, 'apple', 3.0, 10, 7), (2, 'kiwi', 2.0, 0, 1)`,
	} {
		if _, err := d.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	// the question asks for items in stock: the gold forgets qty = 0
	gold := `SELECT name FROM item WHERE qty >= 0`
	agree := []string{`SELECT name FROM item WHERE qty > 0`, `SELECT name FROM item WHERE qty >= 1`, gold}
	for _, c := range []struct {
		name  string
		preds []string
		want  bool
	}{{"TwoAgree", agree, true}, {"OneAlone", []string{agree[0], gold}, false},
		{"GoldMajority", []string{agree[0], agree[1], gold, gold, "SELECT name FROM item WHERE qty >= 0 OR qty IS NULL"}, false}} {
		t.Run(c.name, func(t *testing.T) {
			it := item(0, gold, "", db)
			it.Preds, it.Counterexamples = c.preds, []string{cex}
			rep, err := audit.Run(context.Background(), []audit.Item{it}, audit.Options{OpenCounterexample: sqlite.OfficialOpener})
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Items[0]
			if f.Has(audit.SuspectGold) != c.want {
				t.Fatalf("suspect_gold %v, want %v (flags %v)", f.Has(audit.SuspectGold), c.want, f.Flags)
			}
			if !c.want {
				return
			}
			b, _ := jsonOf(f.Evidence[audit.SuspectGold])
			want := `{"databases":[{"database":"` + cex + `","systems":[0,1],"with_gold":1,"gold":[["apple"],["kiwi"]],"agreed":[["apple"]]}]}`
			if b != want {
				t.Errorf("evidence %s\nwant     %s", b, want)
			}
		})
	}
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
