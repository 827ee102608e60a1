package metric_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/metric"
)

func TestCohenKappa(t *testing.T) {
	// Cohen (1960)-style worked example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no:
	// po = 0.7, pe = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
	po, k := metric.CohenKappa(20, 5, 10, 15)
	if math.Abs(po-0.7) > 1e-12 || k == nil || math.Abs(*k-0.4) > 1e-12 {
		t.Fatalf("po %v κ %v, want 0.7 and 0.4", po, k)
	}
	if _, k := metric.CohenKappa(3, 0, 0, 4); k == nil || *k != 1 {
		t.Errorf("perfect agreement: κ %v, want 1", k)
	}
	if _, k := metric.CohenKappa(5, 0, 0, 0); k != nil {
		t.Errorf("one class only: κ %v, want undefined", *k)
	}
	if po, k := metric.CohenKappa(0, 0, 0, 0); po != 0 || k != nil {
		t.Errorf("empty table: %v %v", po, k)
	}
	if _, k := metric.CohenKappa(0, 5, 5, 0); k == nil || *k != -1 {
		t.Errorf("complete disagreement with balanced margins: κ %v, want -1", k)
	}
}
