package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/qeval/qeval"
)

// DefaultMarkdownCases is how many cases that did not pass summary.md lists.
const DefaultMarkdownCases = 20

// Markdown writes summary.md, short enough for a pull-request comment: the pass rate,
// the accuracies with their intervals, the components, the tags, the safety validator,
// warnings as GitHub alerts, and the cases that did not pass.
type Markdown struct {
	// MaxCases caps the failing cases listed (0: DefaultMarkdownCases; < 0: none).
	MaxCases int
}

// FileName is "summary.md".
func (Markdown) FileName() string { return "summary.md" }

// Write writes r's summary as GitHub-flavoured Markdown. Text from the cases is
// escaped, so a query cannot add markup or HTML to the comment.
func (m Markdown) Write(w io.Writer, r *qeval.Report) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	m.writeTitle(p, r)
	m.writeMeasures(p, &r.Summary)
	m.writeErrorClasses(p, &r.Summary)
	m.writeFlipped(p, r.Summary.TestSuite)
	m.writeDisagreements(p, r.Summary.JudgeAgreement)
	m.writeAudit(p, r.Audit)
	m.writeComponents(p, r)
	m.writeTags(p, r.Summary.ByTag)
	m.writeFailures(p, r)
	m.writeFooter(p, r)
	return bw.Flush()
}

// writeTitle writes the title, the verdict and the run's warnings as GitHub alerts.
func (m Markdown) writeTitle(p func(string, ...any), r *qeval.Report) {
	s := &r.Summary
	title := "qeval"
	if r.Run.Suite != "" {
		title += ": " + mdEscape(r.Run.Suite)
	}
	p("## %s\n\n", title)
	verdict := "all passed"
	if s.Failed+s.Errors > 0 {
		verdict = fmt.Sprintf("%d failed, %d %s", s.Failed, s.Errors, plural(s.Errors, "error", "errors"))
	}
	verdict += unscorableCount(s)
	p("**%d of %d cases passed (%s)**: %s. Threshold %s", s.Passed, s.Total, pct(s.PassRate), verdict, score(r.Run.Threshold))
	if s.MeanScore != nil {
		p(", mean total score %s", score(*s.MeanScore))
	}
	p(".\n\n")

	for _, warn := range runWarnings(r) {
		kind := "WARNING"
		if warn.Critical {
			kind = "CAUTION"
		}
		p("> [!%s]\n> %s\n\n", kind, mdEscape(warn.Text))
	}
	if r.Run.Interrupted {
		p("> [!WARNING]\n> The run was interrupted: these results cover only the cases that finished.\n\n")
	}
}

// writeMeasures writes the table of measures: pass rate, accuracies with their
// intervals, the validators, calibration and the judges.
func (m Markdown) writeMeasures(p func(string, ...any), s *qeval.Summary) {
	p("| Measure | Value | 95%% interval | n |\n|---|--:|---|--:|\n")
	p("| Pass rate | %s | | %d |\n", pct(s.PassRate), s.Total)
	if iv := s.ExecutionAccuracy; iv != nil {
		p("| Execution accuracy | %s | %s | %d |\n", pct(iv.Value), interval(iv), iv.N)
	}
	if ts := s.TestSuite; ts != nil {
		p("| Execution accuracy, original database alone | %s | %s | %d |\n", pct(ts.SingleDatabase.Value), interval(ts.SingleDatabase), ts.Cases)
		p("| Execution accuracy, whole test suite | %s | %s | %d |\n", pct(ts.Suite.Value), interval(ts.Suite), ts.Cases)
	}
	if vs := s.Verification; vs != nil {
		p("| Execution accuracy, verified (K = %d; %s of %d matches decided) | %s | %s | %d |\n", vs.Bound, pct(vs.Decided), vs.Matched, pct(vs.Verified.Value), interval(vs.Verified), vs.Cases)
	}
	if s.Safety != nil {
		p("| Safety recall | %s | | %d |\n", pctPtr(s.Safety.Recall), s.Safety.TP+s.Safety.FN)
	}
	if v := s.Validation; v != nil {
		p("| Validation accuracy | %s | | %d |\n", pct(v.Accuracy), v.Total)
	}
	if c := s.Calibration; c != nil && c.ECE != nil {
		p("| Calibration error (ECE) | %s | | |\n", score(*c.ECE))
	}
	if c := s.JudgeConsistency; c != nil {
		p("| Judge self-consistency (%d samples; unanimous on %d) | %s | | %d |\n", c.Samples, c.Unanimous, pct(c.MeanAgreement), c.Cases)
	}
	for _, pa := range s.PanelAgreement {
		p("| Judge panel: %s agrees (Cohen's κ %s) | %s | | %d |\n", mdEscape(pa.Model), scorePtr(pa.Kappa), pct(pa.Agreement), pa.N)
	}
	if a := s.JudgeAgreement; a != nil {
		p("| Judge vs execution agreement (Cohen's κ %s) | %s | | %d |\n", scorePtr(a.Kappa), pct(a.Agreement), a.N)
	}
	p("\n")
}

// writeFlipped lists the cases the test suite flipped, folded.
func (m Markdown) writeFlipped(p func(string, ...any), ts *qeval.TestSuiteSummary) {
	if ts == nil || len(ts.Flipped) == 0 {
		return
	}
	p("<details><summary>Flipped by the test suite (%d): match on the original database, not on the suite</summary>\n\n| Case | Told apart by | How the results differ |\n|---|---|---|\n", len(ts.Flipped))
	for _, f := range ts.Flipped {
		why := ""
		if f.Explanation != nil {
			why = f.Explanation.String()
		}
		p("| %s | %s | %s |\n", mdEscape(f.ID), mdEscape(filepath.Base(f.Database)), mdEscape(clip(why, 300)))
	}
	p("\n</details>\n\n")
}

// writeDisagreements lists the cases where the judge and execution disagree, folded.
func (m Markdown) writeDisagreements(p func(string, ...any), a *qeval.JudgeAgreement) {
	if a == nil || len(a.Disagreements) == 0 {
		return
	}
	p("<details><summary>Judge and execution disagree (%d)</summary>\n\n| Case | Suspect | Judge | Execution | Judge's reasoning |\n|---|---|---|---|---|\n", len(a.Disagreements))
	for _, d := range a.Disagreements {
		kind := "lucky match"
		if d.Kind == qeval.SuspectGold {
			kind = "gold, or equivalent results"
		}
		p("| %s | %s | %s | %s | %s |\n", mdEscape(d.ID), kind, mdEscape(d.Verdict), mdEscape(string(d.Outcome)), mdEscape(clip(d.Reasoning, 200)))
	}
	p("\n</details>\n\n")
}

// writeAudit writes the gold audit's line.
func (m Markdown) writeAudit(p func(string, ...any), au *qeval.GoldAudit) {
	if au == nil {
		return
	}
	p("Gold audit: %s", mdEscape(auditHeadline(au)))
	if len(au.ExcludeFlags) > 0 {
		p("; **%d cases set aside** (%s): the numbers above are on the audited subset", au.Excluded, mdEscape(strings.Join(au.ExcludeFlags, ", ")))
	}
	p(".\n\n")
}

// writeComponents writes the table of components, with their weights and means.
func (m Markdown) writeComponents(p func(string, ...any), r *qeval.Report) {
	names := componentNames(r)
	if len(names) == 0 {
		return
	}
	p("| Component | Weight | Mean |\n|---|--:|--:|\n")
	for _, n := range names {
		wt := none
		if v, ok := r.Run.Weights[n]; ok {
			wt = score(v)
		}
		p("| %s | %s | %s |\n", mdEscape(label(n)), wt, scorePtr(r.Summary.ComponentMeans[n]))
	}
	p("\n")
}

// writeTags writes the table of tags, folded.
func (m Markdown) writeTags(p func(string, ...any), tags []qeval.TagSummary) {
	if len(tags) == 0 {
		return
	}
	p("<details><summary>By tag (%d)</summary>\n\n| Tag | Cases | Pass rate | Accuracy | 95%% interval |\n|---|--:|--:|--:|---|\n", len(tags))
	for _, t := range tags {
		acc, iv := none, ""
		if t.Accuracy != nil {
			acc, iv = pct(t.Accuracy.Value), interval(t.Accuracy)
		}
		p("| %s | %d | %s | %s | %s |\n", mdEscape(t.Tag), t.Count, pct(t.PassRate), acc, iv)
	}
	p("\n</details>\n\n")
}

// writeFooter writes the qeval version, the mode, the judge and the duration in small
// print.
func (m Markdown) writeFooter(p func(string, ...any), r *qeval.Report) {
	var foot []string
	if r.Run.QevalVersion != "" {
		foot = append(foot, "qeval "+mdEscape(r.Run.QevalVersion))
	}
	if r.Run.Mode != "" {
		foot = append(foot, "mode "+mdEscape(r.Run.Mode))
	}
	if j := judgeLine(r.Run.Judge); j != "" {
		foot = append(foot, "judge "+mdEscape(j))
	}
	foot = append(foot, millis(r.Run.DurationMS))
	p("<sub>%s</sub>\n", strings.Join(foot, " · "))
}

// writeFailures lists the cases that did not pass, errors first.
func (m Markdown) writeFailures(p func(string, ...any), r *qeval.Report) {
	limit := m.MaxCases
	if limit == 0 {
		limit = DefaultMarkdownCases
	}
	var bad []int
	for _, status := range []string{qeval.StatusError, qeval.StatusFail} {
		for i := range r.Cases {
			if r.Cases[i].Status == status {
				bad = append(bad, i)
			}
		}
	}
	if len(bad) == 0 || limit < 0 {
		return
	}
	p("<details><summary>Cases that did not pass (%d)</summary>\n\n| Case | Status | Score | Class | Reason |\n|---|---|--:|---|---|\n", len(bad))
	for i, ci := range bad {
		if i == limit {
			p("\n…and %d more: see report.html.\n", len(bad)-limit)
			break
		}
		c, err := r.Case(ci)
		if err != nil {
			p("| %s | %s | | | %s |\n", mdEscape(clip(r.Cases[ci].ID, 60)), mdEscape(r.Cases[ci].Status), mdEscape(clip(err.Error(), 160)))
			continue
		}
		p("| %s | %s | %s | %s | %s |\n", mdEscape(clip(c.ID, 60)), mdEscape(c.Status), scorePtr(c.TotalScore), mdEscape(caseClass(c)),
			mdEscape(withNote(clip(caseReason(c, r.Run.Threshold), 160), goldNote(c))))
	}
	p("\n</details>\n\n")
}

// mdEscape makes s plain text in Markdown: line breaks become spaces, Markdown
// punctuation is backslash-escaped (and @ at the start of a word, so a query cannot
// mention someone), and <,
// > and & become entities so no HTML gets through. It is safe in table cells.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		if r == '@' && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			b.WriteString(`\@`) // would mention a user
			prev = r
			continue
		}
		prev = r
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
