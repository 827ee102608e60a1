package sqlite

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// The driver's SQLite is compiled without SQLITE_ENABLE_MATH_FUNCTIONS (the option
// is a build tag of the driver, which a module cannot set for its users), while the
// SQLite most people run queries on has them: the sqlite3 shell, Python's sqlite3 (the
// official Spider and BIRD evaluators run predictions there), Debian's library. A
// prediction using floor() or sqrt() failed here with "no such function" and ran
// there. These are the same functions, registered on a connection before the first
// statement that calls one (30 registrations cost more than most queries), with
// SQLite's documented behaviour (https://sqlite.org/lang_mathfunc.html): an argument
// may be an integer, a real or text that looks like a number; NULL, other text and
// blobs give NULL, and so does a domain error (a NaN result); ceil, floor and trunc
// give an integer back unchanged; the rest give reals. The transcendental functions
// call the C library, as SQLite does, so results agree to the last bit.
var mathFuncs = []Func{
	{Name: "ceil", Impl: rounder(math.Ceil), Pure: true},
	{Name: "ceiling", Impl: rounder(math.Ceil), Pure: true},
	{Name: "floor", Impl: rounder(math.Floor), Pure: true},
	{Name: "trunc", Impl: rounder(math.Trunc), Pure: true},
	{Name: "ln", Impl: logOf(1), Pure: true},
	{Name: "log", Impl: logFunc, Pure: true},
	{Name: "log10", Impl: logOf(math.Ln10), Pure: true},
	{Name: "log2", Impl: logOf(math.Ln2), Pure: true},
	{Name: "exp", Impl: unary(func(x float64) float64 { return float64(C.exp(C.double(x))) }), Pure: true},
	{Name: "pow", Impl: binary(cpow), Pure: true},
	{Name: "power", Impl: binary(cpow), Pure: true},
	{Name: "mod", Impl: binary(math.Mod), Pure: true},
	{Name: "atan2", Impl: binary(func(y, x float64) float64 { return float64(C.atan2(C.double(y), C.double(x))) }), Pure: true},
	{Name: "sqrt", Impl: unary(math.Sqrt), Pure: true},
	{Name: "sin", Impl: unary(func(x float64) float64 { return float64(C.sin(C.double(x))) }), Pure: true},
	{Name: "cos", Impl: unary(func(x float64) float64 { return float64(C.cos(C.double(x))) }), Pure: true},
	{Name: "tan", Impl: unary(func(x float64) float64 { return float64(C.tan(C.double(x))) }), Pure: true},
	{Name: "asin", Impl: unary(func(x float64) float64 { return float64(C.asin(C.double(x))) }), Pure: true},
	{Name: "acos", Impl: unary(func(x float64) float64 { return float64(C.acos(C.double(x))) }), Pure: true},
	{Name: "atan", Impl: unary(func(x float64) float64 { return float64(C.atan(C.double(x))) }), Pure: true},
	{Name: "sinh", Impl: unary(func(x float64) float64 { return float64(C.sinh(C.double(x))) }), Pure: true},
	{Name: "cosh", Impl: unary(func(x float64) float64 { return float64(C.cosh(C.double(x))) }), Pure: true},
	{Name: "tanh", Impl: unary(func(x float64) float64 { return float64(C.tanh(C.double(x))) }), Pure: true},
	{Name: "asinh", Impl: unary(func(x float64) float64 { return float64(C.asinh(C.double(x))) }), Pure: true},
	{Name: "acosh", Impl: unary(func(x float64) float64 { return float64(C.acosh(C.double(x))) }), Pure: true},
	{Name: "atanh", Impl: unary(func(x float64) float64 { return float64(C.atanh(C.double(x))) }), Pure: true},
	{Name: "degrees", Impl: unary(func(x float64) float64 { return x * (180.0 / math.Pi) }), Pure: true},
	{Name: "radians", Impl: unary(func(x float64) float64 { return x * (math.Pi / 180.0) }), Pure: true},
	{Name: "pi", Impl: func() float64 { return math.Pi }, Pure: true},
}

func cpow(x, y float64) float64 { return float64(C.pow(C.double(x), C.double(y))) }

// numberSyntax is a number as SQLite reads one in text: a sign, digits with an optional
// point (or a point and digits), an optional exponent.
const numberSyntax = `[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`

// numberText is a text that is a number (once the white space around it is trimmed).
var numberText = lazyregexp.New(`^` + numberSyntax + `$`)

// numeric is v as sqlite3_value_numeric_type sees it: an integer (isInt), a real, or
// nothing (ok false) for NULL, a blob and text that is no number.
func numeric(v any) (f float64, i int64, isInt, ok bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), x, true, true
	case float64:
		return x, 0, false, true
	case string:
		t := strings.Trim(x, " \t\n\v\f\r")
		if !numberText.MatchString(t) {
			return 0, 0, false, false
		}
		if !strings.ContainsAny(t, ".eE") {
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return float64(n), n, true, true
			}
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, 0, false, false
		}
		return f, 0, false, true
	}
	return 0, 0, false, false
}

// realOf is a result: NULL for NaN, as sqlite3_result_double makes it.
func realOf(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

// rounder is ceil, floor or trunc: an integer comes back unchanged.
func rounder(fn func(float64) float64) func(any) any {
	return func(v any) any {
		f, i, isInt, ok := numeric(v)
		switch {
		case !ok:
			return nil
		case isInt:
			return i
		}
		return realOf(fn(f))
	}
}

func unary(fn func(float64) float64) func(any) any {
	return func(v any) any {
		f, _, _, ok := numeric(v)
		if !ok {
			return nil
		}
		return realOf(fn(f))
	}
}

func binary(fn func(float64, float64) float64) func(any, any) any {
	return func(a, b any) any {
		x, _, _, ok := numeric(a)
		y, _, _, ok2 := numeric(b)
		if !ok || !ok2 {
			return nil
		}
		return realOf(fn(x, y))
	}
}

// clog is the C library's natural logarithm.
func clog(x float64) float64 { return float64(C.log(C.double(x))) }

// logOf is ln (div 1), log10 (ln 10) or log2 (ln 2): SQLite divides the natural
// logarithm, so log10(1000) is 2.9999999999999996 there too. Zero and negative
// arguments give NULL.
func logOf(div float64) func(any) any {
	return func(v any) any {
		x, _, _, ok := numeric(v)
		if !ok || x <= 0 {
			return nil
		}
		if div == 1 {
			return realOf(clog(x))
		}
		return realOf(clog(x) / div)
	}
}

// logFunc is log(X), the base-10 logarithm, or log(B, X), the base-B one (B > 1).
func logFunc(args ...any) (any, error) {
	switch len(args) {
	case 1:
		return logOf(math.Ln10)(args[0]), nil
	case 2:
		b, _, _, ok := numeric(args[0])
		if !ok || b <= 0 {
			return nil, nil
		}
		lb := clog(b)
		if lb <= 0 {
			return nil, nil
		}
		// SQLite reads the second argument with sqlite3_value_double, which takes
		// the number at the start of a text ("8abc" is 8) and 0 for none
		x := leadingNumber(args[1])
		if x <= 0 {
			return nil, nil
		}
		return realOf(clog(x) / lb), nil
	}
	return nil, errors.New("wrong number of arguments to function log()")
}

// numberPrefix is the number at the start of a text, after white space.
var numberPrefix = lazyregexp.New(`^[ \t\n\v\f\r]*` + numberSyntax)

// leadingNumber is v as sqlite3_value_double reads it: a number as it is, the number
// a text or blob starts with, else 0.
func leadingNumber(v any) float64 {
	var t string
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		t = x
	case []byte:
		t = string(x)
	}
	f, _ := strconv.ParseFloat(strings.TrimLeft(numberPrefix.FindString(t), " \t\n\v\f\r"), 64)
	return f
}

// mathNames are the names of mathFuncs.
var mathNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range mathFuncs {
		m[f.Name] = true
	}
	return m
}()

// callsMath reports whether stmt may call one of the math functions: a name of one
// (in any case, quoted or not) before an opening parenthesis.
func callsMath(stmt string) bool {
	for i := strings.IndexByte(stmt, '('); i > 0; {
		j := i - 1
		for j >= 0 && (stmt[j] == ' ' || stmt[j] == '\t' || stmt[j] == '\n' || stmt[j] == '\r') {
			j--
		}
		if j >= 0 && (stmt[j] == '"' || stmt[j] == '`' || stmt[j] == ']') {
			j-- // a quoted name: its letters end before the quote
		}
		end := j + 1
		for j >= 0 && (stmt[j] == '_' || stmt[j] >= 'a' && stmt[j] <= 'z' || stmt[j] >= 'A' && stmt[j] <= 'Z' || stmt[j] >= '0' && stmt[j] <= '9') {
			j--
		}
		if end-j-1 >= 2 && end-j-1 <= 7 && mathNames[strings.ToLower(stmt[j+1:end])] {
			return true
		}
		next := strings.IndexByte(stmt[i+1:], '(')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}
