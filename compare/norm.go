package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/internal/lexbyte"
)

// normKey is the value key of the normalising modes (bag, ordered, subset):
//   - numbers compare by value: 1, 1.0 and "1" are equal; whole floats become ints;
//   - fractional floats are rounded to 12 significant digits, so that the same average
//     computed two ways (2.3333333333333335 and 2.333333333333333) is equal; whole
//     floats are exact;
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
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return "I" + strconv.FormatInt(int64(f), 10)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	if r == math.Trunc(r) && math.Abs(r) < 1<<63 {
		return "I" + strconv.FormatInt(int64(r), 10)
	}
	return "F" + strconv.FormatFloat(r, 'g', -1, 64)
}

var numberText = lazyregexp.New(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

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

// orderBy matches ORDER BY with any white space between the words, any case.
var orderBy = lazyregexp.New(`(?i)^order\s+by\b`)

// hasOrderBy reports whether a query orders its result: an ORDER BY outside every
// parenthesis (so not one inside OVER (...) or a subquery), string and comment.
func hasOrderBy(q string) bool {
	depth := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case '\'', '"', '`':
			if j := strings.IndexByte(q[i+1:], c); j >= 0 {
				i += j + 1
			} else {
				return false
			}
		case '/':
			if i+1 < len(q) && q[i+1] == '*' {
				if j := strings.Index(q[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					return false
				}
			}
		case '-':
			if i+1 < len(q) && q[i+1] == '-' {
				if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
					i += j
				} else {
					return false
				}
			}
		case 'o', 'O':
			if depth == 0 && (i == 0 || !lexbyte.IsASCIIWord(q[i-1])) && orderBy.MatchString(q[i:]) {
				return true
			}
		}
	}
	return false
}

// bagEqual is the shared body of the normalising modes: same shape, then some column
// permutation making the rows equal (in order, or as bags).
func bagEqual(gold, pred *qeval.ResultSet, ordered bool) bool {
	r1, r2, ok := rows(gold, pred)
	if !ok {
		return false
	}
	if len(r1) == 0 && len(r2) == 0 {
		return true
	}
	if len(r1) != len(r2) || len(r1[0]) != len(r2[0]) {
		return false
	}
	return permutedEqual(keyRows(gold, normKey), keyRows(pred, normKey), ordered)
}
