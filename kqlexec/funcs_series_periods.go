package kqlexec

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"
)

// Period detection: series_periods_detect, series_periods_validate, and the period
// that series_decompose, series_decompose_anomalies, series_decompose_forecast and
// series_seasonal find by themselves (seasonality -1, the default).
//
// The reference defines what these return: periods in bins, each with a score between 0
// and 1 that measures its significance; periods of at least 4 bins and at most half
// the series; series_periods_validate scores 0 outside those bounds; series_decompose
// and its siblings take the best period whose score reaches a threshold (0.6, or the
// Seasonality_threshold argument; series_seasonal 0.7) and no seasonal component when
// none does. How Kusto scores a period is its own and not documented. The rules chosen
// here, each a standard estimate, and checked against the reference's worked examples
// (a 60-point series whose only period is 14 bins; series of 25 and 20 points with
// periods 6 and 5 that reach 0.7; a 12-point series of period 6 that is too short):
//
//   - The score of a period of p bins is the series' autocorrelation at lag p: the
//     series less its least-squares line (a trend is not a period), the mean product
//     of the points p bins apart over the pairs where both are numbers, divided by the
//     mean square of all of them (the unbiased lag covariance over the variance).
//     Nulls, non-numbers and non-finite numbers are left out of both; a score above 1
//     is 1. A series whose variance about its line is nil (constant or a straight
//     line) has no period.
//   - A period must be a peak of that autocorrelation: higher than at the lags up to
//     a quarter period shorter and at least as high as at those up to a quarter period
//     longer (ties go to the shorter period), with at least one longer lag to show that
//     it falls again. So a lag next to a strong period (14 ± 2 in a series that also
//     alternates every bin) is not a period of its own, and neither is the longest lag
//     read, ⌊n/2⌋: a period of half the series has only its left side and is never
//     confirmed (the reference's 12-point series).
//   - A peak lower than twice the standard error of white noise's autocorrelation
//     (2/√pairs) scores 0: noise alone reaches it one time in twenty.
//   - series_periods_detect reports a multiple of another peak (a lag within k/2 of
//     k times a shorter one, k ≥ 2, the rounding of k repeats of a whole lag) only when
//     it scores higher than that shorter period by more than its own standard error
//     (1/√pairs): every multiple of a period is a period too, and reporting the
//     multiple adds something only when the longer repeat is the better one (a weekly
//     pattern over a daily one). The peaks at 2 and 3 bins count as shorter periods
//     here, so a series that repeats every 2 or 3 bins has no period to report (the
//     reference finds none under 4). series_periods_validate scores the multiple
//     itself.
//   - Candidate periods are the whole lags from max(4, ⌈min_period⌉) to
//     min(⌊n/2⌋, ⌊max_period⌋); series_periods_validate rounds a period it is given to
//     the nearest lag (and reports the period as given). series_periods_detect pads
//     its arrays to num_periods with 0 periods scoring 0 (the reference's example).
//   - series_decompose and its siblings detect over the whole range (4 bins to half the
//     series) in the points they learn from: the test points of series_decompose and
//     series_decompose_anomalies and the forecast points of series_decompose_forecast
//     (make-series' empty slots, often 0) are left out of the detection as they are
//     left out of the learning. A seasonality below 0 other than -1 is also detected;
//     series_seasonal gives zeros for it, as its page says.

// periodsPartly is what Support says of the functions that score periods, and
// detectedPartly of those that use the period detected with seasonality -1.
const (
	periodsPartly  = "a score is the series' autocorrelation at a peak (Kusto's scoring is not documented): the scores differ from Kusto's, and a borderline period may"
	detectedPartly = "the period detected with seasonality -1 (the default) is scored by the series' autocorrelation (Kusto's scoring is not documented): a borderline period may differ"
)

const (
	// minPeriod is the shortest period the reference lets the algorithm find.
	minPeriod = 4
	// maxValidatedPeriods is how many periods series_periods_validate takes.
	maxValidatedPeriods = 16
	// maxNumPeriods bounds series_periods_detect's num_periods, the length of its arrays.
	maxNumPeriods = 1 << 12
	// directACFMax is the longest series whose autocorrelation is summed directly;
	// longer ones go through the Fourier transform (O(n log n)).
	directACFMax = 1024
	// autoSeasonalityThreshold is series_decompose's default score threshold, and
	// seasonalThreshold series_seasonal's.
	autoSeasonalityThreshold = 0.6
	seasonalThreshold        = 0.7
)

// seriesACF is a series' autocorrelation at lags 0..maxLag (NaN where fewer than two
// pairs of numbers are that far apart), with the number of pairs at each lag.
type seriesACF struct {
	r      []float64
	pairs  []int
	maxLag int
}

// newSeriesACF computes the autocorrelation of xs (valid marks its numbers) up to
// lag ⌊len/2⌋, as the comment at the top of this file defines it.
func newSeriesACF(xs []float64, valid []bool) *seriesACF {
	n := len(xs)
	a := &seriesACF{maxLag: n / 2}
	a.r = make([]float64, a.maxLag+1)
	a.pairs = make([]int, a.maxLag+1)
	for i := range a.r {
		a.r[i] = math.NaN()
	}
	ok := make([]bool, n)
	m := 0
	var scale float64
	for i, x := range xs {
		if valid[i] && !math.IsNaN(x) && !math.IsInf(x, 0) {
			ok[i] = true
			m++
			scale += x * x
		}
	}
	if m < 2 {
		return a
	}
	line := fitLineOn(xs, ok).fit
	d := make([]float64, n)
	var ss float64
	for i := range xs {
		if ok[i] {
			d[i] = xs[i] - line[i]
			ss += d[i] * d[i]
		}
	}
	// a residual that is only rounding (a constant or a straight line) is no signal
	if ss <= 1e-20*scale || ss == 0 {
		return a
	}
	variance := ss / float64(m)
	sums, counts := lagSums(d, ok, a.maxLag)
	for lag := 0; lag <= a.maxLag; lag++ {
		a.pairs[lag] = counts[lag]
		if counts[lag] >= 2 {
			a.r[lag] = sums[lag] / float64(counts[lag]) / variance
		}
	}
	return a
}

// lagSums returns, for each lag up to maxLag, the sum of d[i]·d[i+lag] and the number
// of pairs where both points are numbers (d is 0 where ok is false).
func lagSums(d []float64, ok []bool, maxLag int) ([]float64, []int) {
	if len(d) <= directACFMax {
		return lagSumsDirect(d, ok, maxLag)
	}
	return lagSumsFourier(d, ok, maxLag)
}

// lagSumsDirect is lagSums summed pair by pair, O(n·maxLag).
func lagSumsDirect(d []float64, ok []bool, maxLag int) ([]float64, []int) {
	n := len(d)
	sums := make([]float64, maxLag+1)
	counts := make([]int, maxLag+1)
	for lag := 0; lag <= maxLag; lag++ {
		for i := 0; i+lag < n; i++ {
			if ok[i] && ok[i+lag] {
				sums[lag] += d[i] * d[i+lag]
				counts[lag]++
			}
		}
	}
	return sums, counts
}

// lagSumsFourier is lagSums as the inverse transform of the power spectrum (of the
// series, and of its marks of numbers for the counts), padded to twice the length so
// that the lags do not wrap around: O(n log n). Both real sequences go through one
// complex transform (the series as the real part, the marks as the imaginary part),
// split by the symmetry of a real sequence's transform, X(k) and conj(X(size−k)); the
// two power spectra, both real, come back through one inverse transform the same way.
func lagSumsFourier(d []float64, ok []bool, maxLag int) ([]float64, []int) {
	n := len(d)
	sums := make([]float64, maxLag+1)
	counts := make([]int, maxLag+1)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	x := make([]complex128, size)
	for i := 0; i < n; i++ {
		mark := 0.0
		if ok[i] {
			mark = 1
		}
		x[i] = complex(d[i], mark)
	}
	y := fourier(x, false)
	p := make([]complex128, size)
	for k := range y {
		mirror := cmplx.Conj(y[(size-k)%size])
		dk := (y[k] + mirror) / 2  // the series' transform
		mk := (y[k] - mirror) / 2i // the marks' transform
		p[k] = complex(real(dk)*real(dk)+imag(dk)*imag(dk), real(mk)*real(mk)+imag(mk)*imag(mk))
	}
	z := fourier(p, true)
	for lag := 0; lag <= maxLag; lag++ {
		sums[lag] = real(z[lag])
		counts[lag] = int(math.Round(imag(z[lag])))
	}
	return sums, counts
}

// score is the score of a period of p bins (0 when p is no peak, see the top of
// this file).
func (a *seriesACF) score(p int) float64 {
	if p < minPeriod {
		return 0
	}
	return a.peak(p)
}

// peak is the autocorrelation at lag p when it is a significant peak, else 0.
func (a *seriesACF) peak(p int) float64 {
	if p < 2 || p > a.maxLag {
		return 0
	}
	r := a.r[p]
	if math.IsNaN(r) || r <= 0 || r < 2/math.Sqrt(float64(a.pairs[p])) {
		return 0
	}
	w := max(1, p/4)
	hi := min(p+w, a.maxLag)
	if hi == p {
		return 0
	}
	for q := max(1, p-w); q <= hi; q++ {
		switch rq := a.r[q]; {
		case q < p && rq >= r, q > p && rq > r:
			return 0
		}
	}
	return min(r, 1)
}

// detectedPeriod is one period series_periods_detect finds, with its score.
type detectedPeriod struct {
	period int
	score  float64
}

// detect finds the periods between lo and hi bins (see the top of this file), the best
// first.
func (a *seriesACF) detect(lo, hi float64) []detectedPeriod {
	from := max(minPeriod, int(math.Ceil(lo)))
	to := a.maxLag
	if hi < float64(to) {
		to = int(math.Floor(hi))
	}
	var cands []detectedPeriod
	for p := from; p <= to; p++ {
		if s := a.score(p); s > 0 {
			cands = append(cands, detectedPeriod{p, s})
		}
	}
	// the divisors a multiple is checked against: the candidates, and the peaks at 2 and
	// 3 bins (a series that repeats every 3 bins has no period of 4 or more of its own)
	var divisors []detectedPeriod
	for p := 2; p < from; p++ {
		if s := a.peak(p); s > 0 {
			divisors = append(divisors, detectedPeriod{p, s})
		}
	}
	divisors = append(divisors, cands...)
	var out []detectedPeriod
	for _, q := range cands {
		multiple := false
		for _, p := range divisors {
			if p.period >= q.period {
				break
			}
			k := math.Round(float64(q.period) / float64(p.period))
			if k >= 2 && math.Abs(float64(q.period)-k*float64(p.period)) <= k/2 &&
				q.score <= p.score+1/math.Sqrt(float64(a.pairs[q.period])) {
				multiple = true
				break
			}
		}
		if !multiple {
			out = append(out, q)
		}
	}
	slices.SortStableFunc(out, func(x, y detectedPeriod) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return x.period - y.period
	})
	return out
}

// autoPeriod is the period series_decompose and its siblings use with seasonality -1:
// the best period series_periods_detect finds over the whole range (4 bins to half
// the series) when its score reaches threshold, else 0 (no seasonal component).
func autoPeriod(xs []float64, valid []bool, threshold float64) int64 {
	found := newSeriesACF(xs, valid).detect(0, math.Inf(1))
	if len(found) == 0 || found[0].score < threshold {
		return 0
	}
	return int64(found[0].period)
}

// seriesPeriodsFuncs defines series_periods_detect and series_periods_validate.
func seriesPeriodsFuncs(def func(string, *fnDef)) {
	o := outs("periods", TDynamic, "scores", TDynamic)
	// series_periods_detect(series, min_period, max_period, num_periods): the periods
	// found, the best first, and their scores, each array num_periods long (0 and 0
	// where fewer are found)
	def("series_periods_detect", &fnDef{min: 4, max: 4, args: []Type{TDynamic, TReal, TReal, TLong}, ret: TDynamic, outputs: o, partly: periodsPartly,
		fn: func(a []any) any {
			xs, valid, ok := nums(a[0])
			if !ok {
				return nil
			}
			lo, ok1 := toReal(a[1])
			hi, ok2 := toReal(a[2])
			num, ok3 := toLong(a[3])
			if !ok1 || !ok2 || !ok3 || a[1] == nil || a[2] == nil || a[3] == nil {
				return nil
			}
			if num < 0 || num > maxNumPeriods {
				return fmt.Errorf("series_periods_detect(): num_periods is between 0 and %d, not %d", maxNumPeriods, num)
			}
			found := newSeriesACF(xs, valid).detect(lo, hi)
			periods, scores := make([]any, num), make([]any, num)
			for i := range periods {
				p, s := 0.0, 0.0
				if i < len(found) {
					p, s = float64(found[i].period), found[i].score
				}
				periods[i], scores[i] = toJSONValue(p), toJSONValue(s)
			}
			return Dyn{map[string]any{"periods": periods, "scores": scores}}
		}})
	// series_periods_validate(series, period1[, period2, ...]): each period as given
	// and its score (0 outside 4 bins to half the series, or for a null period)
	def("series_periods_validate", &fnDef{min: 2, max: 1 + maxValidatedPeriods, args: []Type{TDynamic}, rest: TReal, ret: TDynamic, outputs: o, partly: periodsPartly,
		fn: func(a []any) any {
			xs, valid, ok := nums(a[0])
			if !ok {
				return nil
			}
			acf := newSeriesACF(xs, valid)
			periods, scores := make([]any, len(a)-1), make([]any, len(a)-1)
			for i, v := range a[1:] {
				p, ok := toReal(v)
				s := 0.0
				if v != nil && ok && p >= minPeriod && p <= float64(len(xs))/2 {
					s = acf.score(int(math.Round(p)))
				}
				if v == nil || !ok {
					periods[i] = nil
				} else {
					periods[i] = toJSONValue(p)
				}
				scores[i] = toJSONValue(s)
			}
			return Dyn{map[string]any{"periods": periods, "scores": scores}}
		}})
}
