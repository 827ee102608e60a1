package metric_test

import (
	"testing"

	"github.com/qeval/qeval/metric"
)

func TestSummarize(t *testing.T) {
	rs := []metric.Result{
		metric.Scored(1, nil), metric.Scored(0.5, nil), metric.Scored(0, nil),
		metric.Failed(&metric.Error{Metric: "m", Message: "boom"}),
		metric.Skip("no input"),
	}
	s := metric.Summarize("m", rs, metric.BootstrapOptions{})
	if s.Cases != 5 || s.Scored != 4 || s.Failed != 1 || s.Skipped != 1 || !near(*s.Mean, 1.5/4) {
		t.Errorf("summary=%+v, want 5 cases, 4 scored (mean 0.375), 1 failed, 1 skipped", s)
	}
	if s.CI == nil || s.CI.Lower > *s.Mean || s.CI.Upper < *s.Mean {
		t.Errorf("interval %+v does not hold the mean %v", s.CI, *s.Mean)
	}
	if none := metric.Summarize("m", []metric.Result{metric.Skip("x")}, metric.BootstrapOptions{}); none.Mean != nil || none.CI != nil {
		t.Errorf("nothing scored: %+v, want no mean", none)
	}
}

func TestCorrectness(t *testing.T) {
	rs := map[string]metric.Result{
		metric.NameExecutionMatch:   metric.Scored(1, nil),
		metric.NameLLMGrading:       metric.Scored(0.7, nil),
		metric.NameQueryCorrectness: metric.Failed(&metric.Error{Message: "judge timed out"}),
	}
	if v, ok := metric.Correctness(rs, ""); !ok || v != 1 {
		t.Errorf("default: %v %v, want execution_match's 1", v, ok)
	}
	if v, ok := metric.Correctness(rs, metric.NameLLMGrading); !ok || v != 0.7 {
		t.Errorf("llm_grading: %v %v, want 0.7", v, ok)
	}
	if _, ok := metric.Correctness(rs, metric.NameQueryCorrectness); ok {
		t.Error("a failed metric must not give a correctness")
	}
	if _, ok := metric.Correctness(rs, metric.NameResultsMatch); ok {
		t.Error("an absent metric must not give a correctness")
	}
}
