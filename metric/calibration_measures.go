package metric

import (
	"math"
	"slices"
)

// ReliabilityBin is one bar of a reliability diagram: the cases whose confidence lies
// in [Lower, Upper) (the last bin includes 1).
type ReliabilityBin struct {
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	Count      int     `json:"count"`
	Confidence float64 `json:"confidence"` // mean confidence
	Accuracy   float64 `json:"accuracy"`   // mean correctness
	Gap        float64 `json:"gap"`        // Confidence - Accuracy
}

// RiskPoint is one point of the risk-coverage curve: answering only the Coverage share
// of cases with the highest confidence (confidence ≥ Threshold) leaves Risk, the mean
// of 1 - correctness over them.
type RiskPoint struct {
	Coverage  float64 `json:"coverage"`
	Risk      float64 `json:"risk"`
	Threshold float64 `json:"threshold"`
}

// binStats fills ECE, MCE, the Brier score and its decomposition, and the reliability
// diagram (non-empty bins only) from the sums of the bins.
func (t *tally) binStats(total int, rep *CalibrationReport) {
	bins := len(t.binCount)
	n := float64(total)
	base := t.sumY / n
	rep.Brier = t.brier / n
	rep.Uncertainty = base * (1 - base)
	for b := range bins {
		if t.binCount[b] == 0 {
			continue
		}
		k := float64(t.binCount[b])
		conf, acc := t.binC[b]/k, t.binY[b]/k
		gap := conf - acc
		w := k / n
		rep.ECE += w * math.Abs(gap)
		rep.MCE = math.Max(rep.MCE, math.Abs(gap))
		rep.Reliability += w * gap * gap
		rep.Resolution += w * (acc - base) * (acc - base)
		rep.Bins = append(rep.Bins, ReliabilityBin{
			Lower: float64(b) / float64(bins), Upper: float64(b+1) / float64(bins),
			Count: t.binCount[b], Confidence: conf, Accuracy: acc, Gap: gap,
		})
	}
}

// rankStats fills AUROC, AURC and the risk-coverage curve. Both need the cases in
// order of confidence; cases of equal confidence form a block whose members are taken
// as if in random order (expected values), so the result does not depend on input order.
func rankStats(cases []CalibrationCase, maxPoints int, rep *CalibrationReport) {
	sorted := sortByConfidence(cases) // falling confidence
	n := len(sorted)
	// AUROC by Mann-Whitney over blocks: a right answer beats every wrong answer in a
	// lower block and ties with the wrong answers of its own block.
	var pos, neg float64
	for _, c := range sorted {
		if c.y >= 0.5 {
			pos++
		} else {
			neg++
		}
	}
	var wins, negBelow float64 = 0, neg
	// Risk-coverage: within a block of m answers with total loss L after s answers of
	// total loss Lb, the expected risk after j of them is (Lb + j·L/m)/(s+j).
	var aurc, lossBefore float64
	nextCover := 0.0
	step := 1 / float64(maxPoints-1)
	for s := 0; s < n; {
		e := s + 1
		for e < n && sorted[e].conf == sorted[s].conf {
			e++
		}
		var bp, bn, loss float64
		for _, c := range sorted[s:e] {
			if c.y >= 0.5 {
				bp++
			} else {
				bn++
			}
			loss += 1 - c.y
		}
		negBelow -= bn
		wins += bp*negBelow + 0.5*bp*bn
		if e-s == 1 {
			aurc += (lossBefore + loss) / float64(e)
		} else {
			per := loss / float64(e-s)
			for j := 1; j <= e-s; j++ {
				aurc += (lossBefore + float64(j)*per) / float64(s+j)
			}
		}
		lossBefore += loss
		cover := float64(e) / float64(n)
		if cover >= nextCover-1e-12 || e == n {
			rep.RiskCoverage = append(rep.RiskCoverage, RiskPoint{
				Coverage: cover, Risk: lossBefore / float64(e), Threshold: sorted[s].conf})
			for nextCover <= cover+1e-12 {
				nextCover += step
			}
		}
		s = e
	}
	rep.AURC = aurc / float64(n)
	if pos > 0 && neg > 0 {
		auc := wins / (pos * neg)
		rep.AUROC = &auc
	}
}

type confY struct{ conf, y float64 }

// sortByConfidence returns the cases as (confidence, correctness) in falling order of
// confidence. A counting pass puts them in n/4 buckets of equal confidence width, then
// each bucket is sorted on its own: linear for spread-out confidences, and a bucket of
// many equal values (levels) is sorted in one pass.
func sortByConfidence(cases []CalibrationCase) []confY {
	n := len(cases)
	vals := make([]confY, n)
	if n < 64 {
		for i, c := range cases {
			vals[i] = confY{c.Confidence, c.Correct}
		}
		slices.SortFunc(vals, byFallingConf)
		return vals
	}
	nb := n / 4
	bucket := func(c float64) int { // falling confidence: bucket 0 holds the highest
		b := nb - 1 - int(c*float64(nb))
		return max(0, min(nb-1, b))
	}
	start := make([]int32, nb+1)
	for _, c := range cases {
		start[bucket(c.Confidence)+1]++
	}
	for b := 1; b <= nb; b++ {
		start[b] += start[b-1]
	}
	next := slices.Clone(start[:nb])
	for _, c := range cases {
		b := bucket(c.Confidence)
		vals[next[b]] = confY{c.Confidence, c.Correct}
		next[b]++
	}
	for b := range nb {
		if s, e := start[b], start[b+1]; e-s > 1 {
			part := vals[s:e]
			if e-s <= 12 {
				for i := 1; i < len(part); i++ {
					for j := i; j > 0 && part[j].conf > part[j-1].conf; j-- {
						part[j], part[j-1] = part[j-1], part[j]
					}
				}
			} else {
				slices.SortFunc(part, byFallingConf)
			}
		}
	}
	return vals
}

func byFallingConf(a, b confY) int {
	switch {
	case a.conf > b.conf:
		return -1
	case a.conf < b.conf:
		return 1
	}
	return 0
}
