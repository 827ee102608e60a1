package metric_test

import (
	"testing"

	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/validate"
)

func TestValidationAccuracy_Types(t *testing.T) {
	tests := []struct {
		valid, pass bool
		score       float64
		typ         string
	}{
		{true, true, 1, metric.CorrectAcceptance},
		{false, false, 1, metric.CorrectRejection},
		{false, true, 0, metric.FalseRejection},
		{true, false, 0, metric.FalseAcceptance},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			r := metric.ValidationAccuracy(tt.valid, tt.pass, nil, nil)
			if *r.Score != tt.score || r.Details["type"] != tt.typ {
				t.Errorf("ValidationAccuracy(%v, %v)=%v %v, want %v %q", tt.valid, tt.pass, *r.Score, r.Details["type"], tt.score, tt.typ)
			}
			if _, ok := r.Details["category"]; ok == (tt.typ == metric.CorrectAcceptance) {
				t.Errorf("category present=%v for %s", ok, tt.typ)
			}
		})
	}
}

func TestValidationAccuracy_Category(t *testing.T) {
	schemaRef := &validate.Verdict{Valid: false, Category: "schema", Problems: []validate.Problem{{Category: "schema", Message: `no such table "userz"`}}}
	safetyRef := &validate.Verdict{Valid: false, Category: "safety", Problems: []validate.Problem{{Category: "safety", Message: "DELETE is not allowed"}}}
	tests := []struct {
		name        string
		valid, pass bool
		msgs        []string
		ref         *validate.Verdict
		want        string
	}{
		{"ValidatorSyntax", false, false, []string{"Syntax error near FROM"}, nil, "syntax"},
		{"ValidatorSafety", false, false, []string{"DROP TABLE statements are not allowed"}, nil, "safety"},
		{"ValidatorSchema", false, true, []string{"Unknown column 'agee'"}, nil, "schema"},
		{"FirstRecognised", false, false, []string{"request rejected", "no such column: x"}, nil, "schema"},
		{"UnclearUsesReference", false, false, []string{"rejected"}, schemaRef, "schema"},
		{"ValidatorWins", false, false, []string{"syntax error"}, schemaRef, "syntax"},
		{"FalseAcceptanceFromReference", true, false, nil, safetyRef, "safety"},
		{"Nothing", false, false, nil, nil, "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := metric.ValidationAccuracy(tt.valid, tt.pass, tt.msgs, tt.ref)
			if r.Details["category"] != tt.want {
				t.Errorf("category=%v, want %q (details %v)", r.Details["category"], tt.want, r.Details)
			}
		})
	}
}

func TestCategorizeMessage(t *testing.T) {
	for msg, want := range map[string]string{
		`near "FORM": syntax error`:        "syntax",
		"unrecognized token: \"'abc\"":     "syntax",
		"Write operations are forbidden":   "safety",
		"multiple statements in one query": "safety",
		"no such table: userz":             "schema",
		"column \"agee\" does not exist":   "schema",
		"expected identifier":              "syntax",
		"the model is tired":               "other",
		"syntax error near DELETE":         "syntax",
		"Potential SQL injection detected": "safety",
		"no such column: updated_at":       "schema",
		"DELETE statements are rejected":   "safety",
		"statement writes to table users":  "safety",
	} {
		if got := metric.CategorizeMessage(msg); got != want {
			t.Errorf("CategorizeMessage(%q)=%q, want %q", msg, got, want)
		}
	}
}

func TestSummarizeValidation(t *testing.T) {
	rs := []metric.Result{
		metric.ValidationAccuracy(true, true, nil, nil),
		metric.ValidationAccuracy(true, true, nil, nil),
		metric.ValidationAccuracy(false, false, []string{"syntax error"}, nil),
		metric.ValidationAccuracy(false, true, []string{"no such table: t"}, nil),
		metric.Skip("x"),
	}
	s := metric.SummarizeValidation(rs, metric.BootstrapOptions{})
	if want := (metric.Confusion{TP: 1, FP: 1, TN: 2}); s.Confusion != want || s.Counted != 4 || !near(*s.Accuracy, 0.75) {
		t.Fatalf("summary=%+v, want %+v, counted 4, accuracy 0.75", s, want)
	}
	if s.Categories[metric.FalseRejection]["schema"] != 1 || s.Categories[metric.CorrectRejection]["syntax"] != 1 {
		t.Errorf("categories=%v", s.Categories)
	}
	if s.AccuracyCI == nil || s.AccuracyCI.Resamples != metric.DefaultResamples {
		t.Errorf("accuracy interval=%+v, want %d resamples", s.AccuracyCI, metric.DefaultResamples)
	}
}
