package metric

import (
	"sort"

	"github.com/qeval/qeval"
)

// ScoreTolerance is how far below the threshold a total may fall and still pass: a
// total that prints as 90.0% passes a 90% threshold, whatever the float rounding of
// its weighted sum (0.8999999999999999 must not fail 0.9).
const ScoreTolerance = 1e-9

// Passes reports whether a total reaches the threshold, within ScoreTolerance.
func Passes(total, threshold float64) bool { return total >= threshold-ScoreTolerance }

// Composite is the weighted total of a case's components.
type Composite struct {
	Total *float64
	// Partial is set when some weighted components could not be computed: the total is
	// then over the remaining weights, renormalised.
	Partial bool
	// Missing names the weighted components that were skipped.
	Missing []string
	// Components holds, per component, its score, weight and weighted score.
	Components map[string]ComponentScore
}

// ComponentScore is one component of a total.
type ComponentScore struct {
	Score         *float64 `json:"score"`
	Weight        float64  `json:"weight"`
	WeightedScore *float64 `json:"weighted_score"`
	// EffectiveWeight is the weight after renormalisation over the components that were
	// computed: the effective weights of a total add up to 1 (0 for a skipped component).
	EffectiveWeight float64 `json:"effective_weight"`
	Skipped         string  `json:"skipped,omitempty"`
}

// Combine combines the component metrics with weights. A component that failed counts
// as 0; one that was skipped drops out, and the total is computed over the remaining
// weights (renormalised) and marked partial. The weighted scores are summed in the
// order of qeval.Components (then any other weight, by name), so a total is the same
// number on every run.
func Combine(metrics map[string]qeval.MetricResult, weights map[string]float64) Composite {
	c := Composite{Components: map[string]ComponentScore{}}
	var sum, wsum float64
	names := make([]string, 0, len(weights))
	for _, n := range qeval.Components {
		if _, ok := weights[n]; ok {
			names = append(names, n)
		}
	}
	var others []string
	for n := range weights {
		if !qeval.IsComponent(n) {
			others = append(others, n)
		}
	}
	sort.Strings(others)
	names = append(names, others...)
	for _, n := range names {
		w := weights[n]
		m, ok := metrics[n]
		cs := ComponentScore{Weight: w}
		switch {
		case !ok || m.Skipped != nil:
			cs.Skipped = "not computed"
			if ok && m.Skipped != nil {
				cs.Skipped = *m.Skipped
			}
			if w > 0 {
				c.Missing = append(c.Missing, n)
			}
		case m.Score != nil:
			s := *m.Score
			ws := s * w
			cs.Score, cs.WeightedScore = &s, &ws
			sum += ws
			wsum += w
		}
		c.Components[n] = cs
	}
	c.Partial = len(c.Missing) > 0
	if wsum > 0 {
		t := sum / wsum
		c.Total = &t
		for n, cs := range c.Components {
			if cs.Score != nil {
				cs.EffectiveWeight = cs.Weight / wsum
				c.Components[n] = cs
			}
		}
	}
	return c
}
