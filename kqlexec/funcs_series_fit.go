package kqlexec

import "math"

// Regression and statistics over a series: series_fit_line, series_fit_2lines,
// series_fit_poly and series_stats, each as columns (outputs.go) and as a dynamic bag.
// Variances are sample variances (n − 1), as Kusto reports them.

// lineFit is one least-squares line y = slope·x + interception on x = 1..n.
type lineFit struct {
	rsquare, slope, interception, variance, rvariance float64
	fit                                               []float64
	ssTot, ssRes                                      float64
}

// fitLineOn fits ys (valid marks the values that count) on x = 1..len(ys).
func fitLineOn(ys []float64, valid []bool) lineFit {
	var n, sx, sy, sxx, sxy float64
	for i, y := range ys {
		if !valid[i] {
			continue
		}
		x := float64(i + 1)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	var f lineFit
	if n == 0 {
		return lineFit{rsquare: math.NaN(), slope: math.NaN(), interception: math.NaN(), variance: math.NaN(), rvariance: math.NaN(),
			fit: make([]float64, len(ys))}
	}
	if d := n*sxx - sx*sx; d != 0 {
		f.slope = (n*sxy - sx*sy) / d
	}
	f.interception = (sy - f.slope*sx) / n
	mean := sy / n
	f.fit = make([]float64, len(ys))
	for i, y := range ys {
		f.fit[i] = f.interception + f.slope*float64(i+1)
		if valid[i] {
			f.ssTot += (y - mean) * (y - mean)
			f.ssRes += (y - f.fit[i]) * (y - f.fit[i])
		}
	}
	f.rsquare = rsquare(f.ssRes, f.ssTot)
	f.variance, f.rvariance = sampleVar(f.ssTot, n), sampleVar(f.ssRes, n)
	return f
}

func rsquare(ssRes, ssTot float64) float64 {
	if ssTot == 0 {
		if ssRes == 0 {
			return 1
		}
		return 0
	}
	return 1 - ssRes/ssTot
}

func sampleVar(ss, n float64) float64 {
	if n < 2 {
		return 0
	}
	return ss / (n - 1)
}

func (f lineFit) bag(withFit bool) map[string]any {
	m := map[string]any{"rsquare": toJSONValue(f.rsquare), "slope": toJSONValue(f.slope), "variance": toJSONValue(f.variance),
		"rvariance": toJSONValue(f.rvariance), "interception": toJSONValue(f.interception)}
	if withFit {
		m["line_fit"] = realsDyn(f.fit, nil).V
	}
	return m
}

func fitLine(v any) map[string]any {
	ys, valid, ok := nums(v)
	if !ok || len(ys) == 0 {
		return nil
	}
	return fitLineOn(ys, valid).bag(true)
}

// fit2Lines splits ys where two lines (each fitted from x = 1 on its own part) give
// the highest total r-square; split is the first index of the right part.
func fit2Lines(v any) map[string]any {
	ys, valid, ok := nums(v)
	if !ok || len(ys) < 4 {
		return nil
	}
	all := fitLineOn(ys, valid)
	best, split := math.Inf(-1), -1
	var left, right lineFit
	for k := 2; k <= len(ys)-2; k++ {
		l, r := fitLineOn(ys[:k], valid[:k]), fitLineOn(ys[k:], valid[k:])
		if rs := rsquare(l.ssRes+r.ssRes, all.ssTot); rs > best {
			best, split, left, right = rs, k, l, r
		}
	}
	if split < 0 {
		return nil
	}
	fit := append(append([]float64{}, left.fit...), right.fit...)
	n := 0.0
	for _, ok := range valid {
		if ok {
			n++
		}
	}
	return map[string]any{
		"rsquare": toJSONValue(best), "split_idx": toJSONValue(int64(split)), "variance": toJSONValue(all.variance),
		"rvariance": toJSONValue(sampleVar(left.ssRes+right.ssRes, n)), "line_fit": realsDyn(fit, nil).V,
		"right": right.bag(false), "left": left.bag(false),
	}
}

// fit2LinesFlat is fit2Lines with the sides' fields as right_… and left_… keys.
func fit2LinesFlat(v any) map[string]any {
	m := fit2Lines(v)
	if m == nil {
		return nil
	}
	for _, side := range []string{"right", "left"} {
		for k, x := range m[side].(map[string]any) {
			m[side+"_"+k] = x
		}
		delete(m, side)
	}
	return m
}

// fitPoly is least squares of ys on a polynomial of x of the given degree; the
// coefficients run from the highest power down.
func fitPoly(yv, xv any, degree int) map[string]any {
	ys, yok, ok := nums(yv)
	if !ok || len(ys) == 0 || degree < 1 || degree > 32 {
		return nil
	}
	xs := make([]float64, len(ys))
	xok := make([]bool, len(ys))
	if xv != nil {
		x, v, ok := nums(xv)
		if !ok || len(x) != len(ys) {
			return nil
		}
		xs, xok = x, v
	} else {
		for i := range xs {
			xs[i], xok[i] = float64(i+1), true
		}
	}
	// normal equations A·c = b with A[i][j] = Σ x^(i+j), b[i] = Σ x^i·y (c[i] is the
	// coefficient of x^i), solved by Gaussian elimination with partial pivoting
	m := degree + 1
	a := make([][]float64, m)
	for i := range a {
		a[i] = make([]float64, m+1)
	}
	var n, sy float64
	for k, y := range ys {
		if !yok[k] || !xok[k] {
			continue
		}
		n++
		sy += y
		p := make([]float64, 2*m)
		p[0] = 1
		for e := 1; e < len(p); e++ {
			p[e] = p[e-1] * xs[k]
		}
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				a[i][j] += p[i+j]
			}
			a[i][m] += p[i] * y
		}
	}
	if n == 0 {
		return nil
	}
	c, ok := solve(a)
	if !ok {
		return nil
	}
	mean := sy / n
	fit := make([]float64, len(ys))
	var ssTot, ssRes float64
	for k := range ys {
		v := 0.0
		for i := m - 1; i >= 0; i-- {
			v = v*xs[k] + c[i]
		}
		fit[k] = v
		if yok[k] && xok[k] {
			ssTot += (ys[k] - mean) * (ys[k] - mean)
			ssRes += (ys[k] - v) * (ys[k] - v)
		}
	}
	coef := make([]float64, m)
	for i := range c {
		coef[m-1-i] = c[i]
	}
	return map[string]any{"rsquare": toJSONValue(rsquare(ssRes, ssTot)), "coefficients": realsDyn(coef, nil).V,
		"variance": toJSONValue(sampleVar(ssTot, n)), "rvariance": toJSONValue(sampleVar(ssRes, n)), "poly_fit": realsDyn(fit, nil).V}
}

// solve solves an augmented m×(m+1) system in place.
func solve(a [][]float64) ([]float64, bool) {
	m := len(a)
	for col := 0; col < m; col++ {
		p := col
		for r := col + 1; r < m; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if a[p][col] == 0 {
			return nil, false
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < m; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k <= m; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	x := make([]float64, m)
	for r := m - 1; r >= 0; r-- {
		s := a[r][m]
		for k := r + 1; k < m; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// seriesStats is min, min_idx, max, max_idx, avg, stdev and variance of a series. A
// null or non-finite value makes every statistic null unless ignoreNonfinite.
func seriesStats(v any, ignoreNonfinite bool) map[string]any {
	xs, valid, ok := nums(v)
	if !ok {
		return nil
	}
	var n, sum float64
	minI, maxI := -1, -1
	for i, x := range xs {
		if !valid[i] || math.IsInf(x, 0) || math.IsNaN(x) {
			if !ignoreNonfinite {
				return map[string]any{"min": nil, "min_idx": nil, "max": nil, "max_idx": nil, "avg": nil, "stdev": nil, "variance": nil}
			}
			continue
		}
		n++
		sum += x
		if minI < 0 || x < xs[minI] {
			minI = i
		}
		if maxI < 0 || x > xs[maxI] {
			maxI = i
		}
	}
	if n == 0 {
		return map[string]any{"min": nil, "min_idx": nil, "max": nil, "max_idx": nil, "avg": nil, "stdev": nil, "variance": nil}
	}
	avg := sum / n
	var ss float64
	for i, x := range xs {
		if valid[i] && !math.IsInf(x, 0) && !math.IsNaN(x) {
			ss += (x - avg) * (x - avg)
		}
	}
	variance := sampleVar(ss, n)
	return map[string]any{"min": toJSONValue(xs[minI]), "min_idx": toJSONValue(int64(minI)), "max": toJSONValue(xs[maxI]),
		"max_idx": toJSONValue(int64(maxI)), "avg": toJSONValue(avg), "stdev": toJSONValue(math.Sqrt(variance)), "variance": toJSONValue(variance)}
}

func bagOrNull(m map[string]any) any {
	if m == nil {
		return nil
	}
	return Dyn{m}
}

// seriesFitFuncs defines this file's functions (see library in funcs.go).
func seriesFitFuncs(def func(string, *fnDef)) {
	lineOuts := outs("rsquare", TReal, "slope", TReal, "variance", TReal, "rvariance", TReal, "interception", TReal, "line_fit", TDynamic)
	def("series_fit_line", &fnDef{min: 1, max: 1, args: []Type{TDynamic}, ret: TDynamic, outputs: lineOuts,
		fn: func(a []any) any { return bagOrNull(fitLine(a[0])) }})
	def("series_fit_line_dynamic", fixed(TDynamic, func(a []any) any { return bagOrNull(fitLine(a[0])) }, TDynamic))
	side := func(s string) []any {
		return []any{s + "_rsquare", TReal, s + "_slope", TReal, s + "_interception", TReal, s + "_variance", TReal, s + "_rvariance", TReal}
	}
	twoOuts := outs(append(append([]any{"rsquare", TReal, "split_idx", TLong, "variance", TReal, "rvariance", TReal, "line_fit", TDynamic},
		side("right")...), side("left")...)...)
	def("series_fit_2lines", &fnDef{min: 1, max: 1, args: []Type{TDynamic}, ret: TDynamic, outputs: twoOuts,
		fn: func(a []any) any { return bagOrNull(fit2LinesFlat(a[0])) }})
	def("series_fit_2lines_dynamic", fixed(TDynamic, func(a []any) any { return bagOrNull(fit2Lines(a[0])) }, TDynamic))
	def("series_fit_poly", &fnDef{min: 1, max: 3, args: []Type{TDynamic, TDynamic, TLong}, ret: TDynamic,
		outputs: outs("rsquare", TReal, "coefficients", TDynamic, "variance", TReal, "rvariance", TReal, "poly_fit", TDynamic),
		fn: func(a []any) any {
			var x any
			if len(a) > 1 {
				x = a[1]
			}
			degree := int64(1)
			if len(a) > 2 && a[2] != nil {
				degree = a[2].(int64)
			}
			return bagOrNull(fitPoly(a[0], x, int(degree)))
		}})
	statOuts := outs("min", TReal, "min_idx", TLong, "max", TReal, "max_idx", TLong, "avg", TReal, "stdev", TReal, "variance", TReal)
	stats := func(a []any) any {
		ignore := len(a) > 1 && a[1] == true
		return bagOrNull(seriesStats(a[0], ignore))
	}
	def("series_stats", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TBool}, ret: TDynamic, outputs: statOuts, fn: stats})
	// series_stats_dynamic's bag also has sum and len (its page's output)
	def("series_stats_dynamic", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TBool}, ret: TDynamic, fn: func(a []any) any {
		ignore := len(a) > 1 && a[1] == true
		m := seriesStats(a[0], ignore)
		if m == nil {
			return nil
		}
		m["sum"], m["len"] = nil, nil
		if m["avg"] != nil {
			xs, valid, _ := nums(a[0])
			var sum float64
			for i, x := range xs {
				if valid[i] && !math.IsInf(x, 0) && !math.IsNaN(x) {
					sum += x
				}
			}
			m["sum"], m["len"] = toJSONValue(sum), toJSONValue(int64(len(xs)))
		}
		return Dyn{m}
	}})
}

// seriesPair reads two series for an element-wise reduction: a number as the second
// argument stands for every element; the longer series is cut to the shorter one.
// Elements that are not numbers on either side are left out (ok false for non-arrays).
func seriesPair(a, b any) (xs, ys []float64, ok bool) {
	x, xv, ok := nums(a)
	if !ok {
		return nil, nil, false
	}
	var y []float64
	var yv []bool
	if _, isDyn := b.(Dyn); isDyn {
		if y, yv, ok = nums(b); !ok {
			return nil, nil, false
		}
	} else {
		f, ok := toReal(b)
		if !ok {
			return nil, nil, false
		}
		y, yv = make([]float64, len(x)), make([]bool, len(x))
		for i := range y {
			y[i], yv[i] = f, true
		}
	}
	n := min(len(x), len(y))
	for i := 0; i < n; i++ {
		if xv[i] && yv[i] {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	return xs, ys, true
}

// seriesFIR is series_fir(x, filter [, normalize [, center]]): each point is the sum
// of the filter's coefficients times the point and those before it (around it with
// center), missing points 0. normalize divides by the coefficients' sum; it defaults to
// true unless a coefficient is negative, and a negative one with normalize is null.
func seriesFIR(a []any) any {
	xs, xv, ok := nums(a[0])
	f, _, ok2 := nums(a[1])
	if !ok || !ok2 || len(f) == 0 {
		return nil
	}
	neg := false
	var sum float64
	for _, c := range f {
		neg = neg || c < 0
		sum += c
	}
	normalize := !neg
	if len(a) > 2 && a[2] != nil {
		normalize, _ = a[2].(bool)
	}
	if normalize && (neg || sum == 0) {
		return nil
	}
	shift := 0
	if len(a) > 3 && a[3] == true {
		shift = (len(f) - 1) / 2
	}
	out := make([]float64, len(xs))
	for i := range xs {
		var y float64
		for j, c := range f {
			k := i - j + shift
			if k >= 0 && k < len(xs) && xv[k] {
				y += c * xs[k]
			}
		}
		if normalize {
			y /= sum
		}
		out[i] = y
	}
	return realsDyn(out, nil)
}

// seriesReduceFuncs defines series_dot_product, series_cosine_similarity,
// series_magnitude and series_product.
func seriesReduceFuncs(def func(string, *fnDef)) {
	def("series_fir", &fnDef{min: 2, max: 4, args: []Type{TDynamic, TDynamic, TBool, TBool}, ret: TDynamic, fn: seriesFIR})
	def("series_dot_product", &fnDef{min: 2, max: 2, ret: TReal, fn: func(a []any) any {
		xs, ys, ok := seriesPair(a[0], a[1])
		if !ok {
			return nil
		}
		var s float64
		for i := range xs {
			s += xs[i] * ys[i]
		}
		return s
	}})
	def("series_cosine_similarity", &fnDef{min: 2, max: 4, ret: TReal, fn: func(a []any) any {
		xs, ys, ok := seriesPair(a[0], a[1])
		if !ok {
			return nil
		}
		var dot, nx, ny float64
		for i := range xs {
			dot += xs[i] * ys[i]
			nx += xs[i] * xs[i]
			ny += ys[i] * ys[i]
		}
		mx, my := math.Sqrt(nx), math.Sqrt(ny)
		if len(a) == 4 {
			if f, ok := toReal(a[2]); ok {
				mx = f
			}
			if f, ok := toReal(a[3]); ok {
				my = f
			}
		}
		if mx == 0 || my == 0 {
			return nil
		}
		return dot / (mx * my)
	}})
	reduce := func(start float64, step func(acc, x float64) float64, done func(float64) float64) *fnDef {
		return fixed(TReal, func(a []any) any {
			xs, valid, ok := nums(a[0])
			if !ok {
				return nil
			}
			acc := start
			for i, x := range xs {
				if valid[i] {
					acc = step(acc, x)
				}
			}
			return done(acc)
		}, TDynamic)
	}
	def("series_magnitude", reduce(0, func(acc, x float64) float64 { return acc + x*x }, math.Sqrt))
	def("series_product", reduce(1, func(acc, x float64) float64 { return acc * x }, func(x float64) float64 { return x }))
}
