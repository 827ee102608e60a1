package metric_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func cols(names ...string) []qeval.Column {
	out := make([]qeval.Column, len(names))
	for i, n := range names {
		out[i] = qeval.Column{Name: n}
	}
	return out
}

// schema_match and results_match line a generated column up with an expected one by its
// values when their names differ: a right answer under another name scores 1; a wrong
// one under the right name still scores by its values; a column missing by value stays
// missing; extra generated columns are free.
func TestColumnAlignment(t *testing.T) {
	i := qeval.Int
	tests := []struct {
		name           string
		gen, exp       *qeval.ResultSet
		schema, result float64
		rule           string
		mapping        map[string]string
	}{
		{"CountUnderAnotherName",
			&qeval.ResultSet{Columns: cols("count(TrackId)"), Rows: [][]qeval.Value{{i(3503)}}},
			&qeval.ResultSet{Columns: cols("count(*)"), Rows: [][]qeval.Value{{i(3503)}}},
			1, 1, "value", map[string]string{"count(*)": "count(TrackId)"}},
		{"RightNameWrongValue",
			&qeval.ResultSet{Columns: cols("count(*)"), Rows: [][]qeval.Value{{i(3493)}}},
			&qeval.ResultSet{Columns: cols("count(*)"), Rows: [][]qeval.Value{{i(3503)}}},
			1, 0, "name", nil},
		{"OtherNameWrongValue",
			&qeval.ResultSet{Columns: cols("n"), Rows: [][]qeval.Value{{i(3493)}}},
			&qeval.ResultSet{Columns: cols("count(*)"), Rows: [][]qeval.Value{{i(3503)}}},
			0, 0, "name", nil},
		{"OneByNameOneByValueExtraFree",
			&qeval.ResultSet{Columns: cols("extra", "singer_count", "name"), Rows: [][]qeval.Value{{i(9), i(2), qeval.Text("a")}, {i(9), i(5), qeval.Text("b")}}},
			&qeval.ResultSet{Columns: cols("name", "count(*)"), Rows: [][]qeval.Value{{qeval.Text("b"), i(5)}, {qeval.Text("a"), i(2)}}},
			1, 1, "value", map[string]string{"count(*)": "singer_count"}},
		{"MissingByValue",
			&qeval.ResultSet{Columns: cols("name", "total"), Rows: [][]qeval.Value{{qeval.Text("a"), i(7)}}},
			&qeval.ResultSet{Columns: cols("name", "count(*)"), Rows: [][]qeval.Value{{qeval.Text("a"), i(2)}}},
			0.5, 0, "name", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := metric.Case{GeneratedResult: tt.gen, ExpectedResult: tt.exp}
			s, r := evalOne(t, metric.NameSchemaMatch, c), evalOne(t, metric.NameResultsMatch, c)
			if s.Score == nil || !near(*s.Score, tt.schema) || r.Score == nil || !near(*r.Score, tt.result) {
				t.Fatalf("schema_match %+v, results_match %+v; want %v and %v", s, r, tt.schema, tt.result)
			}
			for _, d := range []map[string]any{s.Details, r.Details} {
				if d["column_alignment"] != tt.rule {
					t.Errorf("column_alignment %v, want %s", d["column_alignment"], tt.rule)
				}
				m, _ := d["column_mapping"].(map[string]string)
				if len(m) != len(tt.mapping) {
					t.Errorf("column_mapping %v, want %v", d["column_mapping"], tt.mapping)
				}
				for k, v := range tt.mapping {
					if m[k] != v {
						t.Errorf("column_mapping[%s] = %q, want %q", k, m[k], v)
					}
				}
			}
		})
	}
}
