package kql

import (
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Canonical literal forms, used by Format and so by the Shape values.
//
// A time span is written as a whole number of the largest unit that represents it
// exactly, chosen from d, h, m, s, ms, microsecond and tick (100 ns): 60m and 1h both
// print as "1h", 90m as "90m", 1.5h as "90m", 0.5d as "12h", 1000ms as "1s",
// time(0.12:34:56.7) as "45296700ms", timespan(2) as "2d"; zero prints as "0s". A value
// that cannot be read (or a typed null) keeps its written form.
//
// In shape values (not in Format), constant time-span arithmetic is folded first, with
// let-bound constants substituted: ago(2 * 30m), ago(1d / 24) and ago(lookback) with
// let lookback = 60m all read ago(1h).
//
// A datetime that can be read prints as datetime(YYYY-MM-DDThh:mm:ss[.fffffff]Z) in UTC,
// so datetime(2017-01-01), datetime("2017-01-01 00:00") and datetime(2017-01-01T00:00:00Z)
// are equal.

var canonicalUnits = []struct {
	name  string
	ticks int64
}{
	{"d", 864000000000}, {"h", 36000000000}, {"m", 600000000}, {"s", 10000000},
	{"ms", 10000}, {"microsecond", 10}, {"tick", 1},
}

// CanonicalTimespan returns the canonical text of a time-span value written as a
// literal (1h, 1.5d, 15 seconds, 0.12:34:56.7, 2), and false when it cannot be read.
func CanonicalTimespan(v string) (string, bool) {
	ticks, ok := timespanTicks(strings.TrimSpace(v))
	if !ok {
		return v, false
	}
	return formatTicks(ticks), true
}

func formatTicks(t int64) string {
	if t == 0 {
		return "0s"
	}
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	for _, u := range canonicalUnits {
		if t%u.ticks == 0 {
			return sign + strconv.FormatInt(t/u.ticks, 10) + u.name
		}
	}
	return sign + strconv.FormatInt(t, 10) + "tick"
}

// timespanTicks reads a time span as a count of 100 ns ticks.
func timespanTicks(v string) (int64, bool) {
	if v == "" {
		return 0, false
	}
	neg := false
	if v[0] == '-' || v[0] == '+' {
		neg = v[0] == '-'
		v = strings.TrimSpace(v[1:])
	}
	var t int64
	var ok bool
	if strings.Contains(v, ":") {
		t, ok = clockTicks(v)
	} else {
		i := 0
		for i < len(v) && (isDigit(v[i]) || v[i] == '.') {
			i++
		}
		num, unit := v[:i], strings.TrimSpace(v[i:])
		if unit == "" {
			unit = "d" // timespan(2) is two days
		}
		per, known := timespanUnits[unit]
		switch {
		case !known:
			return 0, false
		case per == 0: // nanoseconds: 1/100 tick
			t, ok = scaleDecimal(num, 1, 100)
		default:
			t, ok = scaleDecimal(num, per, 1)
		}
	}
	if !ok {
		return 0, false
	}
	if neg {
		t = -t
	}
	return t, true
}

// scaleDecimal returns num*mul/div for a decimal number text when that is a whole
// number that fits in an int64.
func scaleDecimal(num string, mul, div int64) (int64, bool) {
	intPart, frac, _ := strings.Cut(num, ".")
	if intPart == "" && frac == "" || len(intPart)+len(frac) > 30 {
		return 0, false
	}
	n, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return 0, false
	}
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	d.Mul(d, big.NewInt(div))
	n.Mul(n, big.NewInt(mul))
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() != 0 || !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// clockTicks reads [d.]hh:mm[:ss[.fffffff]].
func clockTicks(v string) (int64, bool) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var days int64
	hours := parts[0]
	if d, h, ok := strings.Cut(parts[0], "."); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return 0, false
		}
		days, hours = n, h
	}
	h, err1 := strconv.ParseInt(hours, 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || days < 0 || h < 0 || m < 0 || days > 1e7 || h > 1e6 || m > 1e6 {
		return 0, false
	}
	t := days*864000000000 + h*36000000000 + m*600000000
	if len(parts) == 3 {
		s, ok := scaleDecimal(parts[2], 10000000, 1)
		if !ok {
			return 0, false
		}
		t += s
	}
	return t, true
}

var datetimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006-01",
	"2006/01/02 15:04:05",
	"2006/01/02",
	time.RFC1123,
	time.RFC1123Z,
	time.RFC822,
	time.RFC822Z,
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006",
}

// CanonicalDatetime returns the canonical text of a datetime literal's contents
// (2017-01-01 → 2017-01-01T00:00:00Z), and false when it cannot be read.
func CanonicalDatetime(v string) (string, bool) {
	v = strings.TrimSpace(v)
	for _, l := range datetimeLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05.9999999Z"), true
		}
	}
	return v, false
}

// foldTimespan evaluates constant time-span arithmetic: time spans added or
// subtracted, multiplied or divided by numbers (2*1h, 1d - 1h, 1h/2), with let-bound
// constants substituted. It reports false for anything else or an inexact result.
func (f *formatter) foldTimespan(e Expr) (int64, bool) {
	v, isSpan, ok := f.foldNum(e)
	if !ok || !isSpan || v.Denom().Cmp(big.NewInt(1)) != 0 || !v.Num().IsInt64() {
		return 0, false
	}
	return v.Num().Int64(), true
}

// foldNum evaluates a constant number or time span (in ticks) exactly.
func (f *formatter) foldNum(e Expr) (v *big.Rat, isSpan, ok bool) {
	switch e := e.(type) {
	case *Paren:
		return f.foldNum(e.X)
	case *Unary:
		v, isSpan, ok = f.foldNum(e.X)
		if ok && e.Op == "-" {
			v = new(big.Rat).Neg(v)
		}
		return v, isSpan, ok
	case *Ident:
		if f.subst == nil {
			return nil, false, false
		}
		text := f.subst(e)
		if text == "" {
			return nil, false, false
		}
		if t, ok := timespanTicks(text); ok {
			return new(big.Rat).SetInt64(t), true, true
		}
		if r, ok := new(big.Rat).SetString(text); ok {
			return r, false, true
		}
	case *Literal:
		switch e.Kind {
		case LitTimespan:
			if t, ok := timespanTicks(e.Value); ok && !e.Null {
				return new(big.Rat).SetInt64(t), true, true
			}
		case LitLong, LitInt, LitReal:
			if r, ok := new(big.Rat).SetString(e.Value); ok && !e.Null {
				return r, false, true
			}
		}
	case *Binary:
		l, ls, ok1 := f.foldNum(e.Left)
		r, rs, ok2 := f.foldNum(e.Right)
		if !ok1 || !ok2 {
			return nil, false, false
		}
		switch {
		case (e.Op == "+" || e.Op == "-") && ls == rs:
			if e.Op == "+" {
				return new(big.Rat).Add(l, r), ls, true
			}
			return new(big.Rat).Sub(l, r), ls, true
		case e.Op == "*" && !(ls && rs):
			return new(big.Rat).Mul(l, r), ls || rs, true
		case e.Op == "/" && !rs && r.Sign() != 0:
			return new(big.Rat).Quo(l, r), ls, true
		}
	}
	return nil, false, false
}
