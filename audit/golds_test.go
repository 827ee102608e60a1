package audit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/sqlite"
)

// oneDB resolves every name to one SQLite file.
type oneDB string

func (db oneDB) Resolve(_ context.Context, name, _ string) (*qeval.Source, error) {
	return &qeval.Source{Name: name, Engine: "sqlite", Files: []string{string(db)}, Open: sqlite.Opener}, nil
}

// Every gold of a case with several is audited, each named by its number; the golds
// of one case are not duplicates of each other; a case is set aside when one of its
// golds carries an excluded flag (issue 38).
func TestSuite_SeveralGolds(t *testing.T) {
	db := shop(t)
	suite := func() *qeval.Suite {
		return &qeval.Suite{Name: "g", Path: "g.yaml", Database: "shop", Cases: []qeval.Case{
			{ID: "a", Line: 3, Question: "how many items?", ExpectedQuery: "SELECT count(*) FROM item",
				OtherGolds: []string{"SELECT nosuch FROM item"}},
			{ID: "b", Line: 7, Question: "names?", ExpectedQuery: "SELECT name FROM item ORDER BY name",
				OtherGolds: []string{"SELECT name FROM item ORDER BY id"}},
		}}
	}
	items := audit.SuiteItems(context.Background(), suite(), oneDB(db), "g.yaml")
	if len(items) != 4 || items[1].Ref != `g.yaml:3 (case "a", gold 2)` || items[1].GoldNumber != 2 || items[1].Index != 0 {
		t.Fatalf("items = %+v", items)
	}

	s := suite()
	ga, err := audit.Suite(context.Background(), s, oneDB(db), nil, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ga.Total != 4 || len(ga.Cases) != 1 {
		t.Fatalf("audit = %+v, want 4 golds audited and one flagged", ga)
	}
	if c := ga.Cases[0]; c.ID != "a" || c.Gold != 2 || strings.Join(c.Flags, ",") != audit.GoldFails || c.Excluded {
		t.Errorf("flagged = %+v, want case a gold 2 gold_fails", c)
	}
	if len(s.Cases) != 2 {
		t.Errorf("%d cases kept without exclusions", len(s.Cases))
	}

	s = suite()
	ga, err = audit.Suite(context.Background(), s, oneDB(db), []string{audit.GoldFails}, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ga.Excluded != 1 || len(s.Cases) != 1 || s.Cases[0].ID != "b" || !ga.Cases[0].Excluded {
		t.Errorf("excluding gold_fails: %+v, kept %d cases", ga, len(s.Cases))
	}
}
