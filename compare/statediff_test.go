package compare_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

func table(cols []string, rows ...[]qeval.Value) *qeval.ResultSet {
	rs := &qeval.ResultSet{Rows: rows}
	for _, c := range cols {
		rs.Columns = append(rs.Columns, qeval.Column{Name: c})
	}
	return rs
}

func TestDiffTable(t *testing.T) {
	i, f, s := qeval.Int, qeval.Float, qeval.Text
	cols := []string{"id", "name", "price"}
	gold := table(cols, []qeval.Value{i(1), s("pen"), f(1.5)}, []qeval.Value{i(2), s("ink"), f(8)}, []qeval.Value{i(3), s("pad"), f(2.5)})
	cases := []struct {
		name                    string
		pred                    *qeval.ResultSet
		key                     []int
		ordered                 bool
		equal                   bool
		added, removed, changed int
		otherOrder              bool
	}{
		{"same rows, another order, as bags", table(cols, gold.Rows[2], gold.Rows[0], gold.Rows[1]), []int{0}, false, true, 0, 0, 0, false},
		{"same rows, another order, ordered", table(cols, gold.Rows[2], gold.Rows[0], gold.Rows[1]), []int{0}, true, false, 0, 0, 0, true},
		{"an integral float is its integer", table(cols, gold.Rows[0], []qeval.Value{i(2), s("ink"), i(8)}, gold.Rows[2]), []int{0}, false, true, 0, 0, 0, false},
		{"a changed row, paired by key", table(cols, gold.Rows[0], []qeval.Value{i(2), s("ink"), f(4)}, gold.Rows[2]), []int{0}, false, false, 0, 0, 1, false},
		{"a changed row without a key", table(cols, gold.Rows[0], []qeval.Value{i(2), s("ink"), f(4)}, gold.Rows[2]), nil, false, false, 1, 1, 0, false},
		{"a row added and one removed", table(cols, gold.Rows[0], gold.Rows[1], []qeval.Value{i(4), s("cap"), f(0.5)}), []int{0}, false, false, 1, 1, 0, false},
		{"a duplicate row counts", table(cols, gold.Rows[0], gold.Rows[1], gold.Rows[2], gold.Rows[2]), []int{0}, false, false, 1, 0, 0, false},
	}
	for _, c := range cases {
		d := compare.DiffTable("item", gold, c.pred, c.key, c.ordered)
		if d.Equal != c.equal || d.AddedCount != c.added || d.RemovedCount != c.removed || d.ChangedCount != c.changed || d.OtherOrder != c.otherOrder {
			t.Errorf("%s: DiffTable = %+v", c.name, d)
		}
	}
	d := compare.DiffTable("item", gold, table([]string{"id", "name"}), nil, false)
	if d.Equal || d.Note == "" {
		t.Errorf("other columns: %+v", d)
	}
}
