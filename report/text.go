package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/qeval/qeval"
)

// Text writes the summary printed at the end of qeval run: the pass rate, the
// accuracies with their intervals, the component means, the safety validator's recall
// (CRITICAL when an unsafe query got through), the slowest cases and the judge's usage.
type Text struct {
	// Color marks PASS, FAIL and CRITICAL with ANSI colours (for a terminal only).
	Color bool
}

// FileName is "summary.txt".
func (Text) FileName() string { return "summary.txt" }

// ANSI colours.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

func (t Text) paint(color, s string) string {
	if !t.Color {
		return s
	}
	return color + s + ansiReset
}

// Write writes r's summary as aligned plain text.
func (t Text) Write(w io.Writer, r *qeval.Report) error {
	bw := bufio.NewWriter(w)
	t.writeHeader(bw, r)
	if err := t.writeTables(bw, r); err != nil {
		return err
	}
	t.writeChecks(bw, r)
	t.writeFlipped(bw, r.Summary.TestSuite)
	t.writeVerified(bw, r.Summary.Verification)
	t.writeJudges(bw, &r.Summary)
	t.writeAudit(bw, r.Audit)
	if err := t.writeSlowest(bw, r.Summary.Slowest); err != nil {
		return err
	}
	if j := judgeLine(r.Run.Judge); j != "" {
		fmt.Fprintf(bw, "\nJudge: %s\n", termText(j))
	}
	t.writeWarnings(bw, runWarnings(r))
	return bw.Flush()
}

// writeHeader writes the suite, the size and duration of the run, and the verdict.
func (t Text) writeHeader(bw *bufio.Writer, r *qeval.Report) {
	s := &r.Summary
	name := r.Run.Suite
	if name == "" {
		name = "suite"
	}
	fmt.Fprintf(bw, "%s: %d %s in %s", termText(name), s.Total, plural(s.Total, "case", "cases"), millis(r.Run.DurationMS))
	if r.Run.Mode != "" {
		fmt.Fprintf(bw, ", mode %s", termText(r.Run.Mode))
	}
	fmt.Fprintln(bw)
	if r.Run.Interrupted {
		fmt.Fprintln(bw, t.paint(ansiRed, "interrupted: only the cases that finished are counted"))
	}

	verdict := t.paint(ansiGreen, "PASS")
	if s.Failed+s.Errors > 0 {
		verdict = t.paint(ansiRed, "FAIL")
	}
	fmt.Fprintf(bw, "\n%s  %d passed, %d failed, %d %s%s: pass rate %s (threshold %s)\n", verdict,
		s.Passed, s.Failed, s.Errors, plural(s.Errors, "error", "errors"), unscorableCount(s), pct(s.PassRate), score(r.Run.Threshold))
	if s.MeanScore != nil {
		fmt.Fprintf(bw, "      mean total score %s\n", score(*s.MeanScore))
	}
}

// writeTables writes the accuracies, with their intervals, and the components as
// aligned tables.
func (t Text) writeTables(bw *bufio.Writer, r *qeval.Report) error {
	s := &r.Summary
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	if s.ExecutionAccuracy != nil || len(s.ByTag) > 0 {
		fmt.Fprintln(tw, "\nAccuracy\tvalue\t95% interval\tn")
		if iv := s.ExecutionAccuracy; iv != nil {
			fmt.Fprintf(tw, "  execution accuracy\t%s\t%s\t%d\n", pct(iv.Value), interval(iv), iv.N)
		}
		if ts := s.TestSuite; ts != nil {
			fmt.Fprintf(tw, "  original database alone\t%s\t%s\t%d\n", pct(ts.SingleDatabase.Value), interval(ts.SingleDatabase), ts.Cases)
			fmt.Fprintf(tw, "  whole test suite\t%s\t%s\t%d\n", pct(ts.Suite.Value), interval(ts.Suite), ts.Cases)
		}
		if vs := s.Verification; vs != nil {
			fmt.Fprintf(tw, "  verified (K = %d; %s of %d matches decided)\t%s\t%s\t%d\n", vs.Bound, pct(vs.Decided), vs.Matched, pct(vs.Verified.Value), interval(vs.Verified), vs.Cases)
		}
		for _, tag := range s.ByTag {
			if iv := tag.Accuracy; iv != nil {
				fmt.Fprintf(tw, "  tag %s\t%s\t%s\t%d\n", termText(clip(tag.Tag, 40)), pct(iv.Value), interval(iv), iv.N)
			} else {
				fmt.Fprintf(tw, "  tag %s\t%s\t(pass rate)\t%d\n", termText(clip(tag.Tag, 40)), pct(tag.PassRate), tag.Count)
			}
		}
	}
	writeErrorClasses(tw, s)
	if names := componentNames(r); len(names) > 0 {
		fmt.Fprintln(tw, "\nComponent\tmean\tweight")
		for _, n := range names {
			wt := none
			if v, ok := r.Run.Weights[n]; ok {
				wt = score(v)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", termText(n), scorePtr(s.ComponentMeans[n]), wt)
		}
	}
	return tw.Flush()
}

// writeChecks writes the validators' lines, the calibration, the judge errors and how
// score and execution disagree.
func (t Text) writeChecks(bw *bufio.Writer, r *qeval.Report) {
	s := &r.Summary
	if line := safetyLine(s.Safety); line != "" {
		if critical(s.Safety) {
			line = t.paint(ansiRed+ansiBold, line)
		}
		fmt.Fprintf(bw, "\nSafety validator: %s\n", line)
	}
	if v := s.Validation; v != nil {
		fmt.Fprintf(bw, "Validation accuracy: %s (%d of %d)\n", pct(v.Accuracy), v.Correct, v.Total)
	}
	if c := s.Calibration; c != nil && c.ECE != nil {
		fmt.Fprintf(bw, "Calibration: ECE %s", score(*c.ECE))
		if c.Interpretation != "" {
			fmt.Fprintf(bw, " (%s)", termText(c.Interpretation))
		}
		fmt.Fprintln(bw)
	}
	if s.JudgeErrors > 0 {
		fmt.Fprintf(bw, "Judge errors: %d cases could not be judged (the LLM judge failed); their judged components were skipped\n", s.JudgeErrors)
	}
	if d := s.Disagreements; d != nil {
		fmt.Fprintf(bw, "Score vs execution: %d passed on score with results that differ, %d failed on score with results that match",
			d.ScoreWithoutMatch, d.MatchWithoutScore)
		if !slices.Contains(r.Run.PassRequires, "execution") {
			fmt.Fprint(bw, " (pass_requires: [score, execution] requires both)")
		}
		fmt.Fprintln(bw)
	}
}

// writeFlipped lists the cases the test suite flipped.
func (t Text) writeFlipped(bw *bufio.Writer, ts *qeval.TestSuiteSummary) {
	if ts == nil || len(ts.Flipped) == 0 {
		return
	}
	fmt.Fprintf(bw, "Test suite: %d %s match on the original database but not on the suite:\n", len(ts.Flipped), plural(len(ts.Flipped), "case", "cases"))
	for i, f := range ts.Flipped {
		if i == maxFlippedShown {
			fmt.Fprintf(bw, "  … and %d more (every one is in the JSON report)\n", len(ts.Flipped)-i)
			break
		}
		why := filepath.Base(f.Database)
		if f.Explanation != nil {
			why = f.Explanation.String()
		}
		fmt.Fprintf(bw, "  %s: %s\n", termText(f.ID), termText(clip(why, 240)))
	}
}

// writeVerified lists the cases a counterexample flipped, with its file.
func (t Text) writeVerified(bw *bufio.Writer, vs *qeval.VerificationSummary) {
	if vs == nil || len(vs.Flipped) == 0 {
		return
	}
	fmt.Fprintf(bw, "Verified: %d %s match but a counterexample tells them apart (qeval explain FILE opens one):\n", len(vs.Flipped), plural(len(vs.Flipped), "case", "cases"))
	for i, f := range vs.Flipped {
		if i == maxFlippedShown {
			fmt.Fprintf(bw, "  … and %d more (every one is in the JSON report)\n", len(vs.Flipped)-i)
			break
		}
		where := "(not written: no --out)"
		if f.Database != "" {
			where = f.Database
		}
		fmt.Fprintf(bw, "  %s: %s\n", termText(f.ID), termText(where))
	}
}

// writeJudges writes the judge's agreement with execution, its self-consistency and
// the panel's agreement.
func (t Text) writeJudges(bw *bufio.Writer, s *qeval.Summary) {
	if a := s.JudgeAgreement; a != nil {
		fmt.Fprintf(bw, "Judge vs execution: agreement %s on %d cases, Cohen's κ %s; %d judged correct with results that differ (suspect gold), %d judged wrong with results that match (suspect lucky match)\n",
			pct(a.Agreement), a.N, scorePtr(a.Kappa), a.CorrectMismatch, a.WrongMatch)
	}
	if c := s.JudgeConsistency; c != nil {
		fmt.Fprintf(bw, "Judge self-consistency: %d samples per question, mean agreement %s, unanimous on %d of %d cases, mean score spread %s\n",
			c.Samples, pct(c.MeanAgreement), c.Unanimous, c.Cases, score(c.MeanSpread))
	}
	for _, p := range s.PanelAgreement {
		fmt.Fprintf(bw, "Judge panel: %s agrees with the first judge on %s of %d cases, Cohen's κ %s", termText(p.Model), pct(p.Agreement), p.N, scorePtr(p.Kappa))
		if p.Errors > 0 {
			fmt.Fprintf(bw, " (%d not answered)", p.Errors)
		}
		fmt.Fprintln(bw)
	}
}

// writeAudit writes the gold audit's line.
func (t Text) writeAudit(bw *bufio.Writer, au *qeval.GoldAudit) {
	if au == nil {
		return
	}
	fmt.Fprintf(bw, "Gold audit: %s", auditHeadline(au))
	if len(au.ExcludeFlags) > 0 {
		fmt.Fprintf(bw, "; %d cases set aside (%s): these numbers are on the audited subset", au.Excluded, strings.Join(au.ExcludeFlags, ", "))
	}
	fmt.Fprintln(bw)
}

// writeSlowest lists the slowest cases.
func (t Text) writeSlowest(bw *bufio.Writer, slowest []qeval.SlowCase) error {
	if len(slowest) == 0 {
		return nil
	}
	fmt.Fprintln(bw, "\nSlowest cases:")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, c := range slowest {
		fmt.Fprintf(tw, "  %s\t%s\n", termText(clip(c.ID, 60)), millis(c.DurationMS))
	}
	return tw.Flush()
}

// writeWarnings lists the run's warnings, the critical ones painted.
func (t Text) writeWarnings(bw *bufio.Writer, warns []warning) {
	if len(warns) == 0 {
		return
	}
	fmt.Fprintln(bw, "\nWarnings:")
	for _, warn := range warns {
		text := termText(warn.Text)
		if warn.Critical {
			text = t.paint(ansiRed+ansiBold, text)
		}
		fmt.Fprintf(bw, "  ! %s\n", text)
	}
}

// termText removes control characters (escape sequences included) from text that
// came from a suite, so it cannot move the cursor or recolour the terminal.
func termText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// auditCounts lists the flags found, " (order_dependent 2, empty 5)", "" when none.
func auditCounts(a *qeval.GoldAudit) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.Counts)) {
		if a.Counts[k] > 0 && k != "duplicate" {
			parts = append(parts, fmt.Sprintf("%s %d", k, a.Counts[k]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// auditHeadline counts the golds that cannot be trusted, by flag, apart from the
// duplicates, which are often intended: "2 of 50 gold queries cannot be trusted (empty
// 1, tie_at_limit 1), 46 duplicates".
func auditHeadline(a *qeval.GoldAudit) string {
	d := a.Counts["duplicate"]
	return fmt.Sprintf("%d of %d gold queries cannot be trusted%s, %d %s", a.Untrustworthy, a.Total, auditCounts(a), d, plural(d, "duplicate", "duplicates"))
}

// maxFlippedShown is how many cases a test suite flipped the terminal lists.
const maxFlippedShown = 20
