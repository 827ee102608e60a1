package metric_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/sqlparse"
)

func TestSemanticSimilarity(t *testing.T) {
	sqlShape := &qeval.Shape{
		Tables:     []string{"StormEvents"},
		Filters:    []qeval.Filter{{Clause: "where", Column: "State", Operator: "=", Value: "'TEXAS'"}},
		Aggregates: []qeval.Aggregate{{Func: "COUNT", Arg: "*"}},
	}
	tests := []struct {
		name string
		gen  *qeval.Shape
		want float64
	}{
		{"Identical", sqlShape, 1},
		// KQL spelling of the same query: == and "..." and count().
		{"KQLSpelling", &qeval.Shape{
			Tables:     []string{"stormevents"},
			Filters:    []qeval.Filter{{Clause: "where", Column: "State", Operator: "==", Value: `"texas"`}},
			Aggregates: []qeval.Aggregate{{Func: "count", Arg: ""}},
		}, 1},
		// Right column, wrong value: filters ½·1 + ½·0; the rest agrees.
		{"WrongValue", &qeval.Shape{
			Tables:     []string{"StormEvents"},
			Filters:    []qeval.Filter{{Clause: "where", Column: "State", Operator: "=", Value: "'OHIO'"}},
			Aggregates: []qeval.Aggregate{{Func: "count", Arg: "*"}},
		}, 0.4 + 0.3*0.5 + 0.3},
		// No filter and another aggregate over another argument: filters 0, aggs ½·1 + ½·0.
		{"NoFilterOtherArg", &qeval.Shape{
			Tables:     []string{"StormEvents"},
			Aggregates: []qeval.Aggregate{{Func: "count", Arg: "State"}},
		}, 0.4 + 0 + 0.3*0.5},
		// Another table, and a join filter that is left out: tables 0, filters 0, aggs 0.
		{"Different", &qeval.Shape{
			Tables:     []string{"Population"},
			Filters:    []qeval.Filter{{Clause: "join", Column: "a.x", Operator: "=", Value: ""}},
			Aggregates: []qeval.Aggregate{{Func: "avg", Arg: "x"}},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := metric.SemanticSimilarity(tt.gen, sqlShape)
			if !near(*r.Score, tt.want) {
				t.Errorf("SemanticSimilarity=%v, want %v (%v)", *r.Score, tt.want, r.Details)
			}
		})
	}
}

func TestSemanticSimilarity_AbsentParts(t *testing.T) {
	a := &qeval.Shape{Tables: []string{"t"}}
	r := metric.SemanticSimilarity(a, &qeval.Shape{Tables: []string{"T"}})
	if *r.Score != 1 || r.Details["filters"] != 1.0 || r.Details["aggregations"] != 1.0 {
		t.Errorf("no filters or aggregates in either: %v %v, want 1", *r.Score, r.Details)
	}
	// count(DISTINCT x) is dcount(x); mean is avg.
	g := &qeval.Shape{Aggregates: []qeval.Aggregate{{Func: "dcount", Arg: "x"}, {Func: "avg", Arg: "y"}}}
	e := &qeval.Shape{Aggregates: []qeval.Aggregate{{Func: "COUNT", Arg: "DISTINCT x"}, {Func: "mean", Arg: "T1.y"}}}
	if r := metric.SemanticSimilarity(g, e); *r.Score != 1 {
		t.Errorf("aggregate spellings: %v (%v), want 1", *r.Score, r.Details)
	}
}

func TestSemanticSimilarity_Case(t *testing.T) {
	r := evalOne(t, metric.NameSemanticSimilarity, metric.Case{
		GeneratedShape: &qeval.Shape{Tables: []string{"a"}},
		ExpectedShape:  &qeval.Shape{Tables: []string{"a", "b"}},
	})
	if r.Score == nil || !near(*r.Score, 0.4*0.5+0.6) {
		t.Errorf("semantic_similarity=%+v, want %v", r, 0.4*0.5+0.6)
	}
}

// Grouping counts, count_distinct is dcount, and true is 1: KQL and SQL spellings of
// the same query are alike.
func TestSemanticSimilarity_GroupingAndSpellings(t *testing.T) {
	shape := func(q string) *qeval.Shape {
		s, err := kql.ParseShape(q)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	grouped := metric.SemanticSimilarity(shape("Logs | summarize count() by level"), shape("Logs | summarize count() by level"))
	ungrouped := metric.SemanticSimilarity(shape("Logs | summarize count()"), shape("Logs | summarize count() by level"))
	if *grouped.Score != 1 || ungrouped.Details["aggregations"].(float64) >= 1 {
		t.Errorf("grouped %v, missing grouping aggregations %v: a missing grouping must cost", *grouped.Score, ungrouped.Details["aggregations"])
	}
	d := metric.SemanticSimilarity(shape("T | summarize count_distinct(user)"), shape("T | summarize dcount(user)"))
	if d.Details["aggregations"].(float64) != 1 {
		t.Errorf("count_distinct vs dcount: %v", d.Details)
	}
	sqlShape := func(q string) *qeval.Shape {
		s, err := sqlparse.Parse("sqlite", q)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	b := metric.SemanticSimilarity(sqlShape("SELECT * FROM users WHERE active = true"), sqlShape("SELECT * FROM users WHERE active = 1"))
	if b.Details["filters"].(float64) != 1 {
		t.Errorf("active = true vs active = 1: filters %v", b.Details["filters"])
	}
}
