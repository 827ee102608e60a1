package kqlexec

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Series functions work on dynamic arrays of numbers, element by element.

// nums reads a dynamic array of numbers; nulls and non-numbers become NaN (ok false
// for a non-array).
func nums(v any) ([]float64, []bool, bool) {
	xs, ok := arr(v)
	if !ok {
		return nil, nil, false
	}
	out := make([]float64, len(xs))
	valid := make([]bool, len(xs))
	for i, x := range xs {
		f, ok := toReal(Dyn{x})
		if x == nil || !ok {
			out[i] = math.NaN()
			continue
		}
		out[i], valid[i] = f, true
	}
	return out, valid, true
}

func realsDyn(fs []float64, valid []bool) Dyn {
	out := make([]any, len(fs))
	for i, f := range fs {
		if valid != nil && !valid[i] || math.IsNaN(f) {
			out[i] = nil
			continue
		}
		out[i] = toJSONValue(f)
	}
	return Dyn{out}
}

// seriesUnary applies f to each element; a null or non-numeric element gives null,
// a NaN or infinity f computes is kept (as Kusto writes it: "NaN", "Infinity").
func seriesUnary(f func(float64) float64) *fnDef {
	return fixed(TDynamic, func(a []any) any {
		xs, valid, ok := nums(a[0])
		if !ok {
			return nil
		}
		out := make([]any, len(xs))
		for i := range xs {
			if valid[i] {
				out[i] = toJSONValue(f(xs[i]))
			}
		}
		return Dyn{out}
	}, TDynamic)
}

// seriesOperand is one operand of a binary series function: an array, or a scalar
// applied to every element.
type seriesOperand struct {
	xs     []any
	scalar bool
}

func (o seriesOperand) at(i int) (any, bool) {
	if o.scalar {
		return o.xs[0], true
	}
	if i < len(o.xs) {
		return o.xs[i], true
	}
	return nil, false
}

// seriesBinary applies f to two series element by element, or to a series and a
// scalar (the series_add page and its siblings): the result is as long as the longer
// series, an element missing from the shorter one or not numeric gives null. When
// intf is set and both elements are integers, intf computes a long.
func seriesBinary(f func(x, y float64) any, intf func(x, y int64) any) *fnDef {
	return &fnDef{min: 2, max: 2, ret: TDynamic, fn: func(a []any) any {
		get := func(v any) (seriesOperand, bool) {
			if d, isDyn := v.(Dyn); isDyn {
				if xs, ok := d.V.([]any); ok {
					return seriesOperand{xs: xs}, true
				}
				v = d.V
			}
			if v == nil {
				return seriesOperand{}, false
			}
			return seriesOperand{xs: []any{toJSONValue(v)}, scalar: true}, true
		}
		x, ok1 := get(a[0])
		y, ok2 := get(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		n := max(len(x.xs), len(y.xs))
		switch {
		case x.scalar && y.scalar:
			n = 1
		case x.scalar:
			n = len(y.xs)
		case y.scalar:
			n = len(x.xs)
		}
		out := make([]any, n)
		for i := range out {
			xe, okx := x.at(i)
			ye, oky := y.at(i)
			if !okx || !oky || xe == nil || ye == nil {
				continue
			}
			if intf != nil {
				if xi, ok := jsonInt(xe); ok {
					if yi, ok := jsonInt(ye); ok {
						out[i] = toJSONValue(intf(xi, yi))
						continue
					}
				}
			}
			xf, okx := toReal(Dyn{xe})
			yf, oky := toReal(Dyn{ye})
			if !okx || !oky {
				continue
			}
			out[i] = toJSONValue(f(xf, yf))
		}
		return Dyn{out}
	}}
}

// jsonInt reads a JSON integer (a number written without a fraction or exponent).
func jsonInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// seriesFuncs defines this file's functions (see library in funcs.go).
func seriesFuncs(def func(string, *fnDef)) {
	def("series_abs", seriesUnary(math.Abs))
	def("series_ceiling", seriesUnary(math.Ceil))
	def("series_floor", seriesUnary(math.Floor))
	def("series_sign", seriesUnary(func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}))
	def("series_sin", seriesUnary(math.Sin))
	def("series_cos", seriesUnary(math.Cos))
	def("series_tan", seriesUnary(math.Tan))
	def("series_asin", seriesUnary(math.Asin))
	def("series_acos", seriesUnary(math.Acos))
	def("series_atan", seriesUnary(math.Atan))
	def("series_exp", seriesUnary(math.Exp))
	def("series_log", seriesUnary(math.Log))
	def("series_add", seriesBinary(func(x, y float64) any { return x + y }, func(x, y int64) any { return x + y }))
	def("series_subtract", seriesBinary(func(x, y float64) any { return x - y }, func(x, y int64) any { return x - y }))
	def("series_multiply", seriesBinary(func(x, y float64) any { return x * y }, func(x, y int64) any { return x * y }))
	def("series_divide", seriesBinary(func(x, y float64) any { return x / y }, nil))
	def("series_pow", seriesBinary(func(x, y float64) any { return math.Pow(x, y) }, nil))
	def("series_greater", seriesBinary(func(x, y float64) any { return x > y }, nil))
	def("series_greater_equals", seriesBinary(func(x, y float64) any { return x >= y }, nil))
	def("series_less", seriesBinary(func(x, y float64) any { return x < y }, nil))
	def("series_less_equals", seriesBinary(func(x, y float64) any { return x <= y }, nil))
	def("series_equals", seriesBinary(func(x, y float64) any { return x == y }, nil))
	def("series_not_equals", seriesBinary(func(x, y float64) any { return x != y }, nil))
	def("series_sum", fixed(TReal, func(a []any) any {
		xs, valid, ok := nums(a[0])
		if !ok {
			return nil
		}
		var s float64
		for i, x := range xs {
			if valid[i] {
				s += x
			}
		}
		return s
	}, TDynamic))
	def("series_fill_const", &fnDef{min: 1, max: 3, args: []Type{TDynamic}, ret: TDynamic, fn: func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		var c any = json0
		if len(a) > 1 && a[1] != nil {
			c = toJSONValue(a[1])
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			if x == nil {
				out[i] = c
			} else {
				out[i] = x
			}
		}
		return Dyn{out}
	}})
	fill := func(forward bool) *fnDef {
		return &fnDef{min: 1, max: 2, args: []Type{TDynamic}, ret: TDynamic, fn: func(a []any) any {
			xs, ok := arr(a[0])
			if !ok {
				return nil
			}
			out := append([]any{}, xs...)
			var last any
			for k := range out {
				i := k
				if !forward {
					i = len(out) - 1 - k
				}
				if out[i] == nil {
					out[i] = last
				} else {
					last = out[i]
				}
			}
			return Dyn{out}
		}}
	}
	def("series_fill_forward", fill(true))
	def("series_fill_backward", fill(false))
	def("series_fill_linear", &fnDef{min: 1, max: 4, args: []Type{TDynamic, "", TBool, TReal}, ret: TDynamic, fn: fillLinear})
	def("series_pearson_correlation", fixed(TReal, func(a []any) any {
		x, xv, ok1 := nums(a[0])
		y, yv, ok2 := nums(a[1])
		if !ok1 || !ok2 || len(x) != len(y) || len(x) == 0 {
			return nil
		}
		c := &covAgg{kind: "corr"}
		for i := range x {
			if xv[i] && yv[i] {
				c.step([]any{x[i], y[i]})
			}
		}
		return c.done()
	}, TDynamic, TDynamic))
	def("series_iir", fixed(TDynamic, func(a []any) any {
		x, _, ok := nums(a[0])
		b, _, ok2 := nums(a[1])
		c, _, ok3 := nums(a[2])
		if !ok || !ok2 || !ok3 || len(c) == 0 || c[0] == 0 {
			return nil
		}
		y := make([]float64, len(x))
		for n := range x {
			var s float64
			for i := range b {
				if n-i >= 0 {
					s += b[i] * x[n-i]
				}
			}
			for j := 1; j < len(c); j++ {
				if n-j >= 0 {
					s -= c[j] * y[n-j]
				}
			}
			y[n] = s / c[0]
		}
		return realsDyn(y, nil)
	}, TDynamic, TDynamic, TDynamic))
	// series_seasonal(s[, period]): the median of the values at each position of the
	// period, repeated. The period -1 (the default) is the one series_periods_detect
	// finds with a score of at least 0.7 (zeros when none does); any other period that is
	// not positive gives zeros, as the reference says.
	def("series_seasonal", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TLong}, ret: TDynamic,
		partly: detectedPartly, fn: func(a []any) any {
			xs, valid, ok := nums(a[0])
			if !ok {
				return nil
			}
			period := long(a, 1, -1)
			switch {
			case period == -1:
				period = autoPeriod(xs, valid, seasonalThreshold)
			case period < 0:
				period = 0
			}
			return realsDyn(seasonal(xs, valid, len(xs), period), nil)
		}})
	// series_decompose(s[, seasonality[, trend[, test_points[, threshold]]]]) as the
	// reference defines it: the seasonal series (the median of the points in the same
	// phase of the period, 0 without one), the trend of what remains (its average, its
	// least-squares line, or none), baseline = seasonal + trend, residual = s − baseline;
	// the last test_points points are left out of the learning and extrapolated
	const decomposePartly = detectedPartly
	def("series_decompose", &fnDef{min: 1, max: 5, args: []Type{TDynamic, TLong, TString, TLong, TReal}, ret: TDynamic,
		outputs: outs("baseline", TDynamic, "seasonal", TDynamic, "trend", TDynamic, "residual", TDynamic), partly: decomposePartly,
		fn: func(a []any) any {
			return decomposed("series_decompose", a, 1, 4, "avg", long(a, 3, 0), func(d *decomposition) any {
				return Dyn{map[string]any{"baseline": realsDyn(d.baseline, nil).V, "seasonal": realsDyn(d.seasonal, nil).V,
					"trend": realsDyn(d.trend, nil).V, "residual": realsDyn(d.residual, d.valid).V}}
			})
		}})
	// series_decompose_forecast(s, points[, seasonality[, trend[, threshold]]]): the
	// baseline learnt on all but the last points, which it forecasts
	def("series_decompose_forecast", &fnDef{min: 2, max: 5, args: []Type{TDynamic, TLong, TLong, TString, TReal}, ret: TDynamic,
		partly: decomposePartly,
		fn: func(a []any) any {
			return decomposed("series_decompose_forecast", a, 2, 4, "linefit", long(a, 1, 0), func(d *decomposition) any {
				return realsDyn(d.baseline, nil)
			})
		}})
	// series_outliers(s[, kind[, ignore_val[, min_percentile[, max_percentile]]]]): each
	// value's distance beyond Tukey's fences in units of the inter-quantile range,
	// (x − Q_high)/IQR above, (x − Q_low)/IQR below, 0 between (and for nulls and the
	// ignored value); tukey uses the 25th/75th percentiles, ctukey (the default) 10th/90th
	// or the ones given.
	def("series_outliers", &fnDef{min: 1, max: 5, args: []Type{TDynamic, TString, TReal, TReal, TReal}, ret: TDynamic,
		partly: "percentiles interpolated linearly between ranks (Kusto's interpolation is not documented)", fn: func(a []any) any {
			xs, valid, ok := nums(a[0])
			if !ok {
				return nil
			}
			kind := "ctukey"
			if len(a) > 1 && a[1] != nil && str(a, 1) != "" {
				kind = strings.ToLower(str(a, 1))
			}
			lo, hi := 10.0, 90.0
			switch kind {
			case "tukey":
				lo, hi = 25, 75
			case "ctukey":
				if len(a) > 3 && a[3] != nil {
					lo, _ = toReal(a[3])
				}
				if len(a) > 4 && a[4] != nil {
					hi, _ = toReal(a[4])
				}
				if lo < 2 || hi > 98 || lo >= hi {
					return nil
				}
			default:
				return nil
			}
			ignore, hasIgnore := 0.0, false
			if len(a) > 2 && a[2] != nil {
				ignore, hasIgnore = toReal(a[2])
			}
			use := func(i int) bool { return valid[i] && !(hasIgnore && xs[i] == ignore) }
			return realsDyn(outlierScores(xs, use, lo, hi), nil)
		}})
	// series_decompose_anomalies(s[, threshold[, seasonality[, trend[, test_points[,
	// ad_method[, seasonality_threshold]]]]]]): series_decompose's residual scored by
	// series_outliers (ctukey: the 10th/90th percentiles, tukey: 25th/75th), flagged +1
	// or -1 past the threshold (1.5), with the baseline
	def("series_decompose_anomalies", &fnDef{min: 1, max: 7, args: []Type{TDynamic, TReal, TLong, TString, TLong, TString, TReal}, ret: TDynamic,
		outputs: outs("ad_flag", TDynamic, "ad_score", TDynamic, "baseline", TDynamic),
		partly:  decomposePartly + "; the scores' percentiles are interpolated linearly between ranks (Kusto's interpolation is not documented)",
		fn: func(a []any) any {
			return decomposed("series_decompose_anomalies", a, 2, 6, "avg", long(a, 4, 0), func(d *decomposition) any {
				threshold := 1.5
				if len(a) > 1 && a[1] != nil {
					threshold, _ = toReal(a[1])
				}
				lo, hi := 10.0, 90.0
				if len(a) > 5 && a[5] != nil {
					switch m := strings.ToLower(a[5].(string)); m {
					case "tukey":
						lo, hi = 25, 75
					case "ctukey":
					default:
						return fmt.Errorf("series_decompose_anomalies(): ad_method is ctukey or tukey, not %q", m)
					}
				}
				score := outlierScores(d.residual, func(i int) bool { return d.valid[i] && !math.IsNaN(d.residual[i]) }, lo, hi)
				flag := make([]float64, len(score))
				for i, sc := range score {
					switch {
					case sc > threshold:
						flag[i] = 1
					case sc < -threshold:
						flag[i] = -1
					}
				}
				return Dyn{map[string]any{"ad_flag": longsDyn(flag), "ad_score": realsDyn(score, nil).V, "baseline": realsDyn(d.baseline, nil).V}}
			})
		}})
}

var json0 any = toJSONValue(0.0)

// seriesBinFuncs defines this file's functions (see library in funcs.go).
func seriesBinFuncs(def func(string, *fnDef)) {
	def("series_nbins", &fnDef{min: 3, max: 3, ret: TLong, fn: func(a []any) any {
		from, ok1 := toReal(a[0])
		to, ok2 := toReal(a[1])
		step, ok3 := toReal(a[2])
		if !ok1 || !ok2 || !ok3 || step <= 0 || a[0] == nil || a[1] == nil {
			return nil
		}
		n := int64(math.Ceil((to - from) / step))
		if n < 0 {
			n = 0
		}
		if n > 1<<20 {
			return unsupportedError("make-series with more than 1048576 bins")
		}
		return n
	}})
	def("series_k", &fnDef{min: 3, max: 3, ret: TLong, fn: func(a []any) any {
		v, ok1 := toReal(a[0])
		from, ok2 := toReal(a[1])
		step, ok3 := toReal(a[2])
		if !ok1 || !ok2 || !ok3 || step <= 0 || a[0] == nil {
			return nil
		}
		return int64(math.Floor((v - from) / step))
	}})
	def("series_const", &fnDef{min: 2, max: 2, ret: TDynamic, fn: func(a []any) any {
		n, _ := toLong(a[0])
		out := make([]any, max(n, 0))
		for i := range out {
			out[i] = toDyn(a[1]).V
		}
		return Dyn{out}
	}})
	def("series_axis", &fnDef{min: 3, max: 3, ret: TDynamic, fn: func(a []any) any {
		n, _ := toLong(a[2])
		out := make([]any, 0, max(n, 0))
		for i := int64(0); i < n; i++ {
			switch from := a[0].(type) {
			case Datetime:
				s, _ := toTimespan(a[1])
				out = append(out, toJSONValue(from+Datetime(i*int64(s))))
			case Timespan:
				s, _ := toTimespan(a[1])
				out = append(out, toJSONValue(from+Timespan(i*int64(s))))
			case int64:
				s, _ := toLong(a[1])
				out = append(out, toJSONValue(from+i*s))
			default:
				f, _ := toReal(a[0])
				s, _ := toReal(a[1])
				out = append(out, toJSONValue(f+float64(i)*s))
			}
		}
		return Dyn{out}
	}})
}

func fillLinear(a []any) any {
	xs, ok := arr(a[0])
	if !ok {
		return nil
	}
	var missing any
	if len(a) > 1 && a[1] != nil {
		missing = toJSONValue(a[1])
	}
	isMissing := func(x any) bool {
		if x == nil {
			return true
		}
		return missing != nil && jsonText(x) == jsonText(missing)
	}
	fillEdges := true
	if len(a) > 2 {
		if b, ok := a[2].(bool); ok {
			fillEdges = b
		}
	}
	out := make([]any, len(xs))
	first, last := -1, -1
	ints := true
	for i, x := range xs {
		if !isMissing(x) {
			if first < 0 {
				first = i
			}
			last = i
			if getType(Dyn{x}) != "int" && getType(Dyn{x}) != "long" {
				ints = false
			}
		}
	}
	if first < 0 {
		// nothing to interpolate from: the constant (4th argument, default 0)
		c := json0
		if len(a) > 3 && a[3] != nil {
			c = toJSONValue(a[3])
		}
		for i := range out {
			out[i] = c
		}
		return Dyn{out}
	}
	num := func(f float64) any {
		if ints {
			return toJSONValue(int64(f))
		}
		return toJSONValue(f)
	}
	prev := first
	for i, x := range xs {
		switch {
		case !isMissing(x):
			out[i] = x
			prev = i
		case i < first || i > last:
			if fillEdges {
				if i < first {
					out[i] = num(mustReal(xs[first]))
				} else {
					out[i] = num(mustReal(xs[last]))
				}
			} else {
				out[i] = x
			}
		default:
			next := i + 1
			for isMissing(xs[next]) {
				next++
			}
			p, q := mustReal(xs[prev]), mustReal(xs[next])
			out[i] = num(q + (p-q)*float64(next-i)/float64(next-prev))
		}
	}
	return Dyn{out}
}

func mustReal(x any) float64 { f, _ := toReal(Dyn{x}); return f }

// median is the median of vs (the mean of the middle two for an even count), 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// quantile of sorted values, interpolated linearly between ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// seasonal is the seasonal series of xs for a period: each point the median of the
// valid points of its phase among the first learn points (0 for a phase without one,
// and everywhere when period is 0).
func seasonal(xs []float64, valid []bool, learn int, period int64) []float64 {
	out := make([]float64, len(xs))
	p := int(min(period, int64(len(xs))))
	if p <= 0 {
		return out
	}
	med := make([]float64, p)
	for ph := 0; ph < p; ph++ {
		var vs []float64
		for i := ph; i < learn; i += p {
			if valid[i] && !math.IsNaN(xs[i]) {
				vs = append(vs, xs[i])
			}
		}
		if len(vs) > 0 {
			med[ph] = median(vs)
		}
	}
	for i := range out {
		out[i] = med[i%p]
	}
	return out
}

// decomposition is a series split as series_decompose splits it.
type decomposition struct {
	baseline, seasonal, trend, residual []float64
	valid                               []bool
}

// decomposed decomposes as decomposeArgs does and answers out(d): an argument error is
// the answer, and a value that is no series null.
func decomposed(name string, a []any, at, thresholdAt int, trend string, test int64, out func(d *decomposition) any) any {
	d, err := decomposeArgs(name, a, at, thresholdAt, trend, test)
	if err != nil {
		return err
	}
	if d == nil {
		return nil
	}
	return out(d)
}

// decomposeArgs reads series_decompose's arguments from a[0] and a[at:] (seasonality,
// trend) and a[thresholdAt] (Seasonality_threshold) and decomposes the series, leaving
// its last test points out of the learning. A negative seasonality (-1, the default)
// is the period series_periods_detect finds in the learning points with a score of at
// least the threshold (0.6 by default), none when no period reaches it.
func decomposeArgs(name string, a []any, at, thresholdAt int, trend string, test int64) (*decomposition, error) {
	xs, valid, ok := nums(a[0])
	if !ok {
		return nil, nil
	}
	if test < 0 {
		return nil, fmt.Errorf("%s(): the test points are not negative", name)
	}
	n := len(xs)
	learn := max(0, n-int(test))
	period := long(a, at, -1)
	if period < 0 {
		threshold := autoSeasonalityThreshold
		if len(a) > thresholdAt && a[thresholdAt] != nil {
			threshold, _ = toReal(a[thresholdAt])
		}
		period = autoPeriod(xs[:learn], valid[:learn], threshold)
	}
	if len(a) > at+1 && a[at+1] != nil {
		trend = strings.ToLower(a[at+1].(string))
	}
	if trend != "avg" && trend != "linefit" && trend != "none" {
		return nil, fmt.Errorf("%s(): trend is avg, linefit or none, not %q", name, trend)
	}
	d := &decomposition{seasonal: seasonal(xs, valid, learn, period), valid: valid,
		trend: make([]float64, n), baseline: make([]float64, n), residual: make([]float64, n)}
	rest := make([]float64, n)
	inLearn := make([]bool, n)
	for i := range xs {
		rest[i] = xs[i] - d.seasonal[i]
		inLearn[i] = i < learn && valid[i] && !math.IsNaN(xs[i])
	}
	switch trend {
	case "avg":
		var sum, c float64
		for i, ok := range inLearn {
			if ok {
				sum, c = sum+rest[i], c+1
			}
		}
		if c > 0 {
			for i := range d.trend {
				d.trend[i] = sum / c
			}
		}
	case "linefit":
		copy(d.trend, fitLineOn(rest, inLearn).fit)
	}
	for i := range xs {
		d.baseline[i] = d.seasonal[i] + d.trend[i]
		d.residual[i] = xs[i] - d.baseline[i]
	}
	return d, nil
}

// outlierScores scores each used point of xs by its distance beyond the fences of the
// lo-th and hi-th percentiles of the used points, in units of their distance: (x − Q_hi)/IQR
// above, (x − Q_lo)/IQR below, 0 between and for unused points.
func outlierScores(xs []float64, use func(int) bool, lo, hi float64) []float64 {
	var vs []float64
	for i := range xs {
		if use(i) {
			vs = append(vs, xs[i])
		}
	}
	out := make([]float64, len(xs))
	if len(vs) == 0 {
		return out
	}
	slices.Sort(vs)
	ql, qh := quantile(vs, lo/100), quantile(vs, hi/100)
	iqr := qh - ql
	for i, x := range xs {
		switch {
		case !use(i) || iqr == 0:
		case x > qh:
			out[i] = (x - qh) / iqr
		case x < ql:
			out[i] = (x - ql) / iqr
		}
	}
	return out
}

// longsDyn is a series of whole numbers as a dynamic array of longs.
func longsDyn(fs []float64) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		out[i] = int64(f)
	}
	return out
}
