package qeval

import "fmt"

// The composite score of a case is declared here, once: its components, their default
// weights and the default pass threshold. Suites, the runner, the reports, the server
// and the page all read these.

// Component names of the composite score (the keys of a suite's `weights`), in report order.
const (
	ComponentSchemaMatch        = "schema_match"
	ComponentSemanticSimilarity = "semantic_similarity"
	ComponentResultsMatch       = "results_match"
	ComponentLLMGrading         = "llm_grading"
)

// Components lists the composite's components in report order.
var Components = []string{ComponentSchemaMatch, ComponentSemanticSimilarity, ComponentResultsMatch, ComponentLLMGrading}

// DefaultThreshold is the total score a case needs to pass.
const DefaultThreshold = 0.9

// DefaultMode is the result comparison mode of every command that compares results,
// unless a suite or a flag names another. `qeval spider`, a drop-in for the official
// Spider evaluator, uses spider-ts, the official rules, instead.
const DefaultMode = "bag"

// OfficialMode is the comparison mode of the benchmark scorers and of the exec-match
// reward service: the official Spider test-suite evaluator's rules. DefaultMode and
// OfficialMode are the only two defaults; every command reads one of them.
const OfficialMode = "spider-ts"

// DefaultWeights weigh the four components equally.
func DefaultWeights() map[string]float64 {
	w := make(map[string]float64, len(Components))
	for _, c := range Components {
		w[c] = 0.25
	}
	return w
}

// IsComponent reports whether name is a component of the composite score.
func IsComponent(name string) bool {
	for _, c := range Components {
		if c == name {
			return true
		}
	}
	return false
}

// CheckFraction reports a threshold, rate or score outside [0, 1], naming the field:
// suites, flags and requests are checked by this one rule.
func CheckFraction(field string, v float64) error {
	if v >= 0 && v <= 1 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s %v is outside [0, 1]", field, v),
		Hint: "write a fraction: 0.9 for 90%"}
}
