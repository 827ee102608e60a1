package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// This file gives values the equality and the text that Python gives the values
// Python's sqlite3 module returns (int, float, str, bytes, None), because spider-ts and
// bird-ex are defined by Python code: 1 == 1.0, None == None, "1" != 1, no tolerance.

// pyKey returns a string that is equal for two values exactly when Python's == holds
// between them (and so when they hash alike in a set).
func pyKey(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return "N"
	case qeval.KindInt, qeval.KindBool:
		return "I" + strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		return floatKey(v.Float)
	case qeval.KindText:
		return "T" + v.Str
	case qeval.KindBytes:
		return "B" + v.Str
	case qeval.KindTime:
		return "D" + strconv.FormatInt(v.Int, 10)
	}
	return "?"
}

// floatKey keys a float so that it equals the key of the int with the same value.
func floatKey(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return "I" + strconv.FormatInt(int64(f), 10)
	}
	return "F" + strconv.FormatFloat(f, 'g', -1, 64)
}

// pySortKey is str(x) + str(type(x)), the key the official evaluator sorts the values
// of a row by before its quick rejection test.
func pySortKey(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return "None<class 'NoneType'>"
	case qeval.KindInt:
		return strconv.FormatInt(v.Int, 10) + "<class 'int'>"
	case qeval.KindBool:
		if v.Int != 0 {
			return "True<class 'bool'>"
		}
		return "False<class 'bool'>"
	case qeval.KindFloat:
		return pyFloatRepr(v.Float) + "<class 'float'>"
	case qeval.KindText:
		return v.Str + "<class 'str'>"
	case qeval.KindBytes:
		return pyBytesRepr(v.Str) + "<class 'bytes'>"
	case qeval.KindTime:
		return v.String() + "<class 'datetime.datetime'>"
	}
	return ""
}

// pyFloatRepr formats f as Python's repr does: the shortest digits that round-trip,
// positional notation for exponents -4..15 (with ".0" for whole numbers), scientific
// notation otherwise ("1e+16", "1.5e-05").
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		out = m + "e" + sign + e
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if len(digits) <= exp+1 {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		return "-" + out
	}
	return out
}

// pyBytesRepr formats b as Python's repr of a bytes object.
func pyBytesRepr(b string) string {
	quote := byte('\'')
	if strings.IndexByte(b, '\'') >= 0 && strings.IndexByte(b, '"') < 0 {
		quote = '"'
	}
	var sb strings.Builder
	sb.WriteString("b")
	sb.WriteByte(quote)
	const hex = "0123456789abcdef"
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == quote || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			sb.WriteString(`\x`)
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&15])
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte(quote)
	return sb.String()
}
