package compare

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/qeval/qeval"
)

// Spider2 is the comparison of Spider 2.0's official evaluator
// (xlang-ai/Spider2, spider2-lite/evaluation_suite/evaluate.py, compare_pandas_table):
// every gold column must equal some predicted column (extra predicted columns are
// allowed, one predicted column may serve several gold columns); columns are compared
// as whole vectors, each sorted on its own by the text of its values when order is
// ignored; NULL counts as 0; numbers (and booleans) are equal within 0.01.
// It keeps the evaluator's faults: sorting each column separately accepts tables whose
// rows were scrambled (issues 200 and 226 of github.com/xlang-ai/Spider2), and the
// sort by text misaligns numbers before the tolerance is applied (its issue 225).
// Spider2Strict fixes them.
var Spider2 = Mode{
	Name:         "spider2",
	Version:      1,
	Doc:          "Spider 2.0's evaluate.py: each gold column equals some predicted column (extras allowed), columns sorted separately as text when order is ignored, NULL = 0, numbers within 0.01.",
	OrderMatters: hasOrderBy,
	Equal: func(gold, pred *qeval.ResultSet, orderMatters bool) bool {
		ok, _ := Spider2Match(gold, pred, nil, !orderMatters)
		return ok
	},
}

// Spider2Tolerance is the absolute tolerance of Spider 2.0's number comparison.
const Spider2Tolerance = 1e-2

// Spider2Match compares as evaluate.py's compare_pandas_table does, on the gold
// columns at the indices cond (all of them when cond is empty). It fails when an index
// is out of range, as pandas' iloc does.
//
// The values are those pandas would hold: see pandasColumns.
func Spider2Match(gold, pred *qeval.ResultSet, cond []int, ignoreOrder bool) (bool, error) {
	g, err := project(gold, cond)
	if err != nil {
		return false, err
	}
	if g == nil || width(g) == 0 {
		// no gold columns (pandas cannot read such a file): only an empty result matches
		return pred.NumRows() == 0, nil
	}
	gv, pv := pandasColumns(g), pandasColumns(pred)
	for _, gc := range gv {
		found := false
		for _, pc := range pv {
			if vectorsMatch(gc, pc, ignoreOrder) {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

// project keeps the columns at cond, in that order (all columns when cond is empty).
func project(rs *qeval.ResultSet, cond []int) (*qeval.ResultSet, error) {
	if len(cond) == 0 || rs == nil {
		return rs, nil
	}
	n := width(rs)
	cond = append([]int(nil), cond...)
	out := &qeval.ResultSet{Columns: make([]qeval.Column, len(cond)), Rows: make([][]qeval.Value, len(rs.Rows))}
	for k, c := range cond {
		if c < -n || c >= n {
			return nil, fmt.Errorf("condition column %d out of range: the gold result has %d columns", c, n)
		}
		if c < 0 {
			cond[k] = c + n // as Python, a negative index counts from the end
		}
		if cond[k] < len(rs.Columns) {
			out.Columns[k] = rs.Columns[cond[k]]
		}
	}
	for i, row := range rs.Rows {
		r := make([]qeval.Value, len(cond))
		for k, c := range cond {
			r[k] = cell(row, c)
		}
		out.Rows[i] = r
	}
	return out, nil
}

// Column types as pandas names them (see package resultcsv); a result set from a
// database has no such types and gets them from its values. A uint64 column (integers
// past int64, none negative) holds its values as decimal text.
const (
	dtInt    = "int64"
	dtUint   = "uint64"
	dtFloat  = "float64"
	dtBool   = "bool"
	dtObject = "object"
)

// pyVal is a value as evaluate.py holds it: a number (int, float or bool, with its
// float() for the tolerance) or not, and its str().
type pyVal struct {
	num bool
	f   float64
	str string
}

// pandasColumns returns the columns of rs as evaluate.py sees them after
// frame.transpose().values.tolist() and its normalize(): when every column is numeric
// (int64, uint64, float64) and the columns are not all of one integer type, the whole
// frame becomes float64 and integers become floats; NULL (NaN) becomes the integer 0.
func pandasColumns(rs *qeval.ResultSet) [][]pyVal {
	if rs == nil {
		return nil
	}
	n := width(rs)
	types := make([]string, n)
	allNum, seen := true, map[string]bool{}
	for j := range types {
		recorded := ""
		if j < len(rs.Columns) {
			recorded = rs.Columns[j].Type
		}
		types[j] = dtypeOf(rs, j, recorded)
		seen[types[j]] = true
		if types[j] != dtInt && types[j] != dtFloat && types[j] != dtUint {
			allNum = false
		}
	}
	floatFrame := allNum && (seen[dtFloat] || seen[dtInt] && seen[dtUint])
	out := make([][]pyVal, n)
	for j := range out {
		col := make([]pyVal, len(rs.Rows))
		for i, row := range rs.Rows {
			col[i] = toPy(cell(row, j), types[j] == dtUint, floatFrame)
		}
		out[j] = col
	}
	return out
}

func toPy(v qeval.Value, uint, floatFrame bool) pyVal {
	switch {
	case v.IsNull() || v.Kind == qeval.KindFloat && math.IsNaN(v.Float):
		return pyVal{num: true, f: 0, str: "0"}
	case uint && v.Kind == qeval.KindText:
		f, err := strconv.ParseFloat(v.Str, 64)
		if err != nil {
			return pyVal{str: v.Str}
		}
		if floatFrame {
			return pyVal{num: true, f: f, str: pyFloatRepr(f)}
		}
		return pyVal{num: true, f: f, str: v.Str}
	case v.Kind == qeval.KindInt && floatFrame:
		f := float64(v.Int)
		return pyVal{num: true, f: f, str: pyFloatRepr(f)}
	case v.Kind == qeval.KindInt:
		return pyVal{num: true, f: float64(v.Int), str: strconv.FormatInt(v.Int, 10)}
	case v.Kind == qeval.KindFloat:
		return pyVal{num: true, f: v.Float, str: pyFloatRepr(v.Float)}
	case v.Kind == qeval.KindBool:
		if v.Int != 0 {
			return pyVal{num: true, f: 1, str: "True"}
		}
		return pyVal{num: true, f: 0, str: "False"}
	case v.Kind == qeval.KindText:
		return pyVal{str: v.Str}
	}
	return pyVal{str: v.String()}
}

// dtypeOf is the pandas dtype of column j: its recorded type when it is one, else
// what pandas infers from the values.
func dtypeOf(rs *qeval.ResultSet, j int, recorded string) string {
	switch recorded {
	case dtInt, dtUint, dtFloat, dtBool, dtObject:
		return recorded
	}
	ints, floats, nulls, bools, other := 0, 0, 0, 0, 0
	for _, row := range rs.Rows {
		switch cell(row, j).Kind {
		case qeval.KindInt:
			ints++
		case qeval.KindFloat:
			floats++
		case qeval.KindNull:
			nulls++
		case qeval.KindBool:
			bools++
		default:
			other++
		}
	}
	switch {
	case other > 0 || bools > 0 && bools+nulls != len(rs.Rows):
		return dtObject
	case bools > 0 && nulls == 0:
		return dtBool
	case bools > 0:
		return dtObject
	case floats > 0 || nulls > 0:
		return dtFloat
	case ints > 0:
		return dtInt
	}
	return dtObject
}

// vectorsMatch is evaluate.py's vectors_match: with ignoreOrder both vectors are
// sorted by (str(x), is a number), then compared pairwise, numbers within the
// tolerance and anything else with Python's ==.
func vectorsMatch(a, b []pyVal, ignoreOrder bool) bool {
	if len(a) != len(b) {
		return false
	}
	if ignoreOrder {
		a, b = pyStrSorted(a), pyStrSorted(b)
	}
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.num && y.num:
			if !isClose(x.f, y.f, Spider2Tolerance) {
				return false
			}
		case x.num || y.num || x.str != y.str:
			return false
		}
	}
	return true
}

func pyStrSorted(v []pyVal) []pyVal {
	out := append([]pyVal(nil), v...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].str != out[j].str {
			return out[i].str < out[j].str
		}
		return !out[i].num && out[j].num
	})
	return out
}

func isNumber(v qeval.Value) bool {
	return v.Kind == qeval.KindInt || v.Kind == qeval.KindFloat || v.Kind == qeval.KindBool
}

func asFloat(v qeval.Value) float64 {
	if v.Kind == qeval.KindFloat {
		return v.Float
	}
	return float64(v.Int)
}

// isClose is Python's math.isclose(a, b, abs_tol=tol) with the default rel_tol 1e-9.
func isClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	d := math.Abs(b - a)
	return d <= math.Abs(1e-9*b) || d <= math.Abs(1e-9*a) || d <= tol
}

// width is the number of columns of rs: its declared columns, or those of its first
// row when it declares none.
func width(rs *qeval.ResultSet) int {
	n := len(rs.Columns)
	if len(rs.Rows) > 0 && len(rs.Rows[0]) > n {
		n = len(rs.Rows[0])
	}
	return n
}

// cell is row[j], NULL when the row is short.
func cell(row []qeval.Value, j int) qeval.Value {
	if j < len(row) {
		return row[j]
	}
	return qeval.Null
}
