package report_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

// TestHTML_StatefulCase: a stateful case's page names each check and table that
// differs, with its rows added, removed and changed, the definitions and the cost.
func TestHTML_StatefulCase(t *testing.T) {
	r := fixture()
	r.Cases[0].Status = qeval.StatusFail
	r.Cases[0].Verdict = &qeval.Verdict{Outcome: qeval.OutcomeMismatch, State: &qeval.StateVerdict{
		Checks: []qeval.CheckOutcome{{Index: 2, Query: "SELECT count(*) FROM cheap", Error: "no such table: cheap"}},
		Tables: []qeval.TableDiff{{Table: "item", GoldRows: 4, PredRows: 4, Columns: []string{"id", "price"},
			Added: [][]qeval.Value{{qeval.Int(9), qeval.Float(1.5)}}, AddedCount: 1,
			Changed: []qeval.ChangedRow{{Gold: []qeval.Value{qeval.Int(4), qeval.Float(0.5)}, Pred: []qeval.Value{qeval.Int(4), qeval.Float(1)}}}, ChangedCount: 3},
			{Table: "sale", Equal: true}},
		Schema: []string{"table item: indexes ((name)) in the gold, (unique (name)) after the generated answer"},
		Cost:   &qeval.CostComparison{Unit: "vm_steps", Gold: 24, Pred: 98, MaxRatio: 1.5},
	}}
	out := string(write(t, report.HTML{}, r))
	for _, want := range []string{"State after both answers", "Check 2: SELECT count(*) FROM cheap", "no such table: cheap",
		"Table item (gold 4 rows, generated 4)", "1 added, 0 removed, 3 changed", "<td>added</td><td>9</td><td>1.5</td>",
		"<td>gold</td><td>4</td><td>0.5</td>", "<td>generated</td><td>4</td><td>1</td>", "and 2 more rows", "unique (name)", "98 vm_steps"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(out, "Table sale") {
		t.Error("a table that agrees is shown as a difference")
	}
}
