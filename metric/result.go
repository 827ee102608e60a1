package metric

import "github.com/qeval/qeval"

// Result is what one metric says about one case (see qeval.MetricResult).
type Result = qeval.MetricResult

// Error records a metric that failed (see qeval.MetricError).
type Error = qeval.MetricError

// Scored returns a result with the given score and details.
func Scored(score float64, details map[string]any) Result {
	return Result{Score: &score, Details: details}
}

// Skip returns a result for a metric that could not run, with the reason.
func Skip(reason string) Result {
	return Result{Skipped: &reason, Details: map[string]any{}}
}

// Failed returns a result for a metric that failed: score 0 and the error.
func Failed(e *Error) Result {
	zero := 0.0
	return Result{Score: &zero, Error: e, Details: map[string]any{}}
}
