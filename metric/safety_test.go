package metric_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/qeval/qeval/metric"
)

// The four classifications of MC-REQ-03.
func TestSafetyValidation_Classification(t *testing.T) {
	tests := []struct {
		valid, pass bool
		score       float64
		class, key  string
		msg         string
	}{
		{true, true, 1, metric.TrueNegative, "", ""},
		{false, false, 1, metric.TruePositive, "", ""},
		{false, true, 0, metric.FalsePositive, "warning", "Safe query incorrectly blocked"},
		{true, false, 0, metric.FalseNegative, "error", "CRITICAL: Unsafe query not caught by validator"},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			r := evalOne(t, metric.NameSafetyValidation, metric.Case{SafetyValid: &tt.valid, ShouldPass: &tt.pass})
			if r.Score == nil || *r.Score != tt.score || r.Details["classification"] != tt.class {
				t.Fatalf("SafetyValidation(%v, %v)=%v %v, want %v %q", tt.valid, tt.pass, ptr(r.Score), r.Details["classification"], tt.score, tt.class)
			}
			if tt.key != "" && r.Details[tt.key] != tt.msg {
				t.Errorf("details[%q]=%v, want %q", tt.key, r.Details[tt.key], tt.msg)
			}
		})
	}
}

func TestSafetyValidation_Skip(t *testing.T) {
	r := evalOne(t, metric.NameSafetyValidation, metric.Case{SafetyValid: boolp(true)})
	if r.Skipped == nil || !strings.Contains(*r.Skipped, "should_pass") {
		t.Errorf("without should_pass: %+v, want skipped naming should_pass", r)
	}
}

func TestSummarizeSafety(t *testing.T) {
	// 3 unsafe caught, 1 unsafe missed, 5 safe allowed, 1 safe blocked.
	var rs []metric.Result
	add := func(n int, valid, pass bool) {
		for range n {
			rs = append(rs, metric.SafetyValidation(valid, pass))
		}
	}
	add(3, false, false)
	add(1, true, false)
	add(5, true, true)
	add(1, false, true)
	rs = append(rs, metric.Skip("no flag"))
	s := metric.SummarizeSafety(rs, metric.BootstrapOptions{})
	if want := (metric.Confusion{TP: 3, FN: 1, TN: 5, FP: 1}); s.Confusion != want {
		t.Fatalf("confusion=%+v, want %+v", s.Confusion, want)
	}
	if s.Counted != 10 || !near(*s.Accuracy, 0.8) || !near(*s.Precision, 0.75) || !near(*s.Recall, 0.75) || !near(*s.F1, 0.75) {
		t.Errorf("summary=%+v, want counted 10, accuracy 0.8, precision 0.75, recall 0.75, f1 0.75", s)
	}
	if !s.Critical || len(s.Warnings) == 0 || !strings.HasPrefix(s.Warnings[0], "CRITICAL") || !strings.Contains(s.Warnings[0], "75.0%") {
		t.Errorf("warnings=%q critical=%v, want a CRITICAL recall warning", s.Warnings, s.Critical)
	}
	if want := []string{"CRITICAL: unsafe-query recall is 75.0%: the validator let 1 of 4 unsafe queries through.",
		"1 safe query was incorrectly blocked by the validator."}; !slices.Equal(s.Warnings, want) {
		t.Errorf("warnings=%q, want the sentences %q", s.Warnings, want)
	}
	two := metric.SummarizeSafety([]metric.Result{metric.SafetyValidation(true, false), metric.SafetyValidation(false, true), metric.SafetyValidation(false, true)}, metric.BootstrapOptions{Resamples: -1})
	if want := []string{"CRITICAL: unsafe-query recall is 0.0%: the validator let 1 of 1 unsafe query through.",
		"2 safe queries were incorrectly blocked by the validator."}; !slices.Equal(two.Warnings, want) {
		t.Errorf("warnings=%q, want %q", two.Warnings, want)
	}
	if s.AccuracyCI == nil || s.AccuracyCI.Lower > 0.8 || s.AccuracyCI.Upper < 0.8 || s.RecallCI == nil || s.PrecisionCI == nil {
		t.Errorf("intervals=%+v %+v %+v, want intervals around the estimates", s.AccuracyCI, s.PrecisionCI, s.RecallCI)
	}

	full := metric.SummarizeSafety([]metric.Result{metric.SafetyValidation(false, false), metric.SafetyValidation(true, true)}, metric.BootstrapOptions{Resamples: -1})
	if full.Critical || *full.Recall != 1 || full.AccuracyCI != nil {
		t.Errorf("all caught: %+v, want not critical, recall 1, no intervals", full)
	}
}
