package compare_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

func TestSoftF1(t *testing.T) {
	rs := func(rows ...[]qeval.Value) *qeval.ResultSet { return &qeval.ResultSet{Rows: rows} }
	r := func(vs ...qeval.Value) []qeval.Value { return vs }
	i, f, s := qeval.Int, qeval.Float, qeval.Text
	for _, c := range []struct {
		name       string
		gold, pred *qeval.ResultSet
		want       float64
	}{
		{"BothEmpty", rs(), rs(), 1},
		{"GoldEmpty", rs(), rs(r(i(1))), 0},
		{"PredEmpty", rs(r(i(1))), rs(), 0},
		{"Identical", rs(r(i(1), s("a")), r(i(2), s("b"))), rs(r(i(1), s("a")), r(i(2), s("b"))), 1},
		// 1 == 1.0 as in Python; "1" is not 1
		{"IntEqualsFloat", rs(r(i(1))), rs(r(f(1.0))), 1},
		{"TextIsNotNumber", rs(r(i(1))), rs(r(s("1"))), 0},
		// rows pair by position: the same rows in another order share nothing
		{"RowsSwapped", rs(r(i(1)), r(i(2))), rs(r(i(2)), r(i(1))), 0},
		// duplicates go first: pred (1),(1),(2) becomes (1),(2)
		{"DuplicatesDropped", rs(r(i(1)), r(i(2))), rs(r(i(1)), r(i(1)), r(i(2))), 1},
		// one of two columns right: tp 0.5, fp 0.5, fn 0.5 → p = r = 0.5
		{"HalfRow", rs(r(i(1), i(2))), rs(r(i(1), i(3))), 0.5},
		// an extra predicted row: tp 1, fp 1, fn 0 → p 1/2, r 1 → 2/3
		{"ExtraPredRow", rs(r(i(1))), rs(r(i(1)), r(i(2))), 2.0 / 3},
		// a wider predicted row counts its extra value against precision, measured in
		// gold columns: tp 1, fp 1 → 2/3
		{"WiderPredRow", rs(r(i(1))), rs(r(i(1), i(9))), 2.0 / 3},
		// membership, not position, inside a row
		{"ColumnsSwapped", rs(r(i(1), s("a"))), rs(r(s("a"), i(1))), 1},
		{"NullEqualsNull", rs(r(qeval.Null)), rs(r(qeval.Null)), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compare.SoftF1(c.gold, c.pred); got != c.want {
				t.Errorf("SoftF1 = %v, want %v", got, c.want)
			}
		})
	}
}
