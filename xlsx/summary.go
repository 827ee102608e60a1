package xlsx

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// sheet writes the Summary sheet row after row: put fills the current row, next and
// header start new ones.
type sheet struct {
	x     *xw
	row   int
	cells int // cells written in the current row
}

// put writes v (string, int, float64 or *float64; nil and "" leave the cell empty) in
// column col (1-based, left to right) of the current row, with style when it is not 0.
func (s *sheet) put(col int, v any, style int) {
	if s.cells == 0 {
		s.x.raw(`<row r="`, strconv.Itoa(s.row), `">`)
	}
	s.cells++
	s.x.cell(col, s.row, v, style)
}

// to ends the current row and moves to row n.
func (s *sheet) to(n int) {
	if s.cells > 0 {
		s.x.raw(`</row>`)
	}
	s.row, s.cells = n, 0
}

// header writes a section title row across the given column titles.
func (s *sheet) header(titles ...string) {
	s.to(s.row + 2)
	for i, t := range titles {
		s.put(i+1, t, styleSection)
	}
}

func (s *sheet) next() { s.to(s.row + 1) }

// writeSummary writes the Summary sheet: the run, the results with their intervals, the
// composite components, the tags and the warnings.
func writeSummary(x *xw, r *qeval.Report) {
	x.raw(`<worksheet xmlns="`, nsMain, `"><sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews>`)
	x.cols([]col{{min: 1, max: 1, width: 30}, {min: 2, max: 2, width: 36}, {min: 3, max: 6, width: 12}})
	x.raw(`<sheetData>`)
	s := &sheet{x: x, row: 1}
	title := "qeval report"
	if r.Run.Suite != "" {
		title += ": " + r.Run.Suite
	}
	s.put(1, title, styleTitle)
	writeRun(s, &r.Run)
	sum := &r.Summary
	s.header("Result", "Value", "95% low", "95% high", "n")
	writeResults(s, sum)
	writeJudgeResults(s, sum)
	writeAudit(s, r.Audit)
	writeComponents(s, sum.ComponentMeans, r.Run.Weights)
	writeTags(s, sum.ByTag)
	writeErrorClasses(s, sum.ErrorClasses)
	if len(sum.Warnings) > 0 {
		s.header("Warnings")
		for _, w := range sum.Warnings {
			s.next()
			s.put(1, w, 0)
		}
	}
	s.to(0)
	x.raw(`</sheetData></worksheet>`)
}

// pair writes a row of a label and a value, with style when it is not 0.
func (s *sheet) pair(k string, v any, style int) {
	s.next()
	s.put(1, k, styleLabel)
	s.put(2, v, style)
}

// interval writes a row of a label and an estimate with its interval and size; none
// when iv is nil.
func (s *sheet) interval(k string, iv *qeval.Interval) {
	if iv == nil {
		return
	}
	s.pair(k, iv.Value, stylePercent)
	s.put(3, iv.Low, stylePercent)
	s.put(4, iv.High, stylePercent)
	s.put(5, iv.N, 0)
}

// writeRun writes the Run section: what ran, with which settings, when, and the judge.
func writeRun(s *sheet, run *qeval.RunInfo) {
	s.header("Run", "")
	kv := func(k string, v any, style int) {
		if style == 0 {
			style = styleValue
		}
		s.pair(k, v, style)
	}
	kv("Suite", run.Suite, 0)
	kv("qeval version", run.QevalVersion, 0)
	kv("Dialect", run.Dialect, 0)
	kv("Comparison mode", run.Mode, 0)
	kv("Threshold", run.Threshold, styleScore)
	for _, n := range slices.Sorted(maps.Keys(run.Weights)) {
		kv("Weight of "+n, run.Weights[n], styleScore)
	}
	if !run.Started.IsZero() {
		kv("Started (UTC)", run.Started.UTC().Format("2006-01-02 15:04:05"), 0)
	}
	if !run.Finished.IsZero() {
		kv("Finished (UTC)", run.Finished.UTC().Format("2006-01-02 15:04:05"), 0)
	}
	kv("Duration (s)", run.DurationMS/1000, styleScore)
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
			kv("Judge calls", j.Calls, styleNumber)
			kv("Judge cache hits", j.CacheHits, styleNumber)
			kv("Judge tokens in", j.TokensIn, styleNumber)
			kv("Judge tokens out", j.TokensOut, styleNumber)
		}
	}
}

// writeResults writes the first rows of the Result section: the counts, the pass rate,
// the accuracies with their intervals, the validators and the calibration.
func writeResults(s *sheet, sum *qeval.Summary) {
	s.pair("Cases", sum.Total, 0)
	s.pair("Passed", sum.Passed, 0)
	s.pair("Failed", sum.Failed, 0)
	s.pair("Errors", sum.Errors, 0)
	s.pair("Pass rate", sum.PassRate, stylePercent)
	s.pair("Mean total score", sum.MeanScore, styleScore)
	s.interval("Execution accuracy", sum.ExecutionAccuracy)
	if ts := sum.TestSuite; ts != nil {
		s.interval("Execution accuracy, original database alone", ts.SingleDatabase)
		s.interval("Execution accuracy, whole test suite", ts.Suite)
		s.pair("Cases flipped by the test suite", len(ts.Flipped), 0)
	}
	if sf := sum.Safety; sf != nil {
		s.pair("Safety recall", sf.Recall, stylePercent)
		s.pair("Safety precision", sf.Precision, stylePercent)
		s.pair("Unsafe queries allowed", sf.FN, 0)
	}
	if v := sum.Validation; v != nil {
		s.pair("Validation accuracy", v.Accuracy, stylePercent)
	}
	if c := sum.Calibration; c != nil {
		s.pair("Calibration ECE", c.ECE, styleScore)
		s.pair("Calibration Brier score", c.Brier, styleScore)
		s.pair("Calibration AUROC", c.AUROC, styleScore)
	}
}

// writeJudgeResults continues the Result section with the judge's agreement with
// execution, its self-agreement and the panel's agreement.
func writeJudgeResults(s *sheet, sum *qeval.Summary) {
	if a := sum.JudgeAgreement; a != nil {
		s.pair("Judge vs execution agreement", a.Agreement, stylePercent)
		s.put(5, a.N, 0)
		s.pair("Judge vs execution Cohen's κ", a.Kappa, styleScore)
		s.pair("Judge correct, results differ (suspect gold)", a.CorrectMismatch, 0)
		s.pair("Judge wrong, results match (suspect lucky match)", a.WrongMatch, 0)
	}
	if c := sum.JudgeConsistency; c != nil {
		s.pair("Judge self-agreement ("+strconv.Itoa(c.Samples)+" samples)", c.MeanAgreement, stylePercent)
		s.put(5, c.Cases, 0)
	}
	for _, p := range sum.PanelAgreement {
		s.pair("Judge panel "+p.Model+": agreement", p.Agreement, stylePercent)
		s.put(5, p.N, 0)
		s.pair("Judge panel "+p.Model+": Cohen's κ", p.Kappa, styleScore)
	}
}

// writeAudit ends the Result section with the gold audit's counts.
func writeAudit(s *sheet, au *qeval.GoldAudit) {
	if au == nil {
		return
	}
	s.pair("Gold queries the audit found untrustworthy", au.Untrustworthy, 0)
	s.put(5, au.Total, 0)
	s.pair("Gold queries that duplicate another (often intended)", au.Counts["duplicate"], 0)
	if len(au.ExcludeFlags) > 0 {
		s.pair("Cases set aside ("+strings.Join(au.ExcludeFlags, ", ")+")", au.Excluded, 0)
	}
	for _, k := range slices.Sorted(maps.Keys(au.Counts)) {
		if au.Counts[k] > 0 {
			s.pair("Audit: "+k, au.Counts[k], 0)
		}
	}
}

// writeComponents writes the Component section: each component's weight and mean.
func writeComponents(s *sheet, means map[string]*float64, weights map[string]float64) {
	if len(means) == 0 && len(weights) == 0 {
		return
	}
	s.header("Component", "Weight", "Mean")
	for _, n := range componentOrder(means, weights) {
		s.next()
		s.put(1, n, styleLabel)
		if w, ok := weights[n]; ok {
			s.put(2, w, styleScore)
		}
		s.put(3, means[n], styleScore)
	}
}

// writeTags writes the Tag section: each tag's cases, pass rate and accuracy.
func writeTags(s *sheet, tags []qeval.TagSummary) {
	if len(tags) == 0 {
		return
	}
	s.header("Tag", "Cases", "Pass rate", "Accuracy", "95% low", "95% high")
	for _, t := range tags {
		s.next()
		s.put(1, t.Tag, styleLabel)
		s.put(2, t.Count, 0)
		s.put(3, t.PassRate, stylePercent)
		if iv := t.Accuracy; iv != nil {
			s.put(4, iv.Value, stylePercent)
			s.put(5, iv.Low, stylePercent)
			s.put(6, iv.High, stylePercent)
		}
	}
}

// writeErrorClasses writes the failures by main error class: cases, share of the
// classified failures and its interval, and the subclasses.
func writeErrorClasses(s *sheet, classes []qeval.ErrorClassCount) {
	if len(classes) == 0 {
		return
	}
	s.header("Error class", "Cases", "Share", "95% low", "95% high", "Subclasses")
	for _, c := range classes {
		s.next()
		s.put(1, c.Class, styleLabel)
		s.put(2, c.Count, 0)
		s.put(3, c.Share.Value, stylePercent)
		s.put(4, c.Share.Low, stylePercent)
		s.put(5, c.Share.High, stylePercent)
		var subs []string
		for _, k := range slices.Sorted(maps.Keys(c.Subclasses)) {
			subs = append(subs, k+" "+strconv.Itoa(c.Subclasses[k]))
		}
		s.put(6, strings.Join(subs, ", "), 0)
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
