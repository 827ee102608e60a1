package runner

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Summarize aggregates case results: pass rate, means, execution accuracy with its
// 95% bootstrap interval (seeded), breakdown by tag, the safety and validation
// confusion, calibration, the score histogram and the slowest cases.
func Summarize(cases []qeval.CaseResult, threshold float64) qeval.Summary {
	s := summarize(cases, threshold)
	var d qeval.Disagreements
	for _, c := range cases {
		if c.JudgeError {
			s.JudgeErrors++
		}
		if c.Verdict == nil || c.TotalScore == nil || (c.Verdict.Outcome != qeval.OutcomeMatch && c.Verdict.Outcome != qeval.OutcomeMismatch) {
			continue
		}
		passes := metric.Passes(*c.TotalScore, threshold)
		switch {
		case passes && !c.Verdict.Match:
			d.ScoreWithoutMatch++
		case !passes && c.Verdict.Match:
			d.MatchWithoutScore++
		}
	}
	if d.ScoreWithoutMatch+d.MatchWithoutScore > 0 {
		s.Disagreements = &d
	}
	s.JudgeAgreement = JudgeAgreement(cases)
	s.JudgeConsistency, s.PanelAgreement = judgeEnsembles(cases)
	return s
}

// judgeEnsembles sums up the samples and the panel answers of query correctness.
func judgeEnsembles(cases []qeval.CaseResult) (*qeval.JudgeConsistency, []qeval.PanelAgreement) {
	var jc qeval.JudgeConsistency
	var agree, spread float64
	panels := map[string]*qeval.PanelAgreement{}
	var order []string
	for _, c := range cases {
		r, ok := c.Metrics[metric.NameQueryCorrectness]
		if !ok || r.Score == nil || r.Error != nil {
			continue
		}
		if n, ok := number(r.Details["samples"]); ok && n > 1 {
			a, _ := number(r.Details["sample_agreement"])
			sp, _ := number(r.Details["sample_spread"])
			jc.Cases++
			jc.Samples = max(jc.Samples, int(n))
			agree += a
			spread += sp
			if a >= 1 {
				jc.Unanimous++
			}
		}
		first, _ := r.Details["verdict"].(string)
		list, _ := r.Details["panel"].([]any)
		for _, x := range list {
			m, _ := x.(map[string]any)
			model, _ := m["model"].(string)
			other, _ := m["verdict"].(string)
			p := panels[model]
			if p == nil {
				p = &qeval.PanelAgreement{Model: model}
				panels[model] = p
				order = append(order, model)
			}
			if msg, _ := m["error"].(string); msg != "" || other == "" || first == "" {
				p.Errors++
				continue
			}
			a, b := first == qeval.JudgeCorrect, other == qeval.JudgeCorrect
			p.N++
			switch {
			case a && b:
				p.BothCorrect++
			case a:
				p.FirstOnly++
			case b:
				p.OtherOnly++
			default:
				p.BothWrong++
			}
		}
	}
	var out []qeval.PanelAgreement
	for _, m := range order {
		p := panels[m]
		p.Agreement, p.Kappa = metric.CohenKappa(p.BothCorrect, p.FirstOnly, p.OtherOnly, p.BothWrong)
		out = append(out, *p)
	}
	if jc.Cases == 0 {
		return nil, out
	}
	jc.MeanAgreement = agree / float64(jc.Cases)
	jc.MeanSpread = spread / float64(jc.Cases)
	return &jc, out
}

// number reads a detail that is an int (fresh) or a float64 (read back from JSON).
func number(x any) (float64, bool) {
	switch v := x.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// JudgeAgreement compares the judge's query_correctness verdict with execution match
// on the cases where the model was asked (not answered by a shortcut) and both queries
// ran: the 2×2 table, Cohen's κ and the disagreeing cases. Nil when there are none.
func JudgeAgreement(cases []qeval.CaseResult) *qeval.JudgeAgreement {
	a := &qeval.JudgeAgreement{}
	for _, c := range cases {
		verdict, reasoning, ok := judgeVerdict(c)
		if !ok || c.Verdict == nil || (c.Verdict.Outcome != qeval.OutcomeMatch && c.Verdict.Outcome != qeval.OutcomeMismatch) {
			continue
		}
		a.N++
		correct, match := verdict == qeval.JudgeCorrect, c.Verdict.Match
		switch {
		case correct && match:
			a.CorrectMatch++
		case correct:
			a.CorrectMismatch++
		case match:
			a.WrongMatch++
		default:
			a.WrongMismatch++
		}
		if correct == match {
			continue
		}
		kind := qeval.SuspectGold
		if match {
			kind = qeval.SuspectLuckyMatch
		}
		a.Disagreements = append(a.Disagreements, qeval.JudgeDisagreement{ID: c.ID, Kind: kind, Question: c.Question,
			Verdict: verdict, Reasoning: reasoning, Outcome: c.Verdict.Outcome, Expected: c.ExpectedQuery,
			Generated: c.GeneratedQuery, Suite: suiteNote(c.Verdict)})
	}
	if a.N == 0 {
		return nil
	}
	a.Agreement, a.Kappa = metric.CohenKappa(a.CorrectMatch, a.CorrectMismatch, a.WrongMatch, a.WrongMismatch)
	return a
}

// judgeVerdict is the verdict the model gave on a case, if it was asked.
func judgeVerdict(c qeval.CaseResult) (verdict, reasoning string, ok bool) {
	r, found := c.Metrics[metric.NameQueryCorrectness]
	if !found || r.Score == nil || r.Error != nil {
		return "", "", false
	}
	called, _ := r.Details["llm_called"].(bool)
	cached, _ := r.Details["cached"].(bool)
	verdict, _ = r.Details["verdict"].(string)
	reasoning, _ = r.Details["reasoning"].(string)
	return verdict, reasoning, (called || cached) && verdict != ""
}

// suiteNote says, for a verdict decided on a test suite, whether the original database
// (DIR/<db_id>/<db_id>.sqlite: the file named after its folder) alone gives it.
func suiteNote(v *qeval.Verdict) string {
	if v.Databases < 2 {
		return ""
	}
	if v.Match {
		return fmt.Sprintf("the results match on all %d databases of the test suite", v.Databases)
	}
	base := filepath.Base(v.Database)
	if !qeval.IsOriginalDatabase(v.Database) {
		return fmt.Sprintf("the results match on the original database but differ on %s, a generated database of the test suite", base)
	}
	return fmt.Sprintf("the results differ on the original database (%s); the test suite has %d databases", base, v.Databases)
}

func summarize(cases []qeval.CaseResult, threshold float64) qeval.Summary {
	s := qeval.Summary{Total: len(cases), ComponentMeans: map[string]*float64{}, MetricMeans: map[string]*float64{},
		Outcomes: map[qeval.Outcome]int{}, ScoreHistogram: make([]int, 10)}
	var scores []float64
	byMetric := map[string][]qeval.MetricResult{}
	var execK, execN int
	var calib []metric.CalibrationCase
	type tagAcc struct{ n, pass, execK, execN int }
	tags := map[string]*tagAcc{}
	for _, c := range cases {
		switch c.Status {
		case qeval.StatusPass:
			s.Passed++
		case qeval.StatusFail:
			s.Failed++
		case qeval.StatusUnscorable:
			s.Unscorable++
		default:
			s.Errors++
		}
		if c.Verdict != nil && c.Verdict.Outcome == qeval.OutcomeUnsupported {
			s.Unsupported++
		}
		if c.TotalScore != nil {
			scores = append(scores, *c.TotalScore)
			bin := int(*c.TotalScore * 10)
			if bin > 9 {
				bin = 9
			}
			if bin < 0 {
				bin = 0
			}
			s.ScoreHistogram[bin]++
		}
		for name, m := range c.Metrics {
			byMetric[name] = append(byMetric[name], m)
		}
		matched, judged := false, false
		if c.Verdict != nil {
			s.Outcomes[c.Verdict.Outcome]++
			if c.Verdict.Outcome.Judged() {
				judged, matched = true, c.Verdict.Match
				execN++
				if matched {
					execK++
				}
			}
		}
		for _, t := range c.Tags {
			ta := tags[t]
			if ta == nil {
				ta = &tagAcc{}
				tags[t] = ta
			}
			ta.n++
			if c.Status == qeval.StatusPass {
				ta.pass++
			}
			if judged {
				ta.execN++
				if matched {
					ta.execK++
				}
			}
		}
		if c.Confidence != nil && judged {
			cc := metric.CalibrationCase{Level: c.Confidence.Level}
			if c.Confidence.Value != nil {
				cc.Confidence = *c.Confidence.Value
			} else if v, ok := metric.LevelValue(c.Confidence.Level); ok {
				cc.Confidence = v
			}
			if matched {
				cc.Correct = 1
			}
			calib = append(calib, cc)
		}
	}
	if n := s.Total - s.Unscorable; n > 0 {
		s.PassRate = float64(s.Passed) / float64(n)
	}
	s.MeanScore = mean(scores)
	for name, rs := range byMetric {
		var vals []float64
		for _, m := range rs {
			if m.Score != nil && m.Skipped == nil {
				vals = append(vals, *m.Score)
			}
		}
		s.MetricMeans[name] = mean(vals)
	}
	for _, n := range qeval.Components {
		s.ComponentMeans[n] = s.MetricMeans[n]
	}
	bo := metric.BootstrapOptions{}
	if execN > 0 {
		s.ExecutionAccuracy = interval(metric.BootstrapProportion(execK, execN, bo), execK, execN)
	}
	s.TestSuite = testSuiteSummary(cases, bo)
	names := make([]string, 0, len(tags))
	for t := range tags {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		ta := tags[t]
		ts := qeval.TagSummary{Tag: t, Count: ta.n, PassRate: float64(ta.pass) / float64(ta.n)}
		if ta.execN > 0 {
			ts.Accuracy = interval(metric.BootstrapProportion(ta.execK, ta.execN, bo), ta.execK, ta.execN)
		}
		s.ByTag = append(s.ByTag, ts)
	}
	if safety := metric.SummarizeSafety(byMetric[metric.NameSafetyValidation], bo); safety.Counted > 0 {
		m := safety.Confusion
		s.Safety = &qeval.SafetySummary{TP: m.TP, TN: m.TN, FP: m.FP, FN: m.FN, Precision: safety.Precision, Recall: safety.Recall, Critical: safety.Critical}
		s.Warnings = append(s.Warnings, safety.Warnings...)
	}
	if val := metric.SummarizeValidation(byMetric[metric.NameValidationAccuracy], bo); val.Counted > 0 {
		vs := &qeval.ValidationSummary{Total: val.Counted, ByType: map[string]int{}, ByCategory: map[string]int{}}
		if val.Accuracy != nil {
			vs.Accuracy = *val.Accuracy
			vs.Correct = val.Confusion.TP + val.Confusion.TN
		}
		for typ, cats := range val.Categories {
			for cat, n := range cats {
				vs.ByType[typ] += n
				vs.ByCategory[metric.CategoryName(cat)] += n
			}
		}
		s.Validation = vs
	}
	if len(calib) > 0 {
		if rep, err := metric.Calibrate(calib, metric.CalibrationOptions{}); err == nil {
			s.Calibration = calibration(rep)
			s.Warnings = append(s.Warnings, rep.Warnings...)
		}
	}
	if s.Unscorable > 0 || s.Unsupported > 0 {
		s.Warnings = append(s.Warnings, unsupportedWarning(cases, s.Unscorable, s.Unsupported))
	}
	slow := append([]qeval.CaseResult(nil), cases...)
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].DurationMS > slow[j].DurationMS })
	for i := 0; i < len(slow) && i < 5 && slow[i].DurationMS > 0; i++ {
		s.Slowest = append(s.Slowest, qeval.SlowCase{ID: slow[i].ID, DurationMS: slow[i].DurationMS})
	}
	return s
}

func calibration(r metric.CalibrationReport) *qeval.CalibrationSummary {
	c := &qeval.CalibrationSummary{Score: r.Score, Interpretation: r.Interpretation, Warnings: r.Warnings,
		ECE: f(r.ECE), MCE: f(r.MCE), Brier: f(r.Brier), AUROC: r.AUROC, AURC: f(r.AURC)}
	for _, g := range r.Groups {
		c.Groups = append(c.Groups, qeval.CalibrationGroup{Name: g.Level, Count: g.Count, Accuracy: g.Accuracy})
	}
	for _, b := range r.Bins {
		c.Bins = append(c.Bins, qeval.ReliabilityBin{Lower: b.Lower, Upper: b.Upper, Count: b.Count, Confidence: b.Confidence, Accuracy: b.Accuracy})
	}
	return c
}

func f(x float64) *float64 { return &x }

// testSuiteSummary sets single-database accuracy beside test-suite accuracy over the
// cases whose verdict knows both (nil when none was judged on a suite).
func testSuiteSummary(cases []qeval.CaseResult, bo metric.BootstrapOptions) *qeval.TestSuiteSummary {
	var single, suite, n int
	var flipped []qeval.FlippedCase
	for _, c := range cases {
		v := c.Verdict
		if v == nil || v.OriginalMatch == nil {
			continue
		}
		n++
		if *v.OriginalMatch {
			single++
		}
		if v.Match {
			suite++
		} else if *v.OriginalMatch {
			flipped = append(flipped, qeval.FlippedCase{ID: c.ID, Database: v.Database, Explanation: v.Explanation})
		}
	}
	if n == 0 {
		return nil
	}
	return &qeval.TestSuiteSummary{Cases: n,
		SingleDatabase: interval(metric.BootstrapProportion(single, n, bo), single, n),
		Suite:          interval(metric.BootstrapProportion(suite, n, bo), suite, n),
		Flipped:        flipped}
}

func interval(iv metric.Interval, k, n int) *qeval.Interval {
	return &qeval.Interval{Value: float64(k) / float64(n), Low: iv.Lower, High: iv.Upper, N: n}
}

func mean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	return &m
}

// unsupportedWarning says which cases the engine could not score: the unscorable ones
// (their gold query uses what it does not support; left out of the pass rate) and the
// flagged ones (their generated query does; scored on their other components), with
// the first few ids of each.
func unsupportedWarning(cases []qeval.CaseResult, unscorable, unsupported int) string {
	var gold, pred []string
	for _, c := range cases {
		switch {
		case c.Status == qeval.StatusUnscorable && len(gold) < 5:
			gold = append(gold, c.ID)
		case c.Verdict != nil && c.Verdict.Outcome == qeval.OutcomeUnsupported && len(pred) < 5:
			pred = append(pred, c.ID)
		}
	}
	var parts []string
	if unscorable > 0 {
		parts = append(parts, fmt.Sprintf("%d %s unscorable: the gold query uses what the engine does not support, so %s left out of the pass rate and execution accuracy (%s)",
			unscorable, plural(unscorable, "case is", "cases are"), plural(unscorable, "it is", "they are"), idList(gold, unscorable)))
	}
	if unsupported > 0 {
		parts = append(parts, fmt.Sprintf("%d generated %s what the engine does not support: scored on the other components, left out of execution accuracy (%s)",
			unsupported, plural(unsupported, "query uses", "queries use"), idList(pred, unsupported)))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func idList(ids []string, n int) string {
	s := strings.Join(ids, ", ")
	if n > len(ids) {
		s += ", …"
	}
	return s
}
