package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/suite"
)

// A case with several golds matches if any of them does; its metrics are computed
// against the gold that matched, else the first, and the result says which matched
// (issue 38).
func TestRun_SeveralGolds(t *testing.T) {
	db := salesDB(t)
	dir := t.TempDir()
	lines := fmt.Sprintf(`{"id": "second", "database": %[1]q, "expected_query": ["SELECT count(*) FROM returns", "SELECT count(*) FROM sales"], "generated_query": "SELECT count(*) FROM sales"}
{"id": "first", "database": %[1]q, "expected_query": ["SELECT sum(amount) FROM returns", "SELECT count(*) FROM sales"], "generated_query": "SELECT sum(amount) FROM returns"}
{"id": "none", "database": %[1]q, "expected_query": ["SELECT count(*) FROM returns", "SELECT count(*) FROM sales"], "generated_query": "SELECT 42"}
{"id": "pred_error", "database": %[1]q, "expected_query": ["SELECT count(*) FROM returns", "SELECT count(*) FROM sales"], "generated_query": "SELEC 5"}
{"id": "single", "database": %[1]q, "expected_query": "SELECT count(*) FROM sales", "generated_query": "SELECT count(*) FROM sales"}
`, db)
	path := filepath.Join(dir, "golds.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load(path, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]qeval.CaseResult{}
	for _, c := range rep.Cases {
		byID[c.ID] = c
	}
	golds := []string{"SELECT count(*) FROM returns", "SELECT count(*) FROM sales"}
	for _, tc := range []struct {
		id, status string
		matched    int
		expected   string
		outcome    qeval.Outcome
		golds      []string
	}{
		{"second", qeval.StatusPass, 2, "SELECT count(*) FROM sales", qeval.OutcomeMatch, golds},
		{"first", qeval.StatusPass, 1, "SELECT sum(amount) FROM returns", qeval.OutcomeMatch, []string{"SELECT sum(amount) FROM returns", "SELECT count(*) FROM sales"}},
		{"none", qeval.StatusFail, 0, "SELECT count(*) FROM returns", qeval.OutcomeMismatch, golds},
		{"pred_error", qeval.StatusFail, 0, "SELECT count(*) FROM returns", qeval.OutcomePredError, golds},
		{"single", qeval.StatusPass, 0, "SELECT count(*) FROM sales", qeval.OutcomeMatch, nil},
	} {
		c, ok := byID[tc.id]
		if !ok {
			t.Fatalf("no case %s", tc.id)
		}
		if c.Status != tc.status || c.MatchedGold != tc.matched || c.ExpectedQuery != tc.expected || !slices.Equal(c.ExpectedQueries, tc.golds) {
			t.Errorf("case %s: status %s (%s), matched gold %d, expected_query %q, golds %q; want %s, %d, %q, %q",
				tc.id, c.Status, c.Reason, c.MatchedGold, c.ExpectedQuery, c.ExpectedQueries, tc.status, tc.matched, tc.expected, tc.golds)
		}
		if c.Verdict == nil || c.Verdict.Outcome != tc.outcome {
			t.Errorf("case %s: verdict %+v, want %s", tc.id, c.Verdict, tc.outcome)
		}
	}
	// the metrics are the matched gold's: against the first gold (returns) the tables
	// and results would differ
	if sc := byID["second"].TotalScore; sc == nil || *sc < 0.99 {
		t.Errorf("case second: total %v, want 1 (scored against the gold that matched)", sc)
	}
	if r := byID["second"].Metrics["results_match"]; r.Score == nil || *r.Score != 1 {
		t.Errorf("case second: results_match %+v, want 1", r)
	}
	if r := byID["none"].Metrics["schema_match"]; r.Score == nil {
		t.Errorf("case none: schema_match %+v, want a score against the first gold", r)
	}
}

// The golds of a case run in order and stop at the first match: a gold after it is
// never run (a broken one does not turn the case into an error).
func TestRun_SeveralGoldsStopAtMatch(t *testing.T) {
	db := salesDB(t)
	q := "SELECT count(*) FROM sales"
	s := &qeval.Suite{Name: "g", Database: db, Cases: []qeval.Case{
		{ID: "a", ExpectedQuery: q, OtherGolds: []string{"SELECT nope FROM nowhere"}, GeneratedQuery: &q},
		{ID: "b", ExpectedQuery: "SELECT nope FROM nowhere", OtherGolds: []string{q}, GeneratedQuery: &q},
	}}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a": 1, "b": 2}
	for _, c := range rep.Cases {
		if c.Status != qeval.StatusPass || c.MatchedGold != want[c.ID] {
			t.Errorf("case %s: %s (%s), matched gold %d, want PASS, %d", c.ID, c.Status, c.Reason, c.MatchedGold, want[c.ID])
		}
	}
}
