package metric_test

import (
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func TestExecutionMatch(t *testing.T) {
	rows := &qeval.ResultSet{Rows: [][]qeval.Value{{qeval.Int(1)}, {qeval.Int(2)}}}
	tests := []struct {
		name    string
		v       *qeval.Verdict
		score   any // float64, "skip" or "error"
		contain string
	}{
		{"Match", &qeval.Verdict{Match: true, Outcome: qeval.OutcomeMatch, Mode: "bag@1", Gold: rows, Pred: rows, PredTime: 1500 * time.Microsecond}, 1.0, ""},
		{"Mismatch", &qeval.Verdict{Outcome: qeval.OutcomeMismatch}, 0.0, ""},
		{"PredError", &qeval.Verdict{Outcome: qeval.OutcomePredError, Error: "no such column: x"}, 0.0, ""},
		{"Timeout", &qeval.Verdict{Outcome: qeval.OutcomeTimeout}, 0.0, ""},
		{"GoldError", &qeval.Verdict{Outcome: qeval.OutcomeGoldError, Error: "no such table: t"}, "error", "run expected query: no such table: t"},
		{"Canceled", &qeval.Verdict{Outcome: qeval.OutcomeCanceled}, "error", "canceled"},
		{"Skipped", &qeval.Verdict{Outcome: qeval.OutcomeSkipped, Error: "no generated query"}, "skip", "execution skipped: no generated query"},
		{"NoVerdict", nil, "skip", "not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := evalOne(t, metric.NameExecutionMatch, metric.Case{Execution: tt.v})
			switch want := tt.score.(type) {
			case float64:
				if r.Score == nil || *r.Score != want || r.Error != nil || r.Details["outcome"] != string(tt.v.Outcome) {
					t.Errorf("result=%+v, want score %v with outcome %s", r, want, tt.v.Outcome)
				}
			case string:
				var msg string
				if want == "skip" && r.Skipped != nil {
					msg = *r.Skipped
				}
				if want == "error" && r.Error != nil {
					msg = r.Error.Message
				}
				if !strings.Contains(msg, tt.contain) || msg == "" {
					t.Errorf("result=%+v, want %s containing %q", r, want, tt.contain)
				}
			}
		})
	}
	r := metric.ExecutionMatch(qeval.Verdict{Match: true, Outcome: qeval.OutcomeMatch, Gold: rows, Pred: rows, PredTime: 1500 * time.Microsecond})
	if r.Details["generated_rows"] != 2 || r.Details["generated_ms"] != 1.5 {
		t.Errorf("details=%v, want generated_rows 2 and generated_ms 1.5", r.Details)
	}
	skip := evalOne(t, metric.NameExecutionMatch, metric.Case{ExecutionSkipped: "no --db given"})
	if skip.Skipped == nil || *skip.Skipped != "no --db given" {
		t.Errorf("ExecutionSkipped reason not used: %+v", skip)
	}
}
