package runner

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Summarize aggregates case results: pass rate, means, execution accuracy with its
// 95% bootstrap interval (seeded), breakdown by tag, the safety and validation
// confusion, calibration, the score histogram and the slowest cases.
func Summarize(cases []qeval.CaseResult, threshold float64) qeval.Summary {
	sm := NewSummarizer(threshold)
	for i := range cases {
		sm.Add(&cases[i])
	}
	return sm.Summary()
}

// Summarizer builds a run's summary case by case, in suite order, keeping only the
// few numbers of each case the summary needs (a score per metric, the outcome, the
// tags' counts): a run of 200,000 cases does not hold their results to summarize
// them. Summary gives what Summarize gives over the same cases.
type Summarizer struct {
	threshold  float64
	s          qeval.Summary
	d          qeval.Disagreements
	scores     []float64
	metrics    map[string]*metricAcc
	safety     []qeval.MetricResult // safety_validation results (summary details only)
	validation []qeval.MetricResult // validation_accuracy results (summary details only)
	execK      int
	execN      int
	tags       map[string]*tagAcc
	calib      []metric.CalibrationCase
	// the test suite beside the original database
	tsN, tsSingle, tsSuite int
	flipped                []qeval.FlippedCase
	verif                  verifAcc
	// the first ids of the unscorable cases and of those the engine could not run
	unscorableIDs, unsupportedIDs []string
	slow                          []qeval.SlowCase // the five slowest so far
	judged                        []qeval.CaseResult
	// failures by main error class and by first subclass
	classes    map[string]int
	subclasses map[string]map[string]int
	classified int
}

type metricAcc struct {
	sum float64
	n   int
}

type tagAcc struct{ n, pass, execK, execN int }

// NewSummarizer starts an empty summary with this pass threshold.
func NewSummarizer(threshold float64) *Summarizer {
	return &Summarizer{threshold: threshold, metrics: map[string]*metricAcc{}, tags: map[string]*tagAcc{},
		s: qeval.Summary{Outcomes: map[qeval.Outcome]int{}, ScoreHistogram: make([]int, 10)}}
}

// Add counts the next case (cases are added in suite order; the lists the summary
// keeps, such as the flipped cases and the slowest ones, follow it).
func (sm *Summarizer) Add(c *qeval.CaseResult) {
	s := &sm.s
	s.Total++
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
	unsupported := c.Verdict != nil && c.Verdict.Outcome == qeval.OutcomeUnsupported
	if unsupported {
		s.Unsupported++
	}
	switch {
	case c.Status == qeval.StatusUnscorable && len(sm.unscorableIDs) < 5:
		sm.unscorableIDs = append(sm.unscorableIDs, c.ID)
	case unsupported && len(sm.unsupportedIDs) < 5:
		sm.unsupportedIDs = append(sm.unsupportedIDs, c.ID)
	}
	if c.TotalScore != nil {
		sm.scores = append(sm.scores, *c.TotalScore)
		s.ScoreHistogram[min(9, max(0, int(*c.TotalScore*10)))]++
	}
	sm.addMetrics(c)
	sm.verif.add(c)
	judged, matched := sm.addVerdict(c)
	sm.addTags(c, judged, matched)
	if cc, ok := metric.CaseCalibration(c); ok {
		sm.calib = append(sm.calib, cc)
	}
	if c.DurationMS > 0 {
		sm.addSlow(qeval.SlowCase{ID: c.ID, DurationMS: c.DurationMS})
	}
	if c.JudgeError {
		s.JudgeErrors++
	}
	if len(c.ErrorClass) > 0 {
		sm.addClass(c.ErrorClass[0])
	}
	// a stateful case is decided by its state alone: its score says nothing against it
	if c.Verdict != nil && c.Verdict.State == nil && c.TotalScore != nil && (c.Verdict.Outcome == qeval.OutcomeMatch || c.Verdict.Outcome == qeval.OutcomeMismatch) {
		passes := metric.Passes(*c.TotalScore, sm.threshold)
		switch {
		case passes && !c.Verdict.Match:
			sm.d.ScoreWithoutMatch++
		case !passes && c.Verdict.Match:
			sm.d.MatchWithoutScore++
		}
	}
	if r, ok := c.Metrics[metric.NameQueryCorrectness]; ok && r.Score != nil && r.Error == nil {
		sm.judged = append(sm.judged, summaryView(*c)) // the judge's agreement, samples and panel
	}
}

// addMetrics counts each metric's score (skipped ones left out) and keeps the safety
// and validation metrics for their tables.
func (sm *Summarizer) addMetrics(c *qeval.CaseResult) {
	for name, m := range c.Metrics {
		acc := sm.metrics[name]
		if acc == nil {
			acc = &metricAcc{}
			sm.metrics[name] = acc
		}
		if m.Score != nil && m.Skipped == nil {
			acc.sum += *m.Score
			acc.n++
		}
		switch name {
		case metric.NameSafetyValidation:
			sm.safety = append(sm.safety, summaryMetric(name, m))
		case metric.NameValidationAccuracy:
			sm.validation = append(sm.validation, summaryMetric(name, m))
		}
	}
}

// addVerdict counts the case's outcome, its execution verdict and its test-suite
// verdicts; it says whether execution judged the case and whether it matched.
func (sm *Summarizer) addVerdict(c *qeval.CaseResult) (judged, matched bool) {
	s := &sm.s
	if v := c.Verdict; v != nil {
		s.Outcomes[v.Outcome]++
		if v.Outcome.Judged() {
			judged, matched = true, v.Match
			sm.execN++
			if matched {
				sm.execK++
			}
		}
		if v.OriginalMatch != nil {
			sm.tsN++
			if *v.OriginalMatch {
				sm.tsSingle++
			}
			if v.Match {
				sm.tsSuite++
			} else if *v.OriginalMatch {
				sm.flipped = append(sm.flipped, qeval.FlippedCase{ID: c.ID, Database: v.Database, Explanation: v.Explanation})
			}
		}
	}
	return judged, matched
}

// addTags counts the case under each of its tags.
func (sm *Summarizer) addTags(c *qeval.CaseResult, judged, matched bool) {
	for _, t := range c.Tags {
		ta := sm.tags[t]
		if ta == nil {
			ta = &tagAcc{}
			sm.tags[t] = ta
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
}

func (sm *Summarizer) addClass(ec qeval.ErrorClass) {
	if sm.classes == nil {
		sm.classes, sm.subclasses = map[string]int{}, map[string]map[string]int{}
	}
	sm.classified++
	sm.classes[ec.Class]++
	if sm.subclasses[ec.Class] == nil {
		sm.subclasses[ec.Class] = map[string]int{}
	}
	sm.subclasses[ec.Class][ec.Subclass]++
}

// errorClasses counts the classified failures by main class, in vocabulary order (a
// class outside it, from an older report, after them).
func (sm *Summarizer) errorClasses() []qeval.ErrorClassCount {
	names := slices.Clone(qeval.ErrorClassNames)
	for _, c := range slices.Sorted(maps.Keys(sm.classes)) {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	var out []qeval.ErrorClassCount
	for _, c := range names {
		if n := sm.classes[c]; n > 0 {
			out = append(out, qeval.ErrorClassCount{Class: c, Count: n, Share: proportion(n, sm.classified), Subclasses: maps.Clone(sm.subclasses[c])})
		}
	}
	return out
}

// addSlow keeps the five slowest cases, the earlier first among equals.
func (sm *Summarizer) addSlow(sc qeval.SlowCase) {
	i := len(sm.slow)
	for i > 0 && sm.slow[i-1].DurationMS < sc.DurationMS {
		i--
	}
	if i >= 5 {
		return
	}
	sm.slow = slices.Insert(sm.slow, i, sc)
	if len(sm.slow) > 5 {
		sm.slow = sm.slow[:5]
	}
}

// summaryMetric is a metric result with only what the summary reads: its score, skip
// reason, failure and the details summaryDetails names.
func summaryMetric(name string, m qeval.MetricResult) qeval.MetricResult {
	out := qeval.MetricResult{Score: m.Score, Skipped: m.Skipped}
	if m.Error != nil { // that it failed, not the inputs it failed on
		out.Error = &qeval.MetricError{Metric: m.Error.Metric, Message: m.Error.Message, GeneratedQuery: m.Error.GeneratedQuery}
	}
	if keys := summaryDetails[name]; len(keys) > 0 && len(m.Details) > 0 {
		out.Details = map[string]any{}
		for _, k := range keys {
			if x, ok := m.Details[k]; ok {
				out.Details[k] = x
			}
		}
	}
	return out
}

// Summary is the summary of the cases added so far.
func (sm *Summarizer) Summary() qeval.Summary {
	s := sm.s
	s.ComponentMeans, s.MetricMeans, s.Outcomes = map[string]*float64{}, map[string]*float64{}, maps.Clone(sm.s.Outcomes)
	s.ScoreHistogram = slices.Clone(sm.s.ScoreHistogram)
	if n := s.Total - s.Unscorable; n > 0 {
		s.PassRate = float64(s.Passed) / float64(n)
	}
	s.MeanScore = mean(sm.scores)
	for name, acc := range sm.metrics {
		s.MetricMeans[name] = nil
		if acc.n > 0 {
			m := acc.sum / float64(acc.n)
			s.MetricMeans[name] = &m
		}
	}
	for _, n := range qeval.Components {
		s.ComponentMeans[n] = s.MetricMeans[n]
	}
	bo := metric.BootstrapOptions{}
	if sm.execN > 0 {
		s.ExecutionAccuracy = proportion(sm.execK, sm.execN)
	}
	s.ErrorClasses = sm.errorClasses()
	if sm.tsN > 0 {
		s.TestSuite = &qeval.TestSuiteSummary{Cases: sm.tsN,
			SingleDatabase: proportion(sm.tsSingle, sm.tsN),
			Suite:          proportion(sm.tsSuite, sm.tsN),
			Flipped:        slices.Clone(sm.flipped)}
	}
	s.Verification = sm.verif.summary()
	for _, t := range slices.Sorted(maps.Keys(sm.tags)) {
		ta := sm.tags[t]
		ts := qeval.TagSummary{Tag: t, Count: ta.n, PassRate: float64(ta.pass) / float64(ta.n)}
		if ta.execN > 0 {
			ts.Accuracy = proportion(ta.execK, ta.execN)
		}
		s.ByTag = append(s.ByTag, ts)
	}
	if safety := metric.SummarizeSafety(sm.safety, bo); safety.Counted > 0 {
		m := safety.Confusion
		s.Safety = &qeval.SafetySummary{TP: m.TP, TN: m.TN, FP: m.FP, FN: m.FN, Precision: safety.Precision, Recall: safety.Recall, Critical: safety.Critical}
		s.Warnings = append(s.Warnings, safety.Warnings...)
	}
	if val := metric.SummarizeValidation(sm.validation, bo); val.Counted > 0 {
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
	if len(sm.calib) > 0 {
		if rep, err := metric.Calibrate(sm.calib, metric.CalibrationOptions{}); err == nil {
			s.Calibration = calibration(rep)
			s.Warnings = append(s.Warnings, rep.Warnings...)
		}
	}
	if s.Unscorable > 0 || s.Unsupported > 0 {
		s.Warnings = append(s.Warnings, unsupportedWarning(sm.unscorableIDs, sm.unsupportedIDs, s.Unscorable, s.Unsupported))
	}
	s.Slowest = slices.Clone(sm.slow)
	if sm.d.ScoreWithoutMatch+sm.d.MatchWithoutScore > 0 {
		d := sm.d
		s.Disagreements = &d
	}
	s.JudgeAgreement = JudgeAgreement(sm.judged)
	s.JudgeConsistency, s.PanelAgreement = judgeEnsembles(sm.judged)
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

// proportion is k of n with its 95% Wilson interval (a percentile bootstrap collapses
// at 0/n and n/n: "0.0% [0.0%, 0.0%] n=7"), marked when n is small.
func proportion(k, n int) *qeval.Interval {
	iv := metric.WilsonInterval(k, n, metric.DefaultLevel)
	return &qeval.Interval{Value: float64(k) / float64(n), Low: iv.Lower, High: iv.Upper, N: n, SmallN: n < metric.SmallN}
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
func unsupportedWarning(gold, pred []string, unscorable, unsupported int) string {
	var parts []string
	if unscorable > 0 {
		parts = append(parts, fmt.Sprintf("%d %s unscorable: the gold query uses what the engine does not support, so %s left out of the pass rate and execution accuracy (%s)",
			unscorable, plural(unscorable, "case is", "cases are"), plural(unscorable, "it is", "they are"), idList(gold, unscorable)))
	}
	if unsupported > 0 {
		parts = append(parts, fmt.Sprintf("%d generated %s what the engine does not support: scored on the other components, left out of execution accuracy (%s)",
			unsupported, plural(unsupported, "query uses", "queries use"), idList(pred, unsupported)))
	}
	return strings.Join(parts, "; ") + "."
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

// summaryDetails are the metric details the summary reads, by metric.
var summaryDetails = map[string][]string{
	metric.NameQueryCorrectness:   {"samples", "sample_agreement", "sample_spread", "verdict", "panel", "llm_called", "cached", "reasoning"},
	metric.NameSafetyValidation:   {"classification"},
	metric.NameValidationAccuracy: {"type", "category"},
}

// summaryView is what the summary keeps of a judged case: what JudgeAgreement and
// judgeEnsembles read (status, outcome, the queries its disagreements quote, the
// judge's details), without result previews or the other metrics' details.
func summaryView(c qeval.CaseResult) qeval.CaseResult {
	v := qeval.CaseResult{ID: c.ID, Status: c.Status, Tags: c.Tags, TotalScore: c.TotalScore, Partial: c.Partial,
		JudgeError: c.JudgeError, Confidence: c.Confidence, DurationMS: c.DurationMS, Duration: c.Duration}
	if _, _, ok := judgeVerdict(c); ok {
		v.Question, v.ExpectedQuery, v.GeneratedQuery = c.Question, c.ExpectedQuery, c.GeneratedQuery
	}
	if c.Verdict != nil {
		ver := &qeval.Verdict{Match: c.Verdict.Match, Outcome: c.Verdict.Outcome, Mode: c.Verdict.Mode, Database: c.Verdict.Database,
			Databases: c.Verdict.Databases, OriginalMatch: c.Verdict.OriginalMatch}
		if ver.OriginalMatch != nil && *ver.OriginalMatch && !ver.Match {
			ver.Explanation = c.Verdict.Explanation // a flipped case: the summary lists it with its explanation
		}
		v.Verdict = ver
	}
	if len(c.ErrorClass) > 0 {
		// the case lists and the page's filter read the first class
		v.ErrorClass = []qeval.ErrorClass{{Class: c.ErrorClass[0].Class, Subclass: c.ErrorClass[0].Subclass}}
	}
	if c.Metrics != nil {
		v.Metrics = make(map[string]qeval.MetricResult, len(c.Metrics))
		for name, m := range c.Metrics {
			v.Metrics[name] = summaryMetric(name, m)
		}
	}
	return v
}
