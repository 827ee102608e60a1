package metric_test

import (
	"context"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func TestLLMGrading(t *testing.T) {
	in := qeval.JudgeInput{Generated: "SELECT name FROM singer WHERE age > 30", Expected: "SELECT name FROM singer WHERE age >= 30"}
	t.Run("Score", func(t *testing.T) {
		j := verdict("", 0.72)
		r := metric.LLMGrading(context.Background(), j, in, metric.JudgeOptions{})
		if r.Score == nil || *r.Score != 0.72 || r.Details["reasoning"] != "because" {
			t.Fatalf("LLMGrading = %+v, want 0.72 with the reasoning", r)
		}
		if _, ok := r.Details["verdict"]; ok {
			t.Errorf("Details has a verdict %v; grading has none", r.Details["verdict"])
		}
		if got := j.last.Load().Task; got != qeval.TaskLLMGrading {
			t.Errorf("task = %q, want llm_grading", got)
		}
	})
	t.Run("Identical", func(t *testing.T) {
		j := verdict("", 0.1)
		r := metric.LLMGrading(context.Background(), j, qeval.JudgeInput{Generated: "select 1;", Expected: "SELECT 1"}, metric.JudgeOptions{})
		if j.calls.Load() != 0 || *r.Score != 1 || r.Details["reasoning"] != metric.ReasonIdentical {
			t.Errorf("calls %d, result %+v; want 1 without a call", j.calls.Load(), r)
		}
	})
	// An execution match says nothing of efficiency or logic: the grade is still asked.
	t.Run("ExecMatchStillAsks", func(t *testing.T) {
		j := verdict("", 0.9)
		r := metric.LLMGrading(context.Background(), j, in, metric.JudgeOptions{ExecMatch: true})
		if j.calls.Load() != 1 || *r.Score != 0.9 {
			t.Errorf("calls %d, score %v; want the judge asked", j.calls.Load(), *r.Score)
		}
	})
	t.Run("NoJudge", func(t *testing.T) {
		r := metric.LLMGrading(context.Background(), nil, in, metric.JudgeOptions{NoJudgeReason: "no key"})
		if r.Skipped == nil || *r.Skipped != "no key" {
			t.Errorf("LLMGrading(nil) = %+v, want skipped", r)
		}
	})
	t.Run("Error", func(t *testing.T) {
		j := &fakeJudge{err: &qeval.Error{Code: qeval.CodeUnavailable, Op: "judge: openai", Message: "429 too many requests (gave up after 4 tries in 38s)"}}
		r := metric.LLMGrading(context.Background(), j, in, metric.JudgeOptions{})
		if r.Error == nil || *r.Score != 0 || r.Error.Metric != metric.NameLLMGrading || r.Details["error_code"] != "unavailable" {
			t.Errorf("LLMGrading = %+v, want 0 with the error", r)
		}
	})
}
