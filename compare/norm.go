package compare

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// normKey is the value key of the normalising modes (bag, ordered, subset):
//   - numbers compare by value: 1, 1.0 and "1" are equal; whole floats become ints;
//   - floats are rounded to 12 significant digits, so that the same average computed
//     two ways (2.3333333333333335 and 2.333333333333333) is equal;
//   - text that is a number (after trimming spaces) is that number; other text is
//     compared exactly;
//   - NULL equals only NULL; bytes equal only equal bytes; true/false are 1/0.
func normKey(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return "N"
	case qeval.KindInt, qeval.KindBool:
		return "I" + strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		return normFloat(v.Float)
	case qeval.KindText:
		if k, ok := numericText(v.Str); ok {
			return k
		}
		return "T" + v.Str
	case qeval.KindBytes:
		return "B" + v.Str
	case qeval.KindTime:
		return "D" + strconv.FormatInt(v.Int, 10)
	}
	return "?"
}

func normFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "F" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	if r == math.Trunc(r) && math.Abs(r) < 1<<63 {
		return "I" + strconv.FormatInt(int64(r), 10)
	}
	return "F" + strconv.FormatFloat(r, 'g', -1, 64)
}

var numberText = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

func numericText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 || !numberText.MatchString(s) {
		return "", false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return "I" + strconv.FormatInt(i, 10), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	return normFloat(f), true
}

// hasOrderBy reports whether a query has an ORDER BY clause (words separated by any
// white space, any case).
var orderBy = regexp.MustCompile(`(?i)\border\s+by\b`)

func hasOrderBy(q string) bool { return orderBy.MatchString(q) }

// bagEqual is the shared body of the normalising modes: same shape, then some column
// permutation making the rows equal (in order, or as bags).
func bagEqual(gold, pred *qeval.ResultSet, ordered bool) bool {
	r1, r2 := gold.Rows, pred.Rows
	if len(r1) == 0 && len(r2) == 0 {
		return true
	}
	if len(r1) != len(r2) || len(r1[0]) != len(r2[0]) {
		return false
	}
	return permutedEqual(keyRows(gold, normKey), keyRows(pred, normKey), ordered)
}
