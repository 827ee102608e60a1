package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

// TestExecMatch_StatefulPairs: /api/exec-match takes pairs with setup, checks and
// compare_state, each answer in its own copy of the database, and says which table
// differs; the source database is unchanged and no copy is left.
func TestExecMatch_StatefulPairs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := mustDBRoot(t)
	ts := MustServer(t, func(c *server.Config) { c.DBRoot = root })
	all := qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}}
	pairs := []server.ExecMatchPair{
		{DB: "shop", Gold: "UPDATE item SET price = price * 2 WHERE id = 2", Pred: "UPDATE item SET price = 6.0 WHERE name = 'ink'", StatefulSpec: all},
		{DB: "shop", Gold: "UPDATE item SET price = price * 2 WHERE id = 2", Pred: "UPDATE item SET price = price * 2", StatefulSpec: all},
		{DB: "shop", Gold: "INSERT INTO item VALUES (5, 'cap', 1.0); DELETE FROM item WHERE id = 4", Pred: "DELETE FROM item WHERE id = 4",
			StatefulSpec: qeval.StatefulSpec{Setup: qeval.Statements{"CREATE TABLE log (n INTEGER)"}, Checks: qeval.Statements{"SELECT count(*) FROM item"}}},
		{DB: "shop", Gold: "DELETE FROM item", Pred: "DELETE FROM item", StatefulSpec: qeval.StatefulSpec{Efficiency: &qeval.Efficiency{MaxRatio: -1}}},
		{DB: "shop", Gold: "SELECT 1", Pred: "DELETE FROM item"}, // read-only pairs still refuse writes
	}
	res := execMatch(t, ts, pairs)
	want := []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeMismatch, qeval.OutcomeMismatch, qeval.OutcomeSkipped, qeval.OutcomePredError}
	for i, r := range res {
		if r.Outcome != want[i] {
			t.Errorf("pair %d: outcome %s, want %s (error %v)", i, r.Outcome, want[i], deref(r.Error))
		}
	}
	if st := res[1].State; st == nil || len(st.Tables) != 1 || st.Tables[0].Table != "item" || st.Tables[0].ChangedCount != 3 {
		t.Errorf("pair 1: state %+v, want table item with 3 rows changed", st)
	}
	if st := res[2].State; st == nil || len(st.Checks) != 1 || st.Checks[0].Equal {
		t.Errorf("pair 2: state %+v, want check 1 differing", st)
	}
	if !strings.Contains(deref(res[3].Error), "pairs[3].field efficiency.max_ratio") {
		t.Errorf("pair 3: error %q does not name the field", deref(res[3].Error))
	}
	again := execMatch(t, ts, pairs[:1]) // the source is as it was: the same pair matches again
	if again[0].Outcome != qeval.OutcomeMatch {
		t.Errorf("again: %s (%v)", again[0].Outcome, deref(again[0].Error))
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), qeval.SandboxPrefix) {
			t.Errorf("a copy is left: %s", e.Name())
		}
	}
}
