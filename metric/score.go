package metric

import (
	"context"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
)

// Config is how Score turns a case's metrics into a verdict. Zero fields take the
// defaults declared at the root (qeval.DefaultWeights, qeval.DefaultThreshold).
type Config struct {
	Options
	// Weights of the composite's components; nil means qeval.DefaultWeights().
	Weights map[string]float64
	// Threshold is the total a case needs to pass; nil means qeval.DefaultThreshold.
	Threshold *float64
	// JudgeSkipped, when no judge is configured, is the reason the judge-based metrics
	// give for being skipped (NoJudgeReason when empty).
	JudgeSkipped string
	// RequireExecutionMatch makes a case pass only when its execution matched as well
	// as its total reaching the threshold (a suite's `pass_requires: [score, execution]`).
	RequireExecutionMatch bool
	// ExecutionOnly makes the execution match the whole verdict, whatever the total (a
	// suite's `pass_requires: [execution]`): the components are still computed.
	ExecutionOnly bool
}

// resultBased are the components computed from the generated query's result: when the
// query did not run, they are 0, not skipped and renormalised away (else a query that
// failed would show 92.5% from its text alone).
var resultBased = []string{NameSchemaMatch, NameResultsMatch}

func (c Config) weights() map[string]float64 {
	if len(c.Weights) > 0 {
		return c.Weights
	}
	return qeval.DefaultWeights()
}

func (c Config) threshold() float64 {
	if c.Threshold != nil {
		return *c.Threshold
	}
	return qeval.DefaultThreshold
}

// CaseScore is one case scored: every metric, the composite, and the status it earns.
type CaseScore struct {
	Metrics   map[string]Result
	Composite Composite
	// Executed is set when the generated query ran to a verdict (match or mismatch).
	Executed bool
	// Status is PASS, FAIL or ERROR; Reason says why a case did not pass.
	Status string
	Reason string
	// JudgeError is set when the LLM judge failed on the case (its components were
	// skipped): the case's verdict is incomplete, and a resumed run asks again.
	JudgeError bool
}

// Score is the one scoring path of a case, used by `qeval run`, `qeval score` and the
// server's /api/score-query alike: each query is parsed once (a shared prerequisite of
// the structural metrics), every metric runs (Evaluate), the composite is combined
// with the weights, and the status is decided. A gold query that failed makes the
// case an ERROR: the case cannot be judged, which is not the model's failure.
func Score(ctx context.Context, c Case, cfg Config) CaseScore {
	out := CaseScore{Metrics: Evaluate(ctx, c, cfg.Options)}
	if cfg.Judge == nil && cfg.JudgeSkipped != "" {
		for _, n := range []string{NameQueryCorrectness, NameLLMGrading} {
			if m, ok := out.Metrics[n]; ok && m.Skipped != nil {
				out.Metrics[n] = Skip(cfg.JudgeSkipped)
			}
		}
	}
	v := c.Execution
	out.Executed = v != nil && (v.Outcome == qeval.OutcomeMatch || v.Outcome == qeval.OutcomeMismatch)
	if v != nil && !out.Executed && v.Outcome.Judged() {
		for _, n := range resultBased {
			if _, ok := out.Metrics[n]; ok {
				out.Metrics[n] = Scored(0, map[string]any{"reason": fmt.Sprintf("the generated query did not execute (%s)", v.Outcome)})
			}
		}
	}
	for _, m := range out.Metrics {
		if IsJudgeError(m) {
			out.JudgeError = true
		}
	}
	out.Composite = Combine(out.Metrics, cfg.weights())
	threshold := cfg.threshold()
	total := out.Composite.Total
	switch {
	case v != nil && v.Outcome == qeval.OutcomeGoldError:
		out.Status, out.Reason = qeval.StatusError, v.Error
	case v != nil && v.Outcome == qeval.OutcomeSetupError:
		out.Status, out.Reason = qeval.StatusError, "the case's setup failed, so it cannot be judged (not the model's failure): "+v.Error
	case v != nil && v.Outcome == qeval.OutcomeUnscorable && strings.HasPrefix(v.Error, "gold query: "):
		out.Status, out.Reason = qeval.StatusUnscorable, "the expected query cannot be run by this engine, so the case cannot be scored: "+v.Error
	case v != nil && v.Outcome == qeval.OutcomeUnscorable:
		out.Status, out.Reason = qeval.StatusUnscorable, "the case cannot be scored here: "+v.Error
	case ctx.Err() != nil:
		out.Status, out.Reason = qeval.StatusError, "the case ran past its deadline"
	case !out.Executed && (v != nil && v.Outcome != qeval.OutcomeUnsupported || v == nil && c.ExecutionSkipped != ""):
		out.Status = qeval.StatusFail
		if v != nil {
			out.Reason = fmt.Sprintf("the generated query did not execute (%s): %s", v.Outcome, v.Error)
		} else {
			reason := c.ExecutionSkipped
			if reason == "" {
				reason = "no database configured for this case"
			}
			out.Reason = "not executed: " + reason
		}
	case cfg.ExecutionOnly && v != nil && v.Match:
		out.Status = qeval.StatusPass
	case cfg.ExecutionOnly && v != nil && v.State != nil:
		out.Status, out.Reason = qeval.StatusFail, "the state after the generated answer differs from the gold's"
	case cfg.ExecutionOnly:
		out.Status, out.Reason = qeval.StatusFail, "the results do not match (pass_requires: [execution])"
	case total == nil:
		out.Status, out.Reason = qeval.StatusFail, "no score component could be computed"
	case Passes(*total, threshold) && cfg.RequireExecutionMatch && (v == nil || !v.Match):
		out.Status = qeval.StatusFail
		out.Reason = fmt.Sprintf("total score %.1f%% reaches the threshold, but the results do not match (pass_requires: execution)", 100**total)
	case Passes(*total, threshold):
		out.Status = qeval.StatusPass
	default:
		out.Status = qeval.StatusFail
		out.Reason = fmt.Sprintf("total score %.1f%% is below the threshold %.1f%%", 100**total, 100*threshold)
	}
	if why := generatedParseError(out.Metrics); why != "" && out.Status == qeval.StatusFail && (v == nil || engineSyntaxError(v) && v.State == nil) {
		// the model's failure, said once (the engine's own refusal, a second statement or
		// a forbidden one, says more and is kept)
		out.Reason = "generated query does not parse: " + why
	}
	if v != nil && v.Outcome == qeval.OutcomeMismatch && v.Explanation != nil && out.Status != qeval.StatusPass {
		out.Reason += "; the results differ: " + v.Explanation.String()
	}
	if v != nil && v.Outcome == qeval.OutcomeMismatch && v.State != nil && out.Status != qeval.StatusPass {
		out.Reason += ": " + v.State.String()
	}
	if v != nil && v.Outcome == qeval.OutcomeUnsupported {
		flag := "flagged: the engine does not support the generated query (" + v.Error + "); it is scored on its other components"
		if out.Reason != "" {
			flag = out.Reason + "; " + flag
		}
		out.Reason = flag
	}
	return out
}

// generatedParseError is the parse error a metric found in the generated query ("" when
// none did).
func generatedParseError(ms map[string]qeval.MetricResult) string {
	for _, n := range Names() {
		if e := ms[n].Error; e != nil && e.GeneratedQuery {
			_, msg, _ := strings.Cut(e.Message, opParseGenerated+": ")
			return msg
		}
	}
	return ""
}

// engineSyntaxError reports whether the engine failed the generated query for its
// syntax (not for what it does).
func engineSyntaxError(v *qeval.Verdict) bool {
	if v.Outcome != qeval.OutcomePredError {
		return false
	}
	e := strings.ToLower(v.Error)
	return strings.Contains(e, "syntax error") || strings.HasPrefix(e, "parse ")
}
