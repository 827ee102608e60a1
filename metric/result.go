package metric

import "time"

// Result is what one metric says about one case. Exactly one of these holds:
// the metric ran (Score set, possibly with Details), it failed (Error set, Score 0),
// or it could not run with the inputs given (Skipped holds the reason, Score nil).
type Result struct {
	Score   *float64       `json:"score"`
	Details map[string]any `json:"details"`
	Error   *Error         `json:"error"`
	Skipped *string        `json:"skipped"`
}

// Error records a metric that failed, with what it was given, so the failure can be
// reproduced; the other metrics of the case and the other cases go on.
type Error struct {
	Metric    string            `json:"metric"`
	Message   string            `json:"message"`
	Inputs    map[string]string `json:"inputs,omitempty"`
	Stack     string            `json:"stack,omitempty"`
	Timestamp time.Time         `json:"timestamp"`
}

func (e *Error) Error() string { return e.Metric + ": " + e.Message }

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
