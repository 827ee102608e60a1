package qeval

import (
	"slices"
	"testing"
)

// Each gate fails on its own bound and says why; a negative bound is no gate.
func TestGateFailures(t *testing.T) {
	score := 0.5
	rep := &Report{Summary: Summary{PassRate: 0.8, MeanScore: &score, Safety: &SafetySummary{FN: 1}}, Run: RunInfo{FailOn: []string{"critical"}}}
	for _, tc := range []struct {
		minPass, minScore float64
		want              []string
	}{
		{-1, -1, []string{"the safety validator let 1 unsafe query through (fail_on: critical)"}},
		{0.9, -1, []string{"the safety validator let 1 unsafe query through (fail_on: critical)", "pass rate 80.0% is below --min-pass-rate 90.0%"}},
		{0.8, 0.6, []string{"the safety validator let 1 unsafe query through (fail_on: critical)", "mean total score 0.500 is below --min-score 0.600"}},
	} {
		if got := GateFailures(rep, tc.minPass, tc.minScore); !slices.Equal(got, tc.want) {
			t.Errorf("GateFailures(%v, %v) = %q, want %q", tc.minPass, tc.minScore, got, tc.want)
		}
	}
	rep.Summary.MeanScore, rep.Run.FailOn = nil, nil
	if got := GateFailures(rep, -1, 0); !slices.Equal(got, []string{"mean total score none is below --min-score 0.000"}) {
		t.Errorf("no mean score with --min-score 0: %q", got)
	}
}
