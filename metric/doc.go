// Package metric computes the metrics qeval reports for a case and over a suite:
// execution accuracy, table accuracy, safety and validation confusion, confidence
// calibration, bootstrap intervals and the composite score's components.
//
// # Per-case metrics
//
// Each per-case metric returns a Result: a score in [0,1] with details, or a skip
// reason when the case lacks its inputs, or score 0 with an Error when it failed. The
// table Metrics in metrics.go lists them by name (execution_match, table_accuracy,
// safety_validation, validation_accuracy, query_correctness, schema_match,
// semantic_similarity, results_match, llm_grading). Evaluate runs all of them on a Case
// concurrently, each with a deadline and panic recovery, so one failing metric never
// stops the others.
//
// Each metric also has a pure function for callers that hold the inputs already:
// TableAccuracy, SafetyValidation, ValidationAccuracy, SchemaMatch, SemanticSimilarity,
// ResultsMatch, ResultSetsMatch, ExecutionMatch; the judge-based QueryCorrectness and
// LLMGrading ask a qeval.Judge. SemanticSimilarity and TableAccuracy read qeval.Shape
// values, so KQL shapes work as well as SQL ones.
//
// # Suite aggregates
//
// Summarize gives the mean of a metric with a bootstrap interval; SummarizeSafety and
// SummarizeValidation build the validator's confusion matrix (a safety recall below 100%
// is flagged CRITICAL); Calibrate says how well stated confidence (high/medium/low or a
// probability) predicts correctness: a calibration score, ECE, MCE, Brier score and its
// decomposition, AUROC, the risk-coverage curve with AURC, and reliability-diagram data.
// Intervals are seeded percentile bootstraps (Bootstrap, BootstrapMean,
// BootstrapProportion), 1,000 resamples at 95% by default.
//
// # Adding a metric
//
// A new per-case metric is a file metric/<name>.go with its pure function and its
// Calculator, one entry in Metrics, and a table test with numbers worked out by hand.
package metric
