package stateful_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/suite"
)

// TestCriticFileRuns: a file in BIRD-Critic's and LiveSQLBench's shape runs as a
// stateful suite on the database its tasks name (a --db name).
func TestCriticFileRuns(t *testing.T) {
	db := shopDB(t)
	file := filepath.Join(t.TempDir(), "tasks.jsonl")
	writeFile(t, file, `{"instance_id": 1, "db_id": "shop", "query": "Double the price of pens.", "issue_sql": ["UPDATE item SET price = price * 2 WHERE name = 'Pen'"], "sol_sql": ["UPDATE item SET price = price * 2 WHERE lower(name) = 'pen'"], "preprocess_sql": ["CREATE TABLE audit (n INTEGER)"], "clean_up_sql": ["DROP TABLE audit"], "test_cases": ["def test_case(pred_sqls, sol_sqls, db_name, conn):\n    assert True"]}
{"instance_id": "shop_2", "selected_database": "shop", "query": "Remove the items without stock.", "sol_sql": ["DELETE FROM item WHERE stock = 0"], "preprocess_sql": [], "clean_up_sqls": [], "test_cases": ["SELECT name FROM item ORDER BY name"]}
{"instance_id": "shop_3", "selected_database": "shop", "query": "Remove the items without stock.", "sol_sql": ["DELETE FROM item WHERE stock = 0"], "preprocess_sql": [], "clean_up_sqls": [], "test_cases": []}
`)
	s, err := suite.Load(file, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	preds := []string{"UPDATE item SET price = 2 * price WHERE name = 'pen'", "DELETE FROM item WHERE stock < 1", "DELETE FROM item WHERE stock < 5"}
	for i := range s.Cases {
		s.Cases[i].GeneratedQuery = &preds[i]
	}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: &registry.Catalog{Connections: map[string]string{"shop": db}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeMatch, qeval.OutcomeMismatch}
	for i, c := range rep.Cases {
		if c.Verdict == nil || c.Verdict.Outcome != want[i] {
			t.Errorf("task %s: %+v (%s), want %s", c.ID, c.Verdict, c.Reason, want[i])
		}
	}
}

func writeFile(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}
