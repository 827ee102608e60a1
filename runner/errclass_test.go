package runner_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/runner"
)

func TestSummarize_ErrorClasses(t *testing.T) {
	class := func(sub string) []qeval.ErrorClass {
		return []qeval.ErrorClass{{Class: qeval.ClassOfSubclass(sub), Subclass: sub}, {Class: "other", Subclass: "other.timeout"}}
	}
	cases := []qeval.CaseResult{
		{ID: "a", Status: qeval.StatusPass},
		{ID: "b", Status: qeval.StatusFail, ErrorClass: class("value.literal")},
		{ID: "c", Status: qeval.StatusFail, ErrorClass: class("clause.limit")},
		{ID: "d", Status: qeval.StatusFail, ErrorClass: class("value.literal")},
		{ID: "e", Status: qeval.StatusFail, ErrorClass: class("clause.order_direction")},
		{ID: "f", Status: qeval.StatusError},
	}
	s := runner.Summarize(cases, 0.5)
	if len(s.ErrorClasses) != 2 {
		t.Fatalf("ErrorClasses=%+v, want value and clause", s.ErrorClasses)
	}
	v, c := s.ErrorClasses[0], s.ErrorClasses[1]
	if v.Class != "value" || v.Count != 2 || v.Subclasses["value.literal"] != 2 || c.Class != "clause" || c.Count != 2 || len(c.Subclasses) != 2 {
		t.Errorf("ErrorClasses=%+v %+v", v, c)
	}
	// 2 of 4: Wilson 95% interval [0.150, 0.850] (z = 1.96: centre 0.5, half 1.96·√(0.25/4 + 3.8416/64)/1.9604)
	if sh := v.Share; sh.N != 4 || sh.Value != 0.5 || math.Abs(sh.Low-0.1500) > 1e-3 || math.Abs(sh.High-0.8500) > 1e-3 || !sh.SmallN {
		t.Errorf("Share=%+v, want 0.5 in [0.150, 0.850] over 4, small", sh)
	}
}
