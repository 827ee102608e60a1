package compare

import (
	"math"
	"sort"
	"strconv"

	"github.com/qeval/qeval"
)

// Spider2Strict is Spider 2.0's comparison with its known faults fixed: every gold
// column must be matched by a distinct predicted column (extras allowed) such that the
// rows stay aligned across the matched columns (sorting each column separately accepts
// scrambled tables: issues 200 and 226 of github.com/xlang-ai/Spider2); when order is
// ignored the rows, not the columns, are sorted, numbers by value; the 0.01 tolerance
// applies only between two numbers, never after a sort by text (its issue 225); NULL
// equals only NULL.
var Spider2Strict = Mode{
	Name:         "spider2-strict",
	Version:      1,
	Doc:          "Spider 2.0 fixed: gold columns matched by distinct predicted columns with rows kept aligned, rows (not columns) sorted when order is ignored, numbers within 0.01, NULL only equals NULL.",
	OrderMatters: hasOrderBy,
	Equal: func(gold, pred *qeval.ResultSet, orderMatters bool) bool {
		ok, _ := Spider2StrictMatch(gold, pred, nil, !orderMatters)
		return ok
	},
}

// spider2StrictTries caps the column assignments tried before giving up (a mismatch).
const spider2StrictTries = 10000

// Spider2StrictMatch is Spider2Match with the faults fixed (see Spider2Strict).
func Spider2StrictMatch(gold, pred *qeval.ResultSet, cond []int, ignoreOrder bool) (bool, error) {
	g, err := project(gold, cond)
	if err != nil {
		return false, err
	}
	if g == nil || pred == nil {
		return g == nil && pred == nil, nil
	}
	ng, np := width(g), width(pred)
	if ng > np || len(g.Rows) != len(pred.Rows) {
		return false, nil
	}
	g, pred = numericUints(g), numericUints(pred)
	gcols, pcols := columnsOf(g), columnsOf(pred)
	// a predicted column is a candidate for a gold column when it holds the same
	// values (as a sorted bag when order is ignored)
	cands := make([][]int, ng)
	for j := range gcols {
		for k := range pcols {
			if strictVectorsMatch(gcols[j], pcols[k], ignoreOrder) {
				cands[j] = append(cands[j], k)
			}
		}
		if len(cands[j]) == 0 {
			return false, nil
		}
	}
	gRows := strictRows(padRows(g.Rows, ng), ignoreOrder)
	assign := make([]int, ng)
	used := make([]bool, np)
	tries := 0
	var try func(j int) bool
	try = func(j int) bool {
		if j == ng {
			tries++
			return tries <= spider2StrictTries && rowsMatch(gRows, pred, assign, ignoreOrder)
		}
		for _, k := range cands[j] {
			if used[k] || tries > spider2StrictTries {
				continue
			}
			used[k], assign[j] = true, k
			if try(j + 1) {
				return true
			}
			used[k] = false
		}
		return false
	}
	return try(0), nil
}

func columnsOf(rs *qeval.ResultSet) [][]qeval.Value {
	out := make([][]qeval.Value, width(rs))
	for j := range out {
		col := make([]qeval.Value, len(rs.Rows))
		for i, r := range rs.Rows {
			col[i] = cell(r, j)
		}
		out[j] = col
	}
	return out
}

func strictVectorsMatch(a, b []qeval.Value, ignoreOrder bool) bool {
	if ignoreOrder {
		a, b = sortedValues(a), sortedValues(b)
	}
	for i := range a {
		if !strictEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sortedValues(v []qeval.Value) []qeval.Value {
	out := append([]qeval.Value(nil), v...)
	sort.SliceStable(out, func(i, j int) bool { return typedLess(out[i], out[j]) })
	return out
}

// rowsMatch compares the gold rows with the predicted rows projected on assign.
func rowsMatch(gRows [][]qeval.Value, pred *qeval.ResultSet, assign []int, ignoreOrder bool) bool {
	p := make([][]qeval.Value, len(pred.Rows))
	for i, r := range pred.Rows {
		row := make([]qeval.Value, len(assign))
		for j, k := range assign {
			row[j] = cell(r, k)
		}
		p[i] = row
	}
	p = strictRows(p, ignoreOrder)
	for i := range gRows {
		for j := range gRows[i] {
			if !strictEqual(gRows[i][j], p[i][j]) {
				return false
			}
		}
	}
	return true
}

// strictRows sorts rows by their typed values when order is ignored.
func strictRows(rows [][]qeval.Value, ignoreOrder bool) [][]qeval.Value {
	if !ignoreOrder {
		return rows
	}
	out := append([][]qeval.Value(nil), rows...)
	sort.SliceStable(out, func(a, b int) bool {
		for j := range out[a] {
			x, y := out[a][j], out[b][j]
			if typedLess(x, y) {
				return true
			}
			if typedLess(y, x) {
				return false
			}
		}
		return false
	})
	return out
}

// typedRank orders kinds: NULL, numbers (booleans as 0 and 1), text, bytes.
func typedRank(v qeval.Value) int {
	switch {
	case v.IsNull():
		return 0
	case isNumber(v):
		return 1
	case v.Kind == qeval.KindBytes:
		return 3
	}
	return 2
}

func typedLess(a, b qeval.Value) bool {
	ra, rb := typedRank(a), typedRank(b)
	if ra != rb {
		return ra < rb
	}
	switch ra {
	case 1:
		x, y := asFloat(a), asFloat(b)
		if math.IsNaN(x) || math.IsNaN(y) {
			return !math.IsNaN(x) && math.IsNaN(y)
		}
		return x < y
	case 2, 3:
		return textOf(a) < textOf(b)
	}
	return false
}

func textOf(v qeval.Value) string {
	if v.Kind == qeval.KindText || v.Kind == qeval.KindBytes {
		return v.Str
	}
	return v.String()
}

// strictEqual: NULL only equals NULL; two numbers are equal within the tolerance;
// anything else must be the same kind of value with the same text.
func strictEqual(a, b qeval.Value) bool {
	switch {
	case a.IsNull() || b.IsNull():
		return a.IsNull() && b.IsNull()
	case isNumber(a) && isNumber(b):
		x, y := asFloat(a), asFloat(b)
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return isClose(x, y, Spider2Tolerance)
	case isNumber(a) || isNumber(b):
		return false
	}
	return typedRank(a) == typedRank(b) && textOf(a) == textOf(b)
}

// padRows returns rows each n wide, short ones padded with NULL.
func padRows(rows [][]qeval.Value, n int) [][]qeval.Value {
	out := make([][]qeval.Value, len(rows))
	for i, r := range rows {
		row := make([]qeval.Value, n)
		for j := range row {
			row[j] = cell(r, j)
		}
		out[i] = row
	}
	return out
}

// numericUints returns rs with the values of its uint64 columns (integers past int64,
// which a stored CSV result holds as text) as numbers.
func numericUints(rs *qeval.ResultSet) *qeval.ResultSet {
	var cols []int
	for j, c := range rs.Columns {
		if c.Type == dtUint {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return rs
	}
	out := &qeval.ResultSet{Columns: rs.Columns, Rows: make([][]qeval.Value, len(rs.Rows))}
	for i, r := range rs.Rows {
		row := append([]qeval.Value(nil), r...)
		for _, j := range cols {
			if j < len(row) && row[j].Kind == qeval.KindText {
				if f, err := strconv.ParseFloat(row[j].Str, 64); err == nil {
					row[j] = qeval.Float(f)
				}
			}
		}
		out.Rows[i] = row
	}
	return out
}
