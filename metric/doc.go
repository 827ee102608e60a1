// Package metric computes the metrics qeval reports for a case and over a suite:
// execution accuracy, table accuracy, safety and validation confusion, confidence
// calibration, bootstrap intervals and the composite score's components.
//
// Each per-case metric returns a Result (score, details, error or skip reason).
// A new metric goes in its own file, metric/<name>.go, with an entry in metrics.go.
package metric
