package metric

import (
	"context"

	"github.com/qeval/qeval"
)

// ExecutionMatch turns an execution verdict into a score: 1 for a match, 0 for any
// other outcome of the generated query (mismatch, pred_error, timeout, too_large).
// Details: outcome, mode, database, error, generated_rows, expected_rows, generated_ms,
// expected_ms.
func ExecutionMatch(v qeval.Verdict) Result {
	score := 0.0
	if v.Match {
		score = 1
	}
	d := map[string]any{
		"outcome":      string(v.Outcome),
		"mode":         v.Mode,
		"generated_ms": float64(v.PredTime.Microseconds()) / 1000,
		"expected_ms":  float64(v.GoldTime.Microseconds()) / 1000,
	}
	if v.Database != "" {
		d["database"] = v.Database
	}
	if v.Error != "" {
		d["error"] = v.Error
	}
	if v.Pred != nil {
		d["generated_rows"] = v.Pred.NumRows()
	}
	if v.Gold != nil {
		d["expected_rows"] = v.Gold.NumRows()
	}
	return Scored(score, d)
}

// executionMatch reads c.Execution. A verdict that says the expected query failed or
// the run was canceled is a failure of the metric, not a score of the generated query.
func executionMatch(_ context.Context, c *Case, _ *Options) (Result, error) {
	v := c.Execution
	if v == nil {
		if c.ExecutionSkipped != "" {
			return Skip(c.ExecutionSkipped), nil
		}
		return Skip("no execution verdict (the queries were not run on a database)"), nil
	}
	switch v.Outcome {
	case qeval.OutcomeSkipped:
		reason := "execution skipped"
		if v.Error != "" {
			reason += ": " + v.Error
		}
		return Skip(reason), nil
	case qeval.OutcomeGoldError:
		return Result{}, &qeval.Error{Code: qeval.CodeQuery, Op: "run expected query", Message: v.Error}
	case qeval.OutcomeSetupError:
		return Skip("the case's setup failed: " + v.Error), nil
	case qeval.OutcomeUnscorable:
		return Skip("the expected query cannot be run here: " + v.Error), nil
	case qeval.OutcomeUnsupported:
		return Skip("the engine does not support the generated query: " + v.Error), nil
	case qeval.OutcomeCanceled:
		return Result{}, &qeval.Error{Code: qeval.CodeCanceled, Op: "execution", Message: "canceled before the case finished"}
	}
	return ExecutionMatch(*v), nil
}
