package runner

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func randCases(r *rand.Rand, n int) []qeval.CaseResult {
	statuses := []string{qeval.StatusPass, qeval.StatusFail, qeval.StatusError, qeval.StatusUnscorable}
	outs := []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeMismatch, qeval.OutcomeUnsupported, qeval.OutcomePredError, qeval.OutcomeGoldError}
	var cs []qeval.CaseResult
	for i := 0; i < n; i++ {
		c := qeval.CaseResult{ID: fmt.Sprint("c", i), Status: statuses[r.IntN(4)], DurationMS: float64(r.IntN(5))}
		if r.IntN(5) > 0 {
			x := float64(r.IntN(11)) / 10
			c.TotalScore = &x
		}
		if r.IntN(3) > 0 {
			c.Tags = []string{fmt.Sprint("t", r.IntN(3))}
		}
		c.JudgeError = r.IntN(7) == 0
		if r.IntN(4) > 0 {
			v := &qeval.Verdict{Outcome: outs[r.IntN(len(outs))], Match: r.IntN(2) == 0, Database: "d/x.sqlite"}
			if r.IntN(2) == 0 {
				om := r.IntN(2) == 0
				v.OriginalMatch, v.Databases = &om, 3
				v.Explanation = &qeval.Explanation{GoldRows: 2}
			}
			c.Verdict = v
		}
		if r.IntN(3) == 0 {
			c.Confidence = &qeval.Confidence{Level: []string{"high", "medium", "low"}[r.IntN(3)]}
		}
		c.Metrics = map[string]qeval.MetricResult{}
		for _, name := range []string{"execution_match", "schema_match", "llm_grading"} {
			m := qeval.MetricResult{}
			switch r.IntN(3) {
			case 0:
				x := r.Float64()
				m.Score = &x
			case 1:
				s := "skipped"
				m.Skipped = &s
			}
			c.Metrics[name] = m
		}
		if r.IntN(2) == 0 {
			cl := []string{metric.TruePositive, metric.FalsePositive, metric.TrueNegative, metric.FalseNegative}[r.IntN(4)]
			x := 1.0
			c.Metrics[metric.NameSafetyValidation] = qeval.MetricResult{Score: &x, Details: map[string]any{"classification": cl, "other": 3}}
		}
		if r.IntN(2) == 0 {
			x := 1.0
			verdict := []string{qeval.JudgeCorrect, "incorrect"}[r.IntN(2)]
			c.Question, c.ExpectedQuery, c.GeneratedQuery = "q", "e", "g"
			c.Metrics[metric.NameQueryCorrectness] = qeval.MetricResult{Score: &x, Details: map[string]any{"verdict": verdict, "llm_called": true, "reasoning": "r",
				"samples": 3, "sample_agreement": 0.5, "sample_spread": 0.2,
				"panel": []any{map[string]any{"model": "m2", "verdict": qeval.JudgeCorrect}}}}
		}
		cs = append(cs, c)
	}
	return cs
}

// The collector summarizes cases in suite order whatever order they finish in, keeps
// only the index view of a stored case, and skips cases that never finished: its
// summary is Summarize's over the finished cases.
func TestCollector_SummaryInSuiteOrder(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		cs := randCases(r, r.IntN(60))
		var finished []qeval.CaseResult
		col := newCollector(len(cs), 0.5)
		for _, i := range r.Perm(len(cs)) {
			if r.IntN(10) == 0 {
				continue // interrupted
			}
			col.finish(i, cs[i], indexView(cs[i]))
		}
		for i := range cs {
			if col.done[i] {
				finished = append(finished, cs[i])
			}
		}
		kept, got := col.close()
		want, _ := json.Marshal(Summarize(finished, 0.5))
		if b, _ := json.Marshal(got); string(b) != string(want) {
			t.Fatalf("seed %d: collector summary\n%s\nwant\n%s", seed, b, want)
		}
		if len(kept) != len(finished) {
			t.Fatalf("seed %d: kept %d cases, %d finished", seed, len(kept), len(finished))
		}
		for i := range kept {
			if kept[i].ID != finished[i].ID || kept[i].Metrics != nil || kept[i].Verdict != nil {
				t.Fatalf("seed %d: kept case %d is %+v, want the index view of %s", seed, i, kept[i], finished[i].ID)
			}
		}
	}
}

// The judge's view of a case (what the summary keeps of a judged case) gives the same
// judge agreement, consistency and panel numbers as the full case.
func TestSummaryView_JudgeNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	cs := randCases(r, 200)
	views := make([]qeval.CaseResult, len(cs))
	for i := range cs {
		views[i] = summaryView(cs[i])
	}
	a, _ := json.Marshal(JudgeAgreement(cs))
	b, _ := json.Marshal(JudgeAgreement(views))
	if string(a) != string(b) || string(a) == "null" {
		t.Fatalf("judge agreement over views %s, over cases %s", b, a)
	}
	jc1, p1 := judgeEnsembles(cs)
	jc2, p2 := judgeEnsembles(views)
	x, _ := json.Marshal([]any{jc1, p1})
	y, _ := json.Marshal([]any{jc2, p2})
	if string(x) != string(y) || jc1 == nil {
		t.Fatalf("ensembles over views %s, over cases %s", y, x)
	}
}
