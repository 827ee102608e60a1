package metric

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Bootstrap defaults: a 95% percentile interval from 1,000 resamples, seeded so that a
// report is reproducible.
const (
	DefaultResamples = 1000
	DefaultLevel     = 0.95
	DefaultSeed      = 1
)

// BootstrapOptions configures a bootstrap interval. Zero fields take the defaults;
// Resamples < 0 turns intervals off (functions that return *Interval return nil).
type BootstrapOptions struct {
	Resamples int
	Level     float64
	Seed      uint64
}

func (o BootstrapOptions) withDefaults() BootstrapOptions {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = DefaultLevel
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

func (o BootstrapOptions) rng() *rand.Rand {
	return rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
}

// Interval is a percentile bootstrap confidence interval of a statistic.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	Level float64 `json:"level"`
	// Resamples is the number of resamples on which the statistic was defined.
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

// Bootstrap resamples n cases with replacement opt.Resamples times and returns the
// percentile interval of stat. stat receives the indices of one resample and reports
// false when the statistic is undefined on it (such resamples are left out).
func Bootstrap(n int, stat func(idx []int) (float64, bool), opt BootstrapOptions) Interval {
	opt = opt.withDefaults()
	iv := Interval{Level: opt.Level, Seed: opt.Seed}
	if n <= 0 || opt.Resamples < 0 {
		return iv
	}
	r := opt.rng()
	idx := make([]int, n)
	stats := make([]float64, 0, opt.Resamples)
	for range opt.Resamples {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		if v, ok := stat(idx); ok {
			stats = append(stats, v)
		}
	}
	return percentiles(stats, iv)
}

// BootstrapMean is the interval of the mean of values. When every value is 0 or 1 it is
// BootstrapProportion, which draws the same distribution in O(resamples·log n).
func BootstrapMean(values []float64, opt BootstrapOptions) Interval {
	opt = opt.withDefaults()
	n := len(values)
	ones, binary := 0, true
	for _, v := range values {
		switch v {
		case 1:
			ones++
		case 0:
		default:
			binary = false
		}
	}
	if binary {
		return BootstrapProportion(ones, n, opt)
	}
	iv := Interval{Level: opt.Level, Seed: opt.Seed}
	if n == 0 || opt.Resamples < 0 {
		return iv
	}
	r := opt.rng()
	stats := make([]float64, opt.Resamples)
	for b := range stats {
		sum := 0.0
		for range n {
			sum += values[r.IntN(n)]
		}
		stats[b] = sum / float64(n)
	}
	return percentiles(stats, iv)
}

// BootstrapProportion is the interval of a proportion k/n (an accuracy). Resampling n
// cases of which k are successes gives Binomial(n, k/n) successes, so each resample is
// one draw from that binomial distribution, by inversion of its cumulative table.
func BootstrapProportion(k, n int, opt BootstrapOptions) Interval {
	opt = opt.withDefaults()
	iv := Interval{Level: opt.Level, Seed: opt.Seed}
	if n <= 0 || opt.Resamples < 0 || k < 0 || k > n {
		return iv
	}
	p := float64(k) / float64(n)
	if k == 0 || k == n {
		iv.Lower, iv.Upper, iv.Resamples = p, p, opt.Resamples
		return iv
	}
	lo, cdf := binomialCDF(n, p)
	r := opt.rng()
	stats := make([]float64, opt.Resamples)
	total := cdf[len(cdf)-1]
	for b := range stats {
		u := r.Float64() * total
		j := sort.SearchFloat64s(cdf, u)
		if j >= len(cdf) {
			j = len(cdf) - 1
		}
		stats[b] = float64(lo+j) / float64(n)
	}
	return percentiles(stats, iv)
}

// binomialCDF returns the cumulative (unnormalised) probabilities of Binomial(n, p) on
// the range lo..lo+len-1 outside which every probability is below 1e-17 of the mode's.
func binomialCDF(n int, p float64) (lo int, cdf []float64) {
	mode := int(math.Floor(float64(n+1) * p))
	if mode > n {
		mode = n
	}
	q := 1 - p
	odds := p / q
	const tiny = 1e-17
	// Probabilities relative to the mode: going down, P(k-1)/P(k) = k/((n-k+1)·odds).
	var down []float64
	for k, v := mode, 1.0; k > 0; k-- {
		v *= float64(k) / (float64(n-k+1) * odds)
		if v < tiny {
			break
		}
		down = append(down, v)
	}
	var up []float64
	for k, v := mode, 1.0; k < n; k++ {
		v *= float64(n-k) / float64(k+1) * odds
		if v < tiny {
			break
		}
		up = append(up, v)
	}
	lo = mode - len(down)
	cdf = make([]float64, 0, len(down)+1+len(up))
	sum := 0.0
	for i := len(down) - 1; i >= 0; i-- {
		sum += down[i]
		cdf = append(cdf, sum)
	}
	sum++
	cdf = append(cdf, sum)
	for _, v := range up {
		sum += v
		cdf = append(cdf, sum)
	}
	return lo, cdf
}

// percentiles fills iv with the (1-level)/2 and (1+level)/2 quantiles of stats
// (linear interpolation between order statistics).
func percentiles(stats []float64, iv Interval) Interval {
	iv.Resamples = len(stats)
	if len(stats) == 0 {
		return iv
	}
	slices.Sort(stats)
	iv.Lower = quantile(stats, (1-iv.Level)/2)
	iv.Upper = quantile(stats, (1+iv.Level)/2)
	return iv
}

func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
