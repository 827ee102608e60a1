package metric_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func TestResultsMatch_Rows(t *testing.T) {
	exp := []map[string]any{{"Name": "Alice", "Age": 30}, {"name": "Bob", "age": 25.0}}
	tests := []struct {
		name string
		gen  []map[string]any
		want float64
	}{
		{"Same", []map[string]any{{"name": "Alice", "age": 30}, {"name": "Bob", "age": 25}}, 1},
		{"RowOrder", []map[string]any{{"name": "Bob", "age": 25}, {"name": "Alice", "age": 30}}, 1},
		{"KeyCase", []map[string]any{{"AGE": 30, "NAME": "Alice"}, {"Age": int64(25), "nAme": "Bob"}}, 1},
		// values are exact strings, as the seed says: text is not folded, 30.0 text is not 30
		{"ValuesExact", []map[string]any{{"AGE": "30.0", "NAME": " alice "}, {"age": int64(25), "name": "BOB"}}, 0},
		{"ExtraField", []map[string]any{{"name": "Alice", "age": 30, "city": "Oslo"}}, 0.5},
		{"MissingField", []map[string]any{{"name": "Alice"}, {"name": "Bob"}}, 0},
		{"WrongValue", []map[string]any{{"name": "Alice", "age": 31}, {"name": "Bob", "age": 25}}, 0.5},
		{"Empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := metric.ResultsMatch(tt.gen, exp, 0)
			if !near(*r.Score, tt.want) {
				t.Errorf("ResultsMatch(%v)=%v, want %v (%v)", tt.gen, *r.Score, tt.want, r.Details)
			}
		})
	}
}

// The lenient rule is an explicit option: results_match once lower-cased values, took
// NULL for "null" and rounded floats without saying so.
func TestResultsMatch_Lenient(t *testing.T) {
	exp := []map[string]any{{"Name": "Alice", "Age": 30}, {"name": "Bob", "age": 25.0}}
	gen := []map[string]any{{"AGE": "30.0", "NAME": " alice "}, {"age": int64(25), "name": "BOB"}}
	if r := metric.ResultsMatchLenient(gen, exp, 0); !near(*r.Score, 1) || r.Details["values"] != "lenient" {
		t.Errorf("lenient: %v %v", *r.Score, r.Details)
	}
	nulls := []map[string]any{{"a": nil}}
	if r := metric.ResultsMatch([]map[string]any{{"a": "null"}}, nulls, 0); *r.Score != 0 {
		t.Errorf("the text null matched NULL: %v", *r.Score)
	}
	if r := metric.ResultsMatch([]map[string]any{{"a": 1.5}}, []map[string]any{{"a": 1.5000001}}, 0); *r.Score != 0 {
		t.Errorf("floats were rounded: %v", *r.Score)
	}
}

func TestResultsMatch_Duplicates(t *testing.T) {
	// Each generated row matches one expected row: two expected copies need two.
	exp := []map[string]any{{"a": 1}, {"a": 1}}
	if r := metric.ResultsMatch([]map[string]any{{"a": 1}}, exp, 0); !near(*r.Score, 0.5) {
		t.Errorf("one copy for two: %v, want 0.5", *r.Score)
	}
	if r := metric.ResultsMatch(nil, nil, 0); *r.Score != 1 {
		t.Errorf("both empty: %v, want 1", *r.Score)
	}
	if r := metric.ResultsMatch([]map[string]any{{"a": 1}}, nil, 0); *r.Score != 0 {
		t.Errorf("nothing expected, something generated: %v, want 0", *r.Score)
	}
}

func TestResultsMatch_MaxRows(t *testing.T) {
	var exp, gen []map[string]any
	for i := range 150 {
		exp = append(exp, map[string]any{"i": i})
		if i < 100 {
			gen = append(gen, map[string]any{"i": i})
		}
	}
	r := metric.ResultsMatch(gen, exp, 0) // first 100 of each
	if *r.Score != 1 || r.Details["truncated"] != true || r.Details["expected_rows"] != 100 {
		t.Errorf("default cap: %v %v, want 1 over 100 rows, truncated", *r.Score, r.Details)
	}
	if r := metric.ResultsMatch(gen, exp, -1); !near(*r.Score, 100.0/150) {
		t.Errorf("no cap: %v, want 100/150", *r.Score)
	}
	if r := metric.ResultsMatch(gen, exp, 10); *r.Score != 1 || r.Details["expected_rows"] != 10 {
		t.Errorf("cap 10: %v %v", *r.Score, r.Details)
	}
}

func TestResultSetsMatch(t *testing.T) {
	exp := &qeval.ResultSet{
		Columns: []qeval.Column{{Name: "name"}, {Name: "n"}},
		Rows:    [][]qeval.Value{{qeval.Text("a"), qeval.Int(1)}, {qeval.Text("b"), qeval.Null}},
	}
	gen := &qeval.ResultSet{
		Columns: []qeval.Column{{Name: "N"}, {Name: "Name"}},
		Rows:    [][]qeval.Value{{qeval.Null, qeval.Text("B")}, {qeval.Float(1.0), qeval.Text("a")}},
	}
	if r := metric.ResultSetsMatchLenient(gen, exp, 0); *r.Score != 1 {
		t.Errorf("ResultSetsMatchLenient=%v, want 1 (%v)", *r.Score, r.Details)
	}
	// exact strings: "B" is not "b", and the float 1.0 is not the integer 1
	if r := metric.ResultSetsMatch(gen, exp, 0); *r.Score != 0 {
		t.Errorf("ResultSetsMatch=%v, want 0 (%v)", *r.Score, r.Details)
	}
	gen = &qeval.ResultSet{Columns: gen.Columns, Rows: [][]qeval.Value{{qeval.Null, qeval.Text("b")}, {qeval.Int(1), qeval.Text("a")}}}
	if r := metric.ResultSetsMatch(gen, exp, 0); *r.Score != 1 {
		t.Errorf("ResultSetsMatch=%v, want 1 (%v)", *r.Score, r.Details)
	}
	dup := &qeval.ResultSet{Columns: []qeval.Column{{Name: "x"}, {Name: "x"}}, Rows: [][]qeval.Value{{qeval.Int(1), qeval.Int(2)}}}
	swapped := &qeval.ResultSet{Columns: []qeval.Column{{Name: "x"}, {Name: "x"}}, Rows: [][]qeval.Value{{qeval.Int(2), qeval.Int(1)}}}
	if r := metric.ResultSetsMatch(swapped, dup, 0); *r.Score != 0 {
		t.Errorf("repeated column names are told apart by position: %v, want 0", *r.Score)
	}
	// Through a case: the results come from the execution verdict.
	r := evalOne(t, metric.NameResultsMatch, metric.Case{Execution: &qeval.Verdict{Gold: exp, Pred: gen, Outcome: qeval.OutcomeMatch}})
	if r.Score == nil || *r.Score != 1 {
		t.Errorf("from verdict: %+v", r)
	}
	if r := evalOne(t, metric.NameResultsMatch, metric.Case{Generated: "SELECT 1"}); r.Skipped == nil {
		t.Errorf("no results: %+v, want skipped", r)
	}
}

func TestSchemaMatch(t *testing.T) {
	tests := []struct {
		name     string
		gen, exp []string
		want     float64
	}{
		{"Same", []string{"id", "name"}, []string{"id", "name"}, 1},
		{"ExtraIgnored", []string{"id", "name", "age"}, []string{"id", "name"}, 1},
		{"OneMissing", []string{"id"}, []string{"id", "name"}, 0.5},
		{"Case", []string{"ID", "Name"}, []string{"id", "name"}, 1},
		{"Qualified", []string{"T1.name"}, []string{"name"}, 1},
		{"Expression", []string{"COUNT( * )"}, []string{"count(*)"}, 1},
		{"NoneExpected", []string{"a"}, nil, 1},
		{"NoneGenerated", nil, []string{"a", "b", "c"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := metric.SchemaMatch(tt.gen, tt.exp); !near(*r.Score, tt.want) {
				t.Errorf("SchemaMatch(%v, %v)=%v, want %v", tt.gen, tt.exp, *r.Score, tt.want)
			}
		})
	}
	exp := &qeval.ResultSet{Columns: []qeval.Column{{Name: "a"}, {Name: "b"}}}
	gen := &qeval.ResultSet{Columns: []qeval.Column{{Name: "B"}}}
	r := evalOne(t, metric.NameSchemaMatch, metric.Case{GeneratedResult: gen, ExpectedResult: exp})
	if r.Score == nil || *r.Score != 0.5 || r.Details["source"] != "results" {
		t.Errorf("schema_match from results: %+v", r)
	}
}
