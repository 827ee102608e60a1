package compare_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

func named(cols []string, rows ...[]qeval.Value) *qeval.ResultSet {
	r := &qeval.ResultSet{Rows: rows}
	for _, c := range cols {
		r.Columns = append(r.Columns, qeval.Column{Name: c})
	}
	return r
}

func TestExplain(t *testing.T) {
	I, T := qeval.Int, qeval.Text
	tests := []struct {
		name       string
		gold, pred *qeval.ResultSet
		ordered    bool
		want       []string // substrings of String()
		check      func(t *testing.T, e qeval.Explanation)
	}{
		{"Equal", named([]string{"a"}, []qeval.Value{I(1)}), named([]string{"a"}, []qeval.Value{I(1)}), false,
			[]string{"the results are equal"}, nil},
		{"MissingRow", named([]string{"name", "n"}, []qeval.Value{T("x"), I(1)}, []qeval.Value{T("y"), I(2)}),
			named([]string{"name", "n"}, []qeval.Value{T("x"), I(1)}), false,
			[]string{"gold 2 rows × 2 columns, prediction 1 rows × 2 columns", `missing 1 row(s), e.g. ("y", 2)`},
			func(t *testing.T, e qeval.Explanation) {
				if e.MissingCount != 1 || e.ExtraCount != 0 {
					t.Errorf("missing=%d extra=%d, want 1 0", e.MissingCount, e.ExtraCount)
				}
			}},
		{"SwappedColumnsOneValueDiffers", named([]string{"name", "n"}, []qeval.Value{T("x"), I(1)}, []qeval.Value{T("y"), I(2)}),
			named([]string{"n", "name"}, []qeval.Value{I(1), T("x")}, []qeval.Value{I(3), T("y")}), false,
			[]string{"no column mapping", `extra 1 row(s), e.g. ("y", 3)`, "first difference: row 2, column n: gold 2, prediction 3"}, nil},
		{"ColumnsMappedOtherOrder", named([]string{"a", "b"}, []qeval.Value{I(1), T("x")}),
			named([]string{"b", "a"}, []qeval.Value{T("x"), I(1)}, []qeval.Value{T("x"), I(1)}), false,
			[]string{"(in another column order)", `extra 1 row(s), e.g. (1, "x")`},
			func(t *testing.T, e qeval.Explanation) {
				if len(e.Mapping) != 2 || e.Mapping[0] != 1 || e.Mapping[1] != 0 {
					t.Errorf("Mapping=%v, want [1 0]", e.Mapping)
				}
			}},
		{"MappedInAnotherOrder", named([]string{"a", "b"}, []qeval.Value{I(1), T("x")}, []qeval.Value{I(2), T("y")}),
			named([]string{"b", "a"}, []qeval.Value{T("x"), I(2)}, []qeval.Value{T("y"), I(1)}), false,
			[]string{"every gold column has a predicted column with the same set of values (in another column order)",
				`missing 2 row(s), e.g. (1, "x") (2, "y")`, `extra 2 row(s), e.g. (2, "x") (1, "y")`}, nil},
		{"OrderDiffers", named([]string{"a"}, []qeval.Value{I(1)}, []qeval.Value{I(2)}),
			named([]string{"a"}, []qeval.Value{I(2)}, []qeval.Value{I(1)}), true,
			[]string{"same rows in another order", "first difference: row 1, column a: gold 1, prediction 2"}, nil},
		{"WidthDiffers", named([]string{"a"}, []qeval.Value{I(1)}),
			named([]string{"a", "b"}, []qeval.Value{I(1), I(5)}), false,
			[]string{"gold 1 rows × 1 columns, prediction 1 rows × 2 columns"}, nil},
		{"NilPrediction", named([]string{"a"}, []qeval.Value{I(1)}), nil, false,
			[]string{"prediction 0 rows × 0 columns"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := compare.Explain(compare.SpiderTS, tt.gold, tt.pred, tt.ordered)
			s := e.String()
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("Explain(...).String()=%q, want it to contain %q", s, w)
				}
			}
			if tt.check != nil {
				tt.check(t, e)
			}
		})
	}
}

// FuzzExplain: Explain never panics, agrees with the mode on equality, and counts no
// missing or extra rows for a result compared with itself.
func FuzzExplain(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b, order, perm := fuzzResults(data)
		for _, m := range []compare.Mode{compare.SpiderTS, compare.Bag} {
			e := compare.Explain(m, rs(a), rs(b), order)
			_ = e.String()
			if e.Equal != m.Equal(rs(a), rs(b), order) {
				t.Fatalf("%s: Explain.Equal=%v, mode says otherwise\n a=%v\n b=%v", m.ID(), e.Equal, a, b)
			}
			if e.MissingCount < len(e.Missing) || e.ExtraCount < len(e.Extra) {
				t.Fatalf("counts below the rows listed: %+v", e)
			}
			self := compare.Explain(m, rs(a), rs(permuteCols(a, perm)), false)
			if len(a) > 0 && (self.MissingCount != 0 || self.ExtraCount != 0) {
				t.Fatalf("a against itself with columns %v: missing %d extra %d\n a=%v", perm, self.MissingCount, self.ExtraCount, a)
			}
		}
	})
}
