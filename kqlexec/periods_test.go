package kqlexec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// Period detection (funcs_series_periods.go) on series whose periods are known by
// construction.

func allValid(xs []float64) []bool {
	v := make([]bool, len(xs))
	for i, x := range xs {
		v[i] = !math.IsNaN(x)
	}
	return v
}

func series(n int, f func(i int) float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f(i)
	}
	return xs
}

func sine(period float64) func(i int) float64 {
	return func(i int) float64 { return math.Sin(2 * math.Pi * float64(i) / period) }
}

func detectAll(xs []float64, lo, hi float64) []detectedPeriod {
	return newSeriesACF(xs, allValid(xs)).detect(lo, hi)
}

func periodsOf(found []detectedPeriod) []int {
	out := make([]int, len(found))
	for i, f := range found {
		out[i] = f.period
	}
	return out
}

func TestPeriods_KnownPeriods(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	square := func(half int) func(i int) float64 {
		return func(i int) float64 {
			if (i/half)%2 == 0 {
				return 1
			}
			return -1
		}
	}
	cases := []struct {
		name string
		xs   []float64
		want int
	}{
		{"sine 10", series(200, sine(10)), 10},
		{"sine 10 with noise", series(200, func(i int) float64 { return sine(10)(i) + 0.3*r.NormFloat64() }), 10},
		{"square 12", series(200, square(6)), 12},
		{"sine 10 on a steep trend", series(200, func(i int) float64 { return sine(10)(i) + 0.2*float64(i) }), 10},
		{"sine 7.5 (between whole bins)", series(300, sine(7.5)), 15},
		{"sawtooth 5", series(40, func(i int) float64 { return float64(i % 5) }), 5},
		// the reference's series_seasonal examples: periods 6 and 5 (first two points off)
		{"reference 25 points", []float64{2, 5, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1}, 6},
		{"reference 20 points", []float64{8, 12, 14, 12, 10, 10, 12, 14, 12, 10, 10, 12, 14, 12, 10, 10, 12, 14, 12, 10}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found := detectAll(c.xs, 0, math.Inf(1))
			if len(found) == 0 || found[0].period != c.want {
				t.Fatalf("detect = %v, want %d first", found, c.want)
			}
			if s := found[0].score; s < 0.7 || s > 1 {
				t.Errorf("score of %d = %v, want in [0.7, 1]", c.want, s)
			}
			if got := autoPeriod(c.xs, allValid(c.xs), 0.6); got != int64(c.want) {
				t.Errorf("autoPeriod = %d, want %d", got, c.want)
			}
		})
	}
}

func TestPeriods_NoPeriod(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	cases := []struct {
		name string
		xs   []float64
	}{
		{"constant", series(100, func(int) float64 { return 3.5 })},
		{"straight line", series(100, func(i int) float64 { return 2*float64(i) + 1 })},
		{"empty", nil},
		{"one point", []float64{1}},
		{"too short for a period of 4", []float64{1, 2, 3, 4, 1, 2, 3, 4}},
		// a period of exactly half the series is never confirmed (the reference's
		// third series_seasonal example is "too short to be detected")
		{"period of half the series", []float64{1, 3, 5, 2, 4, 6, 1, 3, 5, 2, 4, 6}},
		{"period under 4", series(100, func(i int) float64 { return float64(i % 3) })},
		{"all null", []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if found := detectAll(c.xs, 0, math.Inf(1)); len(found) != 0 {
				t.Errorf("detect = %v, want none", found)
			}
		})
	}
	// white noise: any peak is weak, and none reaches series_decompose's threshold
	for seed := int64(1); seed <= 5; seed++ {
		noise := series(300, func(int) float64 { return r.NormFloat64() })
		if found := detectAll(noise, 0, math.Inf(1)); len(found) > 0 && found[0].score > 0.4 {
			t.Errorf("noise %d: detect = %v, want no score above 0.4", seed, found)
		}
		if p := autoPeriod(noise, allValid(noise), autoSeasonalityThreshold); p != 0 {
			t.Errorf("noise %d: autoPeriod = %d, want 0", seed, p)
		}
	}
}

// TestPeriods_TwoPeriods: a daily and a weekly pattern in hourly bins, with noise: both
// are found, the weekly (which repeats the daily too) first; the range picks one.
func TestPeriods_TwoPeriods(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	xs := series(24*7*6, func(i int) float64 {
		weekend := 0.0
		if (i/24)%7 >= 5 {
			weekend = -3
		}
		return 10 + 2*math.Sin(2*math.Pi*float64(i)/24) + weekend + 0.5*r.NormFloat64()
	})
	found := detectAll(xs, 4, 400)
	if got := periodsOf(found); len(got) < 2 || got[0] != 168 || got[1] != 24 {
		t.Fatalf("periods = %v (%v), want 168 then 24", got, found)
	}
	if got := periodsOf(detectAll(xs, 0.8*24, 1.2*24)); len(got) != 1 || got[0] != 24 {
		t.Errorf("periods in [19.2, 28.8] = %v, want [24]", got)
	}
	if got := periodsOf(detectAll(xs, 100, 200)); len(got) == 0 || got[0] != 168 {
		t.Errorf("periods in [100, 200] = %v, want 168 first", got)
	}
}

// TestPeriods_NoMultiples: a period's multiples are periods too, but detect reports
// them only when they score higher; validate scores them.
func TestPeriods_NoMultiples(t *testing.T) {
	xs := series(200, func(i int) float64 { return sine(10)(i) + 0.01*float64(i%3) })
	found := detectAll(xs, 4, 100)
	if got := periodsOf(found); len(got) != 1 || got[0] != 10 {
		t.Errorf("periods = %v, want [10] alone", got)
	}
	a := newSeriesACF(xs, allValid(xs))
	for _, p := range []int{10, 20, 30} {
		if s := a.score(p); s < 0.9 {
			t.Errorf("score(%d) = %v, want ≥ 0.9", p, s)
		}
	}
	// lags off the peak, below 4, past half the series, and the half itself score 0
	for _, p := range []int{3, 7, 13, 15, 100, 101} {
		if s := a.score(p); s != 0 {
			t.Errorf("score(%d) = %v, want 0", p, s)
		}
	}
}

func TestPeriods_Nulls(t *testing.T) {
	xs := series(200, sine(10))
	for i := 3; i < len(xs); i += 7 {
		xs[i] = math.NaN()
	}
	xs[50], xs[51], xs[52] = math.NaN(), math.NaN(), math.NaN()
	found := detectAll(xs, 0, math.Inf(1))
	if len(found) == 0 || found[0].period != 10 || found[0].score < 0.99 {
		t.Errorf("detect with nulls = %v, want 10 scoring ≥ 0.99", found)
	}
	// a null at a lag leaves its pairs out: the pair counts fall accordingly
	ys := []float64{1, math.NaN(), 3, 1, 5, 6, 2, 8, 9, 1}
	a := newSeriesACF(ys, allValid(ys))
	if a.pairs[0] != 9 || a.pairs[1] != 7 || a.pairs[5] != 4 {
		t.Errorf("pairs = %v, want 9 at lag 0, 7 at lag 1, 4 at lag 5", a.pairs)
	}
}

// TestPeriods_FourierSums: the long series' lag sums (through the Fourier transform)
// are the pairwise sums.
func TestPeriods_FourierSums(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	n := 1500
	d := make([]float64, n)
	ok := make([]bool, n)
	for i := range d {
		if r.Intn(10) > 0 {
			d[i], ok[i] = r.NormFloat64()*100, true
		}
	}
	s1, c1 := lagSumsDirect(d, ok, n/2)
	s2, c2 := lagSumsFourier(d, ok, n/2)
	for lag := range s1 {
		if c1[lag] != c2[lag] || math.Abs(s1[lag]-s2[lag]) > 1e-6*math.Abs(s1[0]) {
			t.Fatalf("lag %d: direct %v (%d pairs), Fourier %v (%d pairs)", lag, s1[lag], c1[lag], s2[lag], c2[lag])
		}
	}
	// and a series past directACFMax is detected through them
	long := series(directACFMax+1000, func(i int) float64 { return sine(24)(i) + 0.3*r.NormFloat64() })
	if found := detectAll(long, 0, math.Inf(1)); len(found) == 0 || found[0].period != 24 {
		t.Errorf("long series: detect = %v, want 24 first", found)
	}
}

// BenchmarkPeriods_Detect times series_periods_detect's search on a 1,000-point and a
// 10,000-point series (summed directly and through the Fourier transform).
func BenchmarkPeriods_Detect(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		r := rand.New(rand.NewSource(5))
		xs := series(n, func(i int) float64 { return sine(24)(i) + 0.3*r.NormFloat64() })
		valid := allValid(xs)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				newSeriesACF(xs, valid).detect(0, math.Inf(1))
			}
		})
	}
}
