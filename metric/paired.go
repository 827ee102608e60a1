package metric

import "math"

// Paired is one case scored by two runs of the same suite: a base (before a change)
// and a head (after it). A pass is 1 and a fail 0; graded scores work the same way.
type Paired struct {
	Base float64
	Head float64
}

// PairedDiff returns mean(Head) − mean(Base) over pairs (0 when there are none).
func PairedDiff(pairs []Paired) float64 {
	if len(pairs) == 0 {
		return 0
	}
	sum := 0.0
	for _, p := range pairs {
		sum += p.Head - p.Base
	}
	return sum / float64(len(pairs))
}

// BootstrapPairedDiff is the paired bootstrap interval of mean(Head) − mean(Base): each
// resample draws whole cases with replacement, so a case's base and head scores stay
// together and the interval reflects only how the two runs differ on the same cases.
// Because the difference of the means is the mean of the per-case differences, this is
// BootstrapMean of those differences. No pairs gives an interval with Resamples 0.
func BootstrapPairedDiff(pairs []Paired, opt BootstrapOptions) Interval {
	diffs := make([]float64, len(pairs))
	for i, p := range pairs {
		diffs[i] = p.Head - p.Base
	}
	return BootstrapMean(diffs, opt)
}

// McNemarResult is McNemar's test of whether two runs pass the same cases equally
// often. Only the discordant cases count: B passed in the base run and failed in the
// head run (broken), C failed in the base run and passed in the head run (fixed).
type McNemarResult struct {
	B int `json:"b"`
	C int `json:"c"`
	// P is the two-sided p-value of the exact (conditional binomial) test.
	P float64 `json:"p"`
	// MidP is the mid-p variant, P minus the probability of the observed split; it is
	// less conservative than P and keeps close to the nominal level at small counts.
	MidP float64 `json:"mid_p"`
}

// McNemar runs McNemar's exact test on the discordant counts b and c. Under the null
// hypothesis (both runs equally accurate) each of the n = b+c discordant cases is
// equally likely to fall either way, so min(b, c) follows Binomial(n, 1/2); the
// two-sided p-value is twice its lower tail, capped at 1:
//
//	P    = min(1, 2·P(X ≤ k))             k = min(b, c), X ~ Binomial(n, 1/2)
//	MidP = min(1, 2·P(X ≤ k) − P(X = k))
//
// The exact test is used at every n (not the chi-square approximation), so small
// suites get a valid p-value; the probabilities are summed in log space, so large n
// does not underflow. No discordant case (or a negative count) gives P = MidP = 1.
func McNemar(b, c int) McNemarResult {
	res := McNemarResult{B: b, C: c, P: 1, MidP: 1}
	if b < 0 || c < 0 || b+c == 0 {
		return res
	}
	n, k := b+c, min(b, c)
	tail, point := 0.0, 0.0
	for i := 0; i <= k; i++ {
		point = binomHalfPMF(n, i)
		tail += point
	}
	res.P = math.Min(1, 2*tail)
	res.MidP = math.Min(1, 2*tail-point)
	return res
}

// binomHalfPMF is P(X = i) for X ~ Binomial(n, 1/2).
func binomHalfPMF(n, i int) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	li, _ := math.Lgamma(float64(i + 1))
	lr, _ := math.Lgamma(float64(n - i + 1))
	return math.Exp(ln - li - lr - float64(n)*math.Ln2)
}
