package runner

import (
	"sort"

	"github.com/qeval/qeval"
)

// DefaultThreshold is the total score a case needs to pass.
const DefaultThreshold = 0.9

// Components are the parts of the composite score, in report order.
var Components = []string{"schema_match", "semantic_similarity", "results_match", "llm_grading"}

// DefaultWeights weigh the four components equally.
func DefaultWeights() map[string]float64 {
	return map[string]float64{"schema_match": 0.25, "semantic_similarity": 0.25, "results_match": 0.25, "llm_grading": 0.25}
}

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
	Skipped       string   `json:"skipped,omitempty"`
}

// Score combines the component metrics with weights. A component that failed counts as
// 0; one that was skipped drops out, and the total is computed over the remaining
// weights (renormalised) and marked partial.
func Score(metrics map[string]qeval.MetricResult, weights map[string]float64) Composite {
	c := Composite{Components: map[string]ComponentScore{}}
	var sum, wsum float64
	names := make([]string, 0, len(weights))
	for n := range weights {
		names = append(names, n)
	}
	sort.Strings(names)
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
	}
	return c
}
