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
	out.Status, out.Reason = caseStatus(ctx, &c, &cfg, out.Executed, out.Composite.Total)
	out.Reason = executionNotes(out.Reason, out.Status, out.Metrics, v)
	return out
}

// caseStatus decides the status a case earns, PASS, FAIL, ERROR or UNSCORABLE, from its
// execution verdict (c.Execution), whether the generated query ran to a verdict, and
// its total score (nil when no component could be computed). The reason says why the
// case did not pass ("" when it did).
func caseStatus(ctx context.Context, c *Case, cfg *Config, executed bool, total *float64) (status, reason string) {
	v := c.Execution
	threshold := cfg.threshold()
	switch {
	case v != nil && v.Outcome == qeval.OutcomeGoldError:
		return qeval.StatusError, v.Error
	case v != nil && v.Outcome == qeval.OutcomeSetupError:
		return qeval.StatusError, "the case's setup failed, so it cannot be judged (not the model's failure): " + v.Error
	case v != nil && v.Outcome == qeval.OutcomeUnscorable && strings.HasPrefix(v.Error, "gold query: "):
		return qeval.StatusUnscorable, "the expected query cannot be run by this engine, so the case cannot be scored: " + v.Error
	case v != nil && v.Outcome == qeval.OutcomeUnscorable:
		return qeval.StatusUnscorable, "the case cannot be scored here: " + v.Error
	case ctx.Err() != nil:
		return qeval.StatusError, "the case ran past its deadline"
	case !executed && (v != nil && v.Outcome != qeval.OutcomeUnsupported || v == nil && c.ExecutionSkipped != ""):
		if v != nil {
			return qeval.StatusFail, fmt.Sprintf("the generated query did not execute (%s): %s", v.Outcome, v.Error)
		}
		reason := c.ExecutionSkipped
		if reason == "" {
			reason = "no database configured for this case"
		}
		return qeval.StatusFail, "not executed: " + reason
	case cfg.ExecutionOnly && v != nil && v.Match:
		return qeval.StatusPass, ""
	case cfg.ExecutionOnly && v != nil && v.State != nil:
		return qeval.StatusFail, "the state after the generated answer differs from the gold's"
	case cfg.ExecutionOnly:
		return qeval.StatusFail, "the results do not match (pass_requires: [execution])"
	case total == nil:
		return qeval.StatusFail, "no score component could be computed"
	case Passes(*total, threshold) && cfg.RequireExecutionMatch && (v == nil || !v.Match):
		return qeval.StatusFail, fmt.Sprintf("total score %.1f%% reaches the threshold, but the results do not match (pass_requires: execution)", 100**total)
	case Passes(*total, threshold):
		return qeval.StatusPass, ""
	default:
		return qeval.StatusFail, fmt.Sprintf("total score %.1f%% is below the threshold %.1f%%", 100**total, 100*threshold)
	}
}

// executionNotes returns a case's reason with what its execution verdict v adds: a
// failure that comes down to the generated query not parsing is said as that, a
// mismatch is followed by how the results or the states differ, and a query the engine
// does not support is flagged.
func executionNotes(reason, status string, ms map[string]Result, v *qeval.Verdict) string {
	if why := generatedParseError(ms); why != "" && status == qeval.StatusFail && (v == nil || engineSyntaxError(v) && v.State == nil) {
		// the model's failure, said once (the engine's own refusal, a second statement or
		// a forbidden one, says more and is kept)
		reason = "generated query does not parse: " + why
	}
	if v != nil && v.Outcome == qeval.OutcomeMismatch && v.Explanation != nil && status != qeval.StatusPass {
		reason += "; the results differ: " + v.Explanation.String()
	}
	if v != nil && v.Outcome == qeval.OutcomeMismatch && v.State != nil && status != qeval.StatusPass {
		reason += ": " + v.State.String()
	}
	if v != nil && v.Outcome == qeval.OutcomeUnsupported {
		flag := "flagged: the engine does not support the generated query (" + v.Error + "); it is scored on its other components"
		if reason != "" {
			flag = reason + "; " + flag
		}
		reason = flag
	}
	return reason
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
