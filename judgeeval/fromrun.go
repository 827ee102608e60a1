package judgeeval

import (
	"encoding/json"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/errclass"
)

// FromCase makes a label of a run's case when execution settled whether its generated
// query is right: results that match are correct, unless verification found a
// database on which they differ (a counterexample: incorrect); results that differ
// and a generated query the engine rejected are incorrect, with the case's main error
// class. A timeout, a result too large, a gold that failed and the like settle
// nothing: ok is false. dialect is the run's, for cases that name none.
func FromCase(c *qeval.CaseResult, dialect string) (l Label, ok bool) {
	v := c.Verdict
	if v == nil || strings.TrimSpace(c.ExpectedQuery) == "" || strings.TrimSpace(c.GeneratedQuery) == "" {
		return Label{}, false
	}
	l = Label{ID: c.ID, Question: c.Question, Expected: c.ExpectedQuery, Generated: c.GeneratedQuery, Database: c.Database,
		Dialect: dialect, Source: "execution"}
	switch v.Outcome {
	case qeval.OutcomeMatch:
		l.Label = qeval.JudgeCorrect
		if line, _ := c.ItemLine(); counterexample(line) {
			l.Label, l.Source = qeval.JudgeIncorrect, "counterexample"
			l.Class = qeval.MainErrorClass(errclass.Classify(errclass.Pair{Dialect: dialect, Expected: c.ExpectedQuery, Generated: c.GeneratedQuery}))
		}
	case qeval.OutcomeMismatch, qeval.OutcomePredError, qeval.OutcomeCompileError:
		l.Label, l.Class = qeval.JudgeIncorrect, qeval.MainErrorClass(c.ErrorClass)
	default:
		return Label{}, false
	}
	return l, true
}

// FromReport makes the labels of a run's cases that execution settled (FromCase).
func FromReport(r *qeval.Report) ([]Label, error) {
	var out []Label
	for i := range r.Cases {
		c, err := r.Case(i)
		if err != nil {
			return nil, err
		}
		if l, ok := FromCase(c, r.Run.Dialect); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// counterexample says whether a benchmark item's line records a verification that
// found a database telling the queries apart (qeval spider --verify).
func counterexample(item json.RawMessage) bool {
	if len(item) == 0 {
		return false
	}
	var v struct {
		Status qeval.VerifyStatus `json:"status"`
	}
	return json.Unmarshal(item, &v) == nil && v.Status == qeval.VerifyCounterexample
}
