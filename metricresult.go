package qeval

import "time"

// MetricResult is what one metric says about one case. Exactly one of these holds:
// the metric ran (Score set, possibly with Details), it failed (Error set, Score 0),
// or it could not run with the inputs given (Skipped holds the reason, Score nil).
// Package metric calls it metric.Result.
type MetricResult struct {
	Score   *float64       `json:"score"`
	Details map[string]any `json:"details"`
	Error   *MetricError   `json:"error"`
	Skipped *string        `json:"skipped"`
}

// MetricError records a metric that failed, with what it was given, so the failure can
// be reproduced; the other metrics of the case and the other cases go on.
type MetricError struct {
	Metric  string            `json:"metric"`
	Message string            `json:"message"`
	Inputs  map[string]string `json:"inputs,omitempty"`
	Stack   string            `json:"stack,omitempty"`
	// GeneratedQuery marks the model's failure, not the metric's: the generated query
	// does not parse. It carries no stack, is not logged, and is not counted among the
	// metrics that failed; the case's reason says it once.
	GeneratedQuery bool      `json:"generated_query,omitempty"`
	Timestamp      time.Time `json:"timestamp"`
}

func (e *MetricError) Error() string { return e.Metric + ": " + e.Message }
