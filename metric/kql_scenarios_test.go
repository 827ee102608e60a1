package metric_test

import (
	"context"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/metric"
)

// The KQL scoring system's three worked scenarios (seed 001), scored from the query
// shapes and the rows each query returned, with no judge (the total is over the other
// three components, renormalised).
func TestKQLScenarios(t *testing.T) {
	expected := "Traces | where timestamp > ago(1h) | summarize count() by level"
	expectedRows := []map[string]any{{"level": "info", "count_": 120}, {"level": "error", "count_": 7}, {"level": "warning", "count_": 31}}
	for _, c := range []struct {
		name      string
		generated string
		rows      []map[string]any
		pass      bool
		min, max  float64
	}{
		{"perfect match", expected, expectedRows, true, 1, 1},
		{"1h vs 60m", "Traces | where timestamp > ago(60m) | summarize count() by level",
			[]map[string]any{{"level": "warning", "count_": 31}, {"count_": 120, "level": "info"}, {"level": "error", "count_": 7}}, true, 0.9, 1},
		{"wrong table, no by level", "AppTraces | where timestamp > ago(1h) | summarize count()",
			[]map[string]any{{"count_": 158}}, false, 0, 0.6},
	} {
		t.Run(c.name, func(t *testing.T) {
			gs, err := kql.ParseShape(c.generated)
			if err != nil {
				t.Fatal(err)
			}
			es, err := kql.ParseShape(expected)
			if err != nil {
				t.Fatal(err)
			}
			m := metric.Evaluate(context.Background(), metric.Case{Dialect: "kql", Generated: c.generated, Expected: expected,
				GeneratedShape: gs, ExpectedShape: es, GeneratedRows: c.rows, ExpectedRows: expectedRows}, metric.Options{})
			comp := metric.Combine(m, qeval.DefaultWeights())
			if comp.Total == nil {
				t.Fatalf("no total: %+v", m)
			}
			total := *comp.Total
			if total < c.min || total > c.max {
				t.Errorf("total %.3f, want in [%.2f, %.2f]; components %+v", total, c.min, c.max, comp.Components)
			}
			if pass := total >= qeval.DefaultThreshold; pass != c.pass {
				t.Errorf("pass = %v at %.3f, want %v", pass, total, c.pass)
			}
			if !comp.Partial || comp.Missing[0] != "llm_grading" {
				t.Errorf("without a judge the total is partial over the other components: %+v", comp)
			}
		})
	}
}
