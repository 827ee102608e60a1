package kqlexec

import (
	"strconv"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// Run-time calls written as SQL instead. A call of a Go function costs SQLite a
// trip through cgo and the driver's reflection per row (about 2 µs): on a few
// million rows that is most of a query's time. The calls below are computed while
// translating (every argument a constant) or written as SQL arithmetic (the common
// forms of bin() and timespan × number), with the Go function kept for every other
// case, so the answers are the same.

// foldable names the run-time functions cheap enough to compute while translating
// when every argument is a constant: a fixed, small amount of work, no error.
var foldable = map[string]bool{"op:span*": true, "op:span/": true, "op:/": true, "op:idiv": true, "op:imod": true, "op:fmod": true, "bin": true,
	"op:r+": true, "op:r-": true, "op:r*": true, "op:rneg": true, "op:r<": true, "op:r<=": true, "op:r>": true, "op:r>=": true, "op:r==": true, "op:r=": true, "op:r!=": true}

// fold computes a call of a foldable function on constant arguments; ok is false
// when it cannot (an argument is not a constant, the function fails or panics).
func fold(name string, ret Type, args []expr) (out expr, ok bool) {
	if !foldable[name] {
		return expr{}, false
	}
	vals := make([]any, len(args))
	for i, a := range args {
		if !a.isLit {
			return expr{}, false
		}
		vals[i] = a.lit
	}
	d, found := funcs()[name]
	if !found {
		return expr{}, false
	}
	defer func() {
		if recover() != nil {
			out, ok = expr{}, false
		}
	}()
	r := d.fn(vals)
	if _, failed := r.(error); failed {
		return expr{}, false
	}
	return lit(r, ret), true
}

// plainOperand matches the SQL of a stage's column, possibly cast to a real or
// offset by a whole number: an operand that may be read several times at no cost.
var plainOperand = lazyregexp.New(`^(t\.c\d+|CAST\(t\.c\d+ AS REAL\)|\(t\.c\d+ [-+] \d+\))$`)

func plain(x expr) bool { return x.isLit || plainOperand.MatchString(x.sql) }

// native writes a call as SQL when its arguments allow it; ok is false otherwise.
func native(name string, ret Type, args []expr) (expr, bool) {
	switch name {
	case "bin":
		return nativeBin(ret, args)
	case "op:span*":
		return nativeSpanTimes(ret, args)
	}
	return expr{}, false
}

// nativeBin is bin(x, size) of a datetime, timespan or long x and a constant whole
// size above zero: x less its non-negative remainder, counted from 0001-01-01 for a
// datetime (as binAt does).
func nativeBin(ret Type, args []expr) (expr, bool) {
	if len(args) != 2 || !args[1].isLit || !plain(args[0]) {
		return expr{}, false
	}
	x, size := args[0], args[1]
	var s int64
	switch v := size.lit.(type) {
	case int64:
		s = v
	case Timespan:
		s = int64(v)
	}
	if s <= 0 || s > 1<<62 {
		return expr{}, false
	}
	// a stored value is a whole number of ticks; one made by arithmetic on a real is
	// cut to one first, as the Go function reads it
	v := "CAST(" + x.sql + " AS INTEGER)"
	var from string
	switch {
	case x.t == TDatetime && size.t == TTimespan:
		from = "(" + v + " + " + strconv.FormatInt(int64(unixToYear1), 10) + ")"
	case x.t == TTimespan && size.t == TTimespan, x.t == TLong && size.t == TLong:
		from = v
	default:
		return expr{}, false
	}
	n := strconv.FormatInt(s, 10)
	return expr{sql: "(" + v + " - ((" + from + " % " + n + ") + " + n + ") % " + n + ")", t: ret}, true
}

// nativeSpanTimes is timespan × number when the product is a whole number of ticks
// (math.Round leaves it as it is); other products go to the Go function.
func nativeSpanTimes(ret Type, args []expr) (expr, bool) {
	if len(args) != 2 || !plain(args[0]) || !plain(args[1]) {
		return expr{}, false
	}
	s, f := args[0].sql, args[1].sql
	p := "(" + s + " * " + f + ")"
	return expr{sql: "(CASE WHEN typeof(" + s + ") = 'integer' AND typeof(" + f + ") IN ('integer', 'real') AND " + p + " = CAST(" + p + " AS INTEGER) THEN CAST(" +
		p + " AS INTEGER) ELSE " + goCall("op:span*", ret, args...).sql + " END)", t: ret}, true
}
