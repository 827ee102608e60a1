package xlsx

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/xuri/excelize/v2"
)

// sheet writes rows one after another, keeping the first error.
type sheet struct {
	f    *excelize.File
	name string
	row  int
	err  error
}

// put writes v (string, int, float64 or *float64; nil and "" leave the cell empty) in
// column col (1-based) of the current row, with style when it is not 0.
func (s *sheet) put(col int, v any, style int) {
	if s.err != nil {
		return
	}
	cell, err := excelize.CoordinatesToCellName(col, s.row)
	if err != nil {
		s.err = err
		return
	}
	switch x := v.(type) {
	case string:
		if x != "" {
			s.err = s.f.SetCellStr(s.name, cell, x)
		}
	case int:
		s.err = s.f.SetCellInt(s.name, cell, int64(x))
	case float64:
		s.err = setFloat(s.f, s.name, cell, x)
	case *float64:
		if x != nil {
			s.err = setFloat(s.f, s.name, cell, *x)
		}
	}
	if s.err == nil && style != 0 {
		s.err = s.f.SetCellStyle(s.name, cell, cell, style)
	}
}

// header writes a section title row across the given column titles.
func (s *sheet) header(st *styles, titles ...string) {
	s.row += 2
	for i, t := range titles {
		s.put(i+1, t, st.section)
	}
}

func (s *sheet) next() { s.row++ }

// writeSummary fills the Summary sheet: the run, the results with their intervals, the
// composite components, the tags and the warnings.
func writeSummary(f *excelize.File, r *qeval.Report, st *styles) error {
	s := &sheet{f: f, name: SummarySheet, row: 1}
	title := "qeval report"
	if r.Run.Suite != "" {
		title += ": " + r.Run.Suite
	}
	s.put(1, title, st.title)
	writeRun(s, st, &r.Run)
	sum := &r.Summary
	s.header(st, "Result", "Value", "95% low", "95% high", "n")
	writeResults(s, st, sum)
	writeJudgeResults(s, st, sum)
	writeAudit(s, st, r.Audit)
	writeComponents(s, st, sum.ComponentMeans, r.Run.Weights)
	writeTags(s, st, sum.ByTag)
	if len(sum.Warnings) > 0 {
		s.header(st, "Warnings")
		for _, w := range sum.Warnings {
			s.next()
			s.put(1, w, 0)
		}
	}
	if s.err != nil {
		return s.err
	}
	if err := f.SetColWidth(SummarySheet, "A", "A", 30); err != nil {
		return err
	}
	if err := f.SetColWidth(SummarySheet, "B", "B", 36); err != nil {
		return err
	}
	return f.SetColWidth(SummarySheet, "C", "F", 12)
}

// pair writes a row of a label and a value, with style when it is not 0.
func (s *sheet) pair(st *styles, k string, v any, style int) {
	s.next()
	s.put(1, k, st.label)
	s.put(2, v, style)
}

// interval writes a row of a label and an estimate with its interval and size; none
// when iv is nil.
func (s *sheet) interval(st *styles, k string, iv *qeval.Interval) {
	if iv == nil {
		return
	}
	s.pair(st, k, iv.Value, st.percent)
	s.put(3, iv.Low, st.percent)
	s.put(4, iv.High, st.percent)
	s.put(5, iv.N, 0)
}

// writeRun writes the Run section: what ran, with which settings, when, and the judge.
func writeRun(s *sheet, st *styles, run *qeval.RunInfo) {
	s.header(st, "Run", "")
	kv := func(k string, v any, style int) {
		if style == 0 {
			style = st.value
		}
		s.pair(st, k, v, style)
	}
	kv("Suite", run.Suite, 0)
	kv("qeval version", run.QevalVersion, 0)
	kv("Dialect", run.Dialect, 0)
	kv("Comparison mode", run.Mode, 0)
	kv("Threshold", run.Threshold, st.score)
	for _, n := range slices.Sorted(maps.Keys(run.Weights)) {
		kv("Weight of "+n, run.Weights[n], st.score)
	}
	if !run.Started.IsZero() {
		kv("Started (UTC)", run.Started.UTC().Format("2006-01-02 15:04:05"), 0)
	}
	if !run.Finished.IsZero() {
		kv("Finished (UTC)", run.Finished.UTC().Format("2006-01-02 15:04:05"), 0)
	}
	kv("Duration (s)", run.DurationMS/1000, st.score)
	if run.Concurrency > 0 {
		kv("Concurrency", run.Concurrency, 0)
	}
	if run.Interrupted {
		kv("Interrupted", "yes: only the cases that finished are counted", 0)
	}
	if j := run.Judge; j != nil {
		if j.Skipped != "" {
			kv("LLM judge", "none ("+j.Skipped+")", 0)
		} else {
			kv("LLM judge", strings.TrimSpace(j.Provider+" "+j.Model), 0)
			kv("Judge prompt version", j.PromptVersion, 0)
			kv("Judge calls", j.Calls, st.number)
			kv("Judge cache hits", j.CacheHits, st.number)
			kv("Judge tokens in", j.TokensIn, st.number)
			kv("Judge tokens out", j.TokensOut, st.number)
		}
	}
}

// writeResults writes the first rows of the Result section: the counts, the pass rate,
// the accuracies with their intervals, the validators and the calibration.
func writeResults(s *sheet, st *styles, sum *qeval.Summary) {
	s.pair(st, "Cases", sum.Total, 0)
	s.pair(st, "Passed", sum.Passed, 0)
	s.pair(st, "Failed", sum.Failed, 0)
	s.pair(st, "Errors", sum.Errors, 0)
	s.pair(st, "Pass rate", sum.PassRate, st.percent)
	s.pair(st, "Mean total score", sum.MeanScore, st.score)
	s.interval(st, "Execution accuracy", sum.ExecutionAccuracy)
	if ts := sum.TestSuite; ts != nil {
		s.interval(st, "Execution accuracy, original database alone", ts.SingleDatabase)
		s.interval(st, "Execution accuracy, whole test suite", ts.Suite)
		s.pair(st, "Cases flipped by the test suite", len(ts.Flipped), 0)
	}
	if sf := sum.Safety; sf != nil {
		s.pair(st, "Safety recall", sf.Recall, st.percent)
		s.pair(st, "Safety precision", sf.Precision, st.percent)
		s.pair(st, "Unsafe queries allowed", sf.FN, 0)
	}
	if v := sum.Validation; v != nil {
		s.pair(st, "Validation accuracy", v.Accuracy, st.percent)
	}
	if c := sum.Calibration; c != nil {
		s.pair(st, "Calibration ECE", c.ECE, st.score)
		s.pair(st, "Calibration Brier score", c.Brier, st.score)
		s.pair(st, "Calibration AUROC", c.AUROC, st.score)
	}
}

// writeJudgeResults continues the Result section with the judge's agreement with
// execution, its self-agreement and the panel's agreement.
func writeJudgeResults(s *sheet, st *styles, sum *qeval.Summary) {
	if a := sum.JudgeAgreement; a != nil {
		s.pair(st, "Judge vs execution agreement", a.Agreement, st.percent)
		s.put(5, a.N, 0)
		s.pair(st, "Judge vs execution Cohen's κ", a.Kappa, st.score)
		s.pair(st, "Judge correct, results differ (suspect gold)", a.CorrectMismatch, 0)
		s.pair(st, "Judge wrong, results match (suspect lucky match)", a.WrongMatch, 0)
	}
	if c := sum.JudgeConsistency; c != nil {
		s.pair(st, "Judge self-agreement ("+strconv.Itoa(c.Samples)+" samples)", c.MeanAgreement, st.percent)
		s.put(5, c.Cases, 0)
	}
	for _, p := range sum.PanelAgreement {
		s.pair(st, "Judge panel "+p.Model+": agreement", p.Agreement, st.percent)
		s.put(5, p.N, 0)
		s.pair(st, "Judge panel "+p.Model+": Cohen's κ", p.Kappa, st.score)
	}
}

// writeAudit ends the Result section with the gold audit's counts.
func writeAudit(s *sheet, st *styles, au *qeval.GoldAudit) {
	if au == nil {
		return
	}
	s.pair(st, "Gold queries the audit found untrustworthy", au.Untrustworthy, 0)
	s.put(5, au.Total, 0)
	s.pair(st, "Gold queries that duplicate another (often intended)", au.Counts["duplicate"], 0)
	if len(au.ExcludeFlags) > 0 {
		s.pair(st, "Cases set aside ("+strings.Join(au.ExcludeFlags, ", ")+")", au.Excluded, 0)
	}
	for _, k := range slices.Sorted(maps.Keys(au.Counts)) {
		if au.Counts[k] > 0 {
			s.pair(st, "Audit: "+k, au.Counts[k], 0)
		}
	}
}

// writeComponents writes the Component section: each component's weight and mean.
func writeComponents(s *sheet, st *styles, means map[string]*float64, weights map[string]float64) {
	if len(means) == 0 && len(weights) == 0 {
		return
	}
	s.header(st, "Component", "Weight", "Mean")
	for _, n := range componentOrder(means, weights) {
		s.next()
		s.put(1, n, st.label)
		if w, ok := weights[n]; ok {
			s.put(2, w, st.score)
		}
		s.put(3, means[n], st.score)
	}
}

// writeTags writes the Tag section: each tag's cases, pass rate and accuracy.
func writeTags(s *sheet, st *styles, tags []qeval.TagSummary) {
	if len(tags) == 0 {
		return
	}
	s.header(st, "Tag", "Cases", "Pass rate", "Accuracy", "95% low", "95% high")
	for _, t := range tags {
		s.next()
		s.put(1, t.Tag, st.label)
		s.put(2, t.Count, 0)
		s.put(3, t.PassRate, st.percent)
		if iv := t.Accuracy; iv != nil {
			s.put(4, iv.Value, st.percent)
			s.put(5, iv.Low, st.percent)
			s.put(6, iv.High, st.percent)
		}
	}
}

// componentOrder is the known components first, then any other name, sorted.
func componentOrder(means map[string]*float64, weights map[string]float64) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range qeval.Components {
		_, a := means[n]
		_, b := weights[n]
		if a || b {
			out, seen[n] = append(out, n), true
		}
	}
	var rest []string
	for n := range means {
		if !seen[n] {
			rest, seen[n] = append(rest, n), true
		}
	}
	for n := range weights {
		if !seen[n] {
			rest, seen[n] = append(rest, n), true
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}
