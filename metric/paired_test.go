package metric_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/metric"
)

func TestMcNemar(t *testing.T) {
	// Worked by hand: P(X ≤ k) for X ~ Binomial(n, 1/2) is the sum of C(n, i) / 2^n.
	tests := []struct {
		name    string
		b, c    int
		p, midP float64
	}{
		{"NoDiscordant", 0, 0, 1, 1},
		{"Balanced", 3, 3, 1, 1},
		// n=6, k=1: (1+6)/64; P = 14/64, mid-p = 14/64 − 6/64.
		{"OneOfSix", 1, 5, 14.0 / 64, 8.0 / 64},
		{"OneOfSixSwapped", 5, 1, 14.0 / 64, 8.0 / 64},
		// n=10, k=2: (1+10+45)/1024; P = 112/1024, mid-p = 112/1024 − 45/1024.
		{"TwoOfTen", 2, 8, 112.0 / 1024, 67.0 / 1024},
		// n=10, k=0: P = 2/1024, mid-p = 1/1024.
		{"AllFixed", 0, 10, 2.0 / 1024, 1.0 / 1024},
		// n=1: P(X ≤ 0) = 1/2, so P = 1 and mid-p = 1 − 1/2.
		{"Single", 1, 0, 1, 0.5},
		{"Negative", -1, 4, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := metric.McNemar(tt.b, tt.c)
			if math.Abs(got.P-tt.p) > 1e-12 || math.Abs(got.MidP-tt.midP) > 1e-12 {
				t.Errorf("McNemar(%d, %d)=%+v, want p %v mid-p %v", tt.b, tt.c, got, tt.p, tt.midP)
			}
			if got.B != tt.b || got.C != tt.c {
				t.Errorf("McNemar(%d, %d) kept b=%d c=%d", tt.b, tt.c, got.B, got.C)
			}
		})
	}
}

// A large suite must not underflow: with 2000 discordant cases split 900/1100 the
// normal approximation gives z = 200/sqrt(2000) = 4.47, two-sided p ≈ 7.7e-6.
func TestMcNemar_Large(t *testing.T) {
	got := metric.McNemar(900, 1100)
	if got.P <= 0 || got.P > 2e-5 || got.P < 2e-6 {
		t.Errorf("McNemar(900, 1100).P=%v, want about 8e-6", got.P)
	}
	if got.MidP >= got.P {
		t.Errorf("mid-p %v not below p %v", got.MidP, got.P)
	}
	if even := metric.McNemar(50000, 50000); math.Abs(even.P-1) > 1e-9 {
		t.Errorf("McNemar(50000, 50000).P=%v, want 1", even.P)
	}
}

func TestPairedDiff(t *testing.T) {
	pairs := []metric.Paired{{1, 1}, {0, 1}, {1, 0}, {0, 1}}
	if d := metric.PairedDiff(pairs); d != 0.25 {
		t.Errorf("PairedDiff=%v, want (3−2)/4 = 0.25", d)
	}
	if d := metric.PairedDiff(nil); d != 0 {
		t.Errorf("PairedDiff(nil)=%v, want 0", d)
	}
}

// The paired interval must be exactly the resampling of whole cases, which Bootstrap
// does with the same random stream.
func TestBootstrapPairedDiff_ResamplesCases(t *testing.T) {
	var pairs []metric.Paired
	for i := range 60 {
		switch i % 5 {
		case 0:
			pairs = append(pairs, metric.Paired{Base: 1, Head: 0})
		case 1, 2:
			pairs = append(pairs, metric.Paired{Base: 0, Head: 1})
		case 3:
			pairs = append(pairs, metric.Paired{Base: 1, Head: 1})
		default:
			pairs = append(pairs, metric.Paired{Base: 0.5, Head: 0.25})
		}
	}
	opt := metric.BootstrapOptions{Resamples: 500, Seed: 7}
	got := metric.BootstrapPairedDiff(pairs, opt)
	want := metric.Bootstrap(len(pairs), func(idx []int) (float64, bool) {
		s := 0.0
		for _, i := range idx {
			s += pairs[i].Head - pairs[i].Base
		}
		return s / float64(len(idx)), true
	}, opt)
	if got != want {
		t.Errorf("BootstrapPairedDiff=%+v, want %+v", got, want)
	}
	d := metric.PairedDiff(pairs)
	if got.Lower > d || got.Upper < d || got.Lower >= got.Upper {
		t.Errorf("interval %+v does not bracket the difference %v", got, d)
	}
}

func TestBootstrapPairedDiff_Edges(t *testing.T) {
	same := []metric.Paired{{0, 1}, {0, 1}, {0, 1}}
	if iv := metric.BootstrapPairedDiff(same, metric.BootstrapOptions{}); iv.Lower != 1 || iv.Upper != 1 || iv.Resamples != 1000 {
		t.Errorf("every case fixed: %+v, want [1, 1] from 1000 resamples", iv)
	}
	if iv := metric.BootstrapPairedDiff(nil, metric.BootstrapOptions{}); iv.Resamples != 0 {
		t.Errorf("no pairs: %+v, want no resamples", iv)
	}
	// Paired resampling cancels what both runs share: head = base + 0.1 on every case
	// gives a zero-width interval however spread the scores are.
	var shifted []metric.Paired
	for i := range 50 {
		b := float64(i%10) / 20
		shifted = append(shifted, metric.Paired{Base: b, Head: b + 0.1})
	}
	iv := metric.BootstrapPairedDiff(shifted, metric.BootstrapOptions{})
	if math.Abs(iv.Lower-0.1) > 1e-9 || math.Abs(iv.Upper-0.1) > 1e-9 {
		t.Errorf("constant shift: %+v, want [0.1, 0.1]", iv)
	}
}
