package metric_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/metric"
)

// Wilson intervals, checked against the formula computed apart (Python, z = 1.959964):
// they never collapse at 0/n or n/n.
func TestWilsonInterval(t *testing.T) {
	for _, tt := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 7, 0, 0.35433},
		{7, 7, 0.64567, 1},
		{1, 1, 0.20655, 1},
		{5, 10, 0.23659, 0.76341},
		{81, 100, 0.72221, 0.87485},
	} {
		iv := metric.WilsonInterval(tt.k, tt.n, 0.95)
		if math.Abs(iv.Lower-tt.lo) > 1e-4 || math.Abs(iv.Upper-tt.hi) > 1e-4 {
			t.Errorf("Wilson(%d/%d) = [%.5f, %.5f], want [%.5f, %.5f]", tt.k, tt.n, iv.Lower, iv.Upper, tt.lo, tt.hi)
		}
	}
	if iv := metric.WilsonInterval(0, 0, 0.95); iv.Lower != 0 || iv.Upper != 0 {
		t.Errorf("no cases: %+v", iv)
	}
}
