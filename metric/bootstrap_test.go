package metric_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/metric"
)

func TestBootstrapProportion(t *testing.T) {
	iv := metric.BootstrapProportion(70, 100, metric.BootstrapOptions{})
	// The normal approximation gives 0.7 ± 1.96·sqrt(0.7·0.3/100) = [0.610, 0.790].
	if math.Abs(iv.Lower-0.610) > 0.02 || math.Abs(iv.Upper-0.790) > 0.02 {
		t.Errorf("interval=%+v, want about [0.61, 0.79]", iv)
	}
	if iv.Level != 0.95 || iv.Resamples != 1000 || iv.Seed != metric.DefaultSeed {
		t.Errorf("interval=%+v, want the defaults 0.95, 1000, seed %d", iv, metric.DefaultSeed)
	}
	if again := metric.BootstrapProportion(70, 100, metric.BootstrapOptions{}); again != iv {
		t.Errorf("same seed gave %+v then %+v", iv, again)
	}
	if other := metric.BootstrapProportion(70, 100, metric.BootstrapOptions{Seed: 99}); other == iv {
		t.Errorf("seed 99 gave the same interval as seed 1: %+v", other)
	}
	if all := metric.BootstrapProportion(5, 5, metric.BootstrapOptions{}); all.Lower != 1 || all.Upper != 1 {
		t.Errorf("5 of 5: %+v, want [1, 1]", all)
	}
	// A large suite: sd = sqrt(0.5·0.5/100000) = 0.00158, so the 95% interval is ±0.0031.
	big := metric.BootstrapProportion(50000, 100000, metric.BootstrapOptions{})
	if math.Abs(big.Lower-(0.5-0.0031)) > 0.0005 || math.Abs(big.Upper-(0.5+0.0031)) > 0.0005 {
		t.Errorf("50000 of 100000: %+v, want about [0.4969, 0.5031]", big)
	}
}

// BootstrapMean on 0/1 values takes the binomial shortcut; it must agree with plain
// resampling, which Bootstrap does.
func TestBootstrap_AgreesWithResampling(t *testing.T) {
	vals := make([]float64, 200)
	for i := range 130 {
		vals[i] = 1
	}
	fast := metric.BootstrapMean(vals, metric.BootstrapOptions{Resamples: 4000})
	slow := metric.Bootstrap(len(vals), func(idx []int) (float64, bool) {
		s := 0.0
		for _, i := range idx {
			s += vals[i]
		}
		return s / float64(len(idx)), true
	}, metric.BootstrapOptions{Resamples: 4000})
	if math.Abs(fast.Lower-slow.Lower) > 0.01 || math.Abs(fast.Upper-slow.Upper) > 0.01 {
		t.Errorf("binomial %+v vs resampling %+v", fast, slow)
	}
	// Graded values go through plain resampling: mean 0.5, sd sqrt(0.125/200)=0.025.
	graded := make([]float64, 200)
	for i := range graded {
		graded[i] = 0.5 * float64(i%2)
		if i%4 == 0 {
			graded[i] = 1
		}
	}
	iv := metric.BootstrapMean(graded, metric.BootstrapOptions{})
	mean := 0.0
	for _, v := range graded {
		mean += v / 200
	}
	if iv.Lower >= mean || iv.Upper <= mean || iv.Upper-iv.Lower > 0.2 {
		t.Errorf("graded interval=%+v around mean %v", iv, mean)
	}
}

func TestBootstrap_UndefinedAndOff(t *testing.T) {
	iv := metric.Bootstrap(10, func(idx []int) (float64, bool) { return 0, false }, metric.BootstrapOptions{})
	if iv.Resamples != 0 {
		t.Errorf("never defined: %+v, want 0 resamples", iv)
	}
	if off := metric.BootstrapMean([]float64{1, 0}, metric.BootstrapOptions{Resamples: -1}); off.Resamples != 0 {
		t.Errorf("off: %+v", off)
	}
	if iv := metric.BootstrapMean(nil, metric.BootstrapOptions{}); iv.Resamples != 0 {
		t.Errorf("empty: %+v", iv)
	}
}
