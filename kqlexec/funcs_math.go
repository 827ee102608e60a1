package kqlexec

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

func real1(f func(float64) float64) *fnDef {
	return fixed(TReal, func(a []any) any {
		x, ok := toReal(a[0])
		if !ok {
			return nil
		}
		return f(x)
	}, TReal)
}

func real2(f func(x, y float64) float64) *fnDef {
	return fixed(TReal, func(a []any) any {
		x, ok1 := toReal(a[0])
		y, ok2 := toReal(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		return f(x, y)
	}, TReal, TReal)
}

// numericResult keeps a numeric argument's type (int becomes long).
func numericResult(a []expr) Type {
	if len(a) == 0 {
		return TReal
	}
	switch a[0].t {
	case TLong, TInt:
		return TLong
	case TDecimal:
		return TDecimal
	case TTimespan, TDatetime:
		return a[0].t
	}
	return TReal
}

// roundAway rounds half away from zero, as Kusto's round does.
func roundAway(x float64, digits int64) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// mathFuncs defines this file's functions (see library in funcs.go).
func mathFuncs(def func(string, *fnDef)) {
	def("abs", &fnDef{min: 1, max: 1, retf: numericResult, fn: func(a []any) any {
		switch x := a[0].(type) {
		case int64:
			if x < 0 {
				return -x
			}
			return x
		case Timespan:
			if x < 0 {
				return -x
			}
			return x
		}
		f, ok := toReal(a[0])
		if !ok {
			return nil
		}
		return math.Abs(f)
	}})
	def("sign", &fnDef{min: 1, max: 1, retf: numericResult, fn: func(a []any) any {
		f, ok := toReal(a[0])
		if !ok {
			return nil
		}
		switch {
		case f > 0:
			return 1.0
		case f < 0:
			return -1.0
		}
		return 0.0
	}})
	def("sqrt", real1(math.Sqrt))
	def("exp", real1(math.Exp))
	def("exp2", real1(math.Exp2))
	def("exp10", real1(func(x float64) float64 { return math.Pow(10, x) }))
	def("log", real1(math.Log))
	def("log2", real1(math.Log2))
	def("log10", real1(math.Log10))
	def("sin", real1(math.Sin))
	def("cos", real1(math.Cos))
	def("tan", real1(math.Tan))
	def("asin", real1(math.Asin))
	def("acos", real1(math.Acos))
	def("atan", real1(math.Atan))
	def("cot", real1(func(x float64) float64 { return 1 / math.Tan(x) }))
	def("atan2", real2(math.Atan2))
	def("pow", real2(math.Pow))
	def("degrees", real1(func(x float64) float64 { return x * 180 / math.Pi }))
	def("radians", real1(func(x float64) float64 { return x * math.Pi / 180 }))
	def("gamma", real1(math.Gamma))
	def("loggamma", real1(func(x float64) float64 { v, _ := math.Lgamma(x); return v }))
	def("erf", real1(math.Erf))
	def("erfc", real1(math.Erfc))
	def("pi", fixed(TReal, func(a []any) any { return math.Pi }))
	def("isnan", fixed(TBool, func(a []any) any { f, ok := toReal(a[0]); return ok && math.IsNaN(f) }, TReal))
	def("isinf", fixed(TBool, func(a []any) any { f, ok := toReal(a[0]); return ok && math.IsInf(f, 0) }, TReal))
	def("isfinite", fixed(TBool, func(a []any) any {
		f, ok := toReal(a[0])
		return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	}, TReal))
	def("ceiling", &fnDef{min: 1, max: 1, args: []Type{TReal}, ret: TReal, fn: func(a []any) any {
		f, ok := toReal(a[0])
		if !ok {
			return nil
		}
		return math.Ceil(f)
	}})
	def("round", &fnDef{min: 1, max: 2, args: []Type{"", TLong}, retf: numericResult, fn: func(a []any) any {
		d := long(a, 1, 0)
		switch x := a[0].(type) {
		case nil:
			return nil
		case int64:
			if d >= 0 {
				return x
			}
			return int64(roundAway(float64(x), d))
		}
		f, ok := toReal(a[0])
		if !ok {
			return nil
		}
		return roundAway(f, d)
	}})
	def("bin", &fnDef{min: 2, max: 2, retf: binType, fn: func(a []any) any { return binAt(a[0], a[1], nil) }})
	def("bin_at", &fnDef{min: 3, max: 3, retf: binType, fn: func(a []any) any { return binAt(a[0], a[1], a[2]) }})
	// rand is translated to SQL (spRand); this Go form is what a call through kf runs
	def("rand", &fnDef{min: 0, max: 1, args: []Type{TLong}, ret: TReal, fn: func(a []any) any {
		if len(a) == 1 {
			n := long(a, 0, 0)
			if n <= 0 {
				return nil
			}
			return float64(rand.Int64N(n))
		}
		return rand.Float64()
	}})
	volatile["rand"] = true
	def("binary_and", fixed(TLong, func(a []any) any { return long(a, 0, 0) & long(a, 1, 0) }, TLong, TLong))
	def("binary_or", fixed(TLong, func(a []any) any { return long(a, 0, 0) | long(a, 1, 0) }, TLong, TLong))
	def("binary_xor", fixed(TLong, func(a []any) any { return long(a, 0, 0) ^ long(a, 1, 0) }, TLong, TLong))
	def("binary_not", fixed(TLong, func(a []any) any { return ^long(a, 0, 0) }, TLong))
	def("binary_shift_left", fixed(TLong, func(a []any) any { return long(a, 0, 0) << uint(long(a, 1, 0)&63) }, TLong, TLong))
	def("binary_shift_right", fixed(TLong, func(a []any) any { return long(a, 0, 0) >> uint(long(a, 1, 0)&63) }, TLong, TLong))
	def("bitset_count_ones", fixed(TLong, func(a []any) any { return int64(bits.OnesCount64(uint64(long(a, 0, 0)))) }, TLong))
	// around(value, center, delta): value within delta of center, inclusive
	def("around", &fnDef{min: 3, max: 3, ret: TBool, fn: func(a []any) any {
		if a[0] == nil || a[1] == nil || a[2] == nil {
			return nil
		}
		if v, ok := a[0].(Datetime); ok {
			c, ok1 := a[1].(Datetime)
			d, ok2 := a[2].(Timespan)
			if !ok1 || !ok2 {
				return nil
			}
			return int64(v) >= int64(c)-int64(d) && int64(v) <= int64(c)+int64(d)
		}
		v, ok := toReal(a[0])
		c, ok1 := toReal(a[1])
		d, ok2 := toReal(a[2])
		if !ok || !ok1 || !ok2 {
			return nil
		}
		return v >= c-d && v <= c+d
	}})
	def("beta_pdf", fixed(TReal, func(a []any) any {
		x, _ := toReal(a[0])
		al, _ := toReal(a[1])
		be, _ := toReal(a[2])
		if x < 0 || x > 1 || al <= 0 || be <= 0 {
			return math.NaN()
		}
		la, _ := math.Lgamma(al)
		lb, _ := math.Lgamma(be)
		lab, _ := math.Lgamma(al + be)
		return math.Exp((al-1)*math.Log(x) + (be-1)*math.Log(1-x) + lab - la - lb)
	}, TReal, TReal, TReal))
}

func binType(a []expr) Type {
	if len(a) == 0 {
		return TReal
	}
	switch a[0].t {
	case TLong, TInt:
		if len(a) > 1 && (a[1].t == TReal || a[1].t == TDecimal) {
			return TReal
		}
		return TLong
	case TDatetime, TTimespan:
		return a[0].t
	}
	return TReal
}

// binAt rounds v down to a multiple of size (counted from at when given).
func binAt(v, size, at any) any {
	if v == nil || size == nil {
		return nil
	}
	switch x := v.(type) {
	case Datetime:
		s, ok := toTimespan(size)
		if !ok || s == 0 {
			return nil
		}
		// Kusto counts datetime bins from 0001-01-01, where its ticks start
		base := -int64(unixToYear1)
		if at != nil {
			if d, ok := toDatetime(at); ok {
				base = int64(d)
			}
		}
		return Datetime(floorDiv(int64(x)-base, int64(s))*int64(s) + base)
	case Timespan:
		s, ok := toTimespan(size)
		if !ok || s == 0 {
			return nil
		}
		var base int64
		if at != nil {
			if d, ok := toTimespan(at); ok {
				base = int64(d)
			}
		}
		return Timespan(floorDiv(int64(x)-base, int64(s))*int64(s) + base)
	case int64:
		if s, ok := size.(int64); ok {
			if s == 0 {
				return nil
			}
			var base int64
			if at != nil {
				base, _ = toLong(at)
			}
			return floorDiv(x-base, s)*s + base
		}
	}
	f, ok1 := toReal(v)
	s, ok2 := toReal(size)
	if !ok1 || !ok2 || s == 0 {
		return nil
	}
	var base float64
	if at != nil {
		base, _ = toReal(at)
	}
	return math.Floor((f-base)/s)*s + base
}
