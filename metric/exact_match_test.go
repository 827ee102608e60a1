package metric_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

var singerSchema = &qeval.Schema{Tables: []qeval.TableSchema{{Name: "singer",
	Columns: []qeval.Column{{Name: "singer_id"}, {Name: "name"}, {Name: "age"}, {Name: "country"}}}}}

func exactOf(t *testing.T, c metric.Case) qeval.MetricResult {
	t.Helper()
	ms, _ := metric.Lookup("execution_match")
	got := metric.Evaluate(context.Background(), c, metric.Options{Metrics: append(ms, metric.Benchmark...)})
	return got[metric.NameExactMatch]
}

// TestExactMatch: the official rules through a run's metrics: values masked, clause
// order free; another column or a dropped clause is not a match; a generated query the
// parser cannot read scores 0 with the reason; no schema or another dialect skips.
func TestExactMatch(t *testing.T) {
	base := metric.Case{Dialect: "sqlite", Schema: singerSchema, Expected: "SELECT name FROM singer WHERE age > 30 AND country = 'France'"}
	for _, tt := range []struct {
		gen  string
		want float64
	}{
		{"SELECT name FROM singer WHERE country = 'Spain' AND age > 45", 1}, // values masked, and-set
		{"select NAME from SINGER where AGE > 1 and COUNTRY = 'x'", 1},
		{"SELECT singer_id FROM singer WHERE age > 30 AND country = 'France'", 0},
		{"SELECT name FROM singer WHERE age > 30", 0},
		{"SELECT name FROM nosuch", 0},
	} {
		c := base
		c.Generated = tt.gen
		r := exactOf(t, c)
		if r.Score == nil || *r.Score != tt.want {
			t.Errorf("%s: %+v, want %v", tt.gen, r, tt.want)
			continue
		}
		if r.Details["hardness"] != "medium" {
			t.Errorf("%s: hardness %v, want medium", tt.gen, r.Details["hardness"])
		}
	}
	c := base
	c.Generated = "SELECT name FROM nosuch"
	if r := exactOf(t, c); r.Details["parse_error"] == nil {
		t.Errorf("unreadable prediction: details %v, want its parse error", r.Details)
	}
	c.Schema = nil
	if r := exactOf(t, c); r.Skipped == nil || !strings.Contains(*r.Skipped, "schema") {
		t.Errorf("no schema: %+v", r)
	}
	c.Schema, c.Dialect = singerSchema, "postgres"
	if r := exactOf(t, c); r.Skipped == nil || !strings.Contains(*r.Skipped, "postgres") {
		t.Errorf("postgres: %+v", r)
	}
}
