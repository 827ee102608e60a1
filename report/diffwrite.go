package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxDiffCases caps the fixed and broken cases listed in the Markdown diff.
const maxDiffCases = 50

// WriteJSON writes d as indented JSON.
func (d *Diff) WriteJSON(w io.Writer) error {
	b, err := encode(d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteText writes d as aligned plain text for a terminal.
func (d *Diff) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "qeval diff: %s → %s, %d %s in both\n\n", termText(d.Base), termText(d.Head), d.Paired, plural(d.Paired, "case", "cases"))
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tbase\thead\tchange\t95% interval\tn")
	for _, row := range d.rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", row.name, row.base, row.head, row.change, row.interval, row.n)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(bw, "\n%s\n", d.mcnemarLine())
	for _, list := range []struct {
		title string
		cases []CaseChange
	}{{"Fixed", d.Fixed}, {"Broken", d.Broken}} {
		if len(list.cases) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s (%d):\n", list.title, len(list.cases))
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, c := range list.cases {
			fmt.Fprintf(tw, "  %s\t%s → %s\t%s → %s\t%s\t%s\n", termText(clip(c.ID, 60)), termText(c.From), termText(c.To),
				scorePtr(c.BaseScore), scorePtr(c.HeadScore), termText(c.Class), termText(withNote(clip(c.Reason, 100), c.GoldNote())))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(d.ErrorClasses) > 0 {
		fmt.Fprintln(bw)
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "Error class\tbase\thead\tfixed\tbroken")
		for _, c := range d.ErrorClasses {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\n", termText(c.Class), c.Base, c.Head, c.Fixed, c.Broken)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintf(bw, "\nUnchanged: %d (%d still passing, %d still failing)\n", d.StillPassing+d.StillFailing, d.StillPassing, d.StillFailing)
	if len(d.Warnings) > 0 {
		fmt.Fprintln(bw, "\nWarnings:")
		for _, warn := range d.Warnings {
			fmt.Fprintf(bw, "  ! %s\n", termText(warn))
		}
	}
	fmt.Fprintf(bw, "\n%s\n", d.verdict())
	return bw.Flush()
}

// WriteMarkdown writes d as GitHub-flavoured Markdown for a pull-request comment.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("## qeval diff: %s → %s\n\n", mdEscape(d.Base), mdEscape(d.Head))
	if d.Regression {
		p("> [!CAUTION]\n> %s\n\n", mdEscape(d.verdict()))
	} else {
		p("**%s**\n\n", mdEscape(d.verdict()))
	}
	p("%d fixed, %d broken, %d unchanged of %d cases in both runs.\n\n", len(d.Fixed), len(d.Broken), d.StillPassing+d.StillFailing, d.Paired)
	p("| Measure | Base | Head | Change | 95%% interval | n |\n|---|--:|--:|--:|---|--:|\n")
	for _, row := range d.rows() {
		p("| %s | %s | %s | %s | %s | %d |\n", mdEscape(label(strings.TrimSpace(row.name))), row.base, row.head, row.change, row.interval, row.n)
	}
	p("\n%s\n\n", mdEscape(d.mcnemarLine()))
	for _, list := range []struct {
		title string
		cases []CaseChange
	}{{"Broken", d.Broken}, {"Fixed", d.Fixed}} {
		if len(list.cases) == 0 {
			continue
		}
		p("<details><summary>%s (%d)</summary>\n\n| Case | Status | Score | Class | Reason |\n|---|---|--:|---|---|\n", list.title, len(list.cases))
		for i, c := range list.cases {
			if i == maxDiffCases {
				p("\n…and %d more.\n", len(list.cases)-maxDiffCases)
				break
			}
			p("| %s | %s → %s | %s → %s | %s | %s |\n", mdEscape(clip(c.ID, 60)), mdEscape(c.From), mdEscape(c.To),
				scorePtr(c.BaseScore), scorePtr(c.HeadScore), mdEscape(c.Class), mdEscape(withNote(clip(c.Reason, 160), c.GoldNote())))
		}
		p("\n</details>\n\n")
	}
	if len(d.ErrorClasses) > 0 {
		p("| Error class | Base | Head | Fixed | Broken |\n|---|--:|--:|--:|--:|\n")
		for _, c := range d.ErrorClasses {
			p("| %s | %d | %d | %d | %d |\n", mdEscape(c.Class), c.Base, c.Head, c.Fixed, c.Broken)
		}
		p("\n")
	}
	for _, warn := range d.Warnings {
		p("> [!WARNING]\n> %s\n\n", mdEscape(warn))
	}
	return bw.Flush()
}

type diffRow struct {
	name, base, head, change, interval string
	n                                  int
}

// rows are the measures of the diff table: shares in percent and points, scores as is.
func (d *Diff) rows() []diffRow {
	share := func(name string, x Delta) diffRow {
		return diffRow{name, pct(x.Base), pct(x.Head), points(x.Delta), "[" + points(x.Low) + ", " + points(x.High) + "]", x.N}
	}
	value := func(name string, x Delta) diffRow {
		return diffRow{name, score(x.Base), score(x.Head), signed(x.Delta, 3), "[" + signed(x.Low, 3) + ", " + signed(x.High, 3) + "]", x.N}
	}
	rows := []diffRow{share("pass rate", d.PassRate)}
	if e := d.ExecutionAccuracy; e != nil {
		rows = append(rows, share("execution accuracy", *e))
	}
	if t := d.MeanScore; t != nil {
		rows = append(rows, value("mean total score", *t))
	}
	for _, c := range d.Components {
		rows = append(rows, value("  "+c.Name, c.Delta))
	}
	return rows
}

func (d *Diff) mcnemarLine() string {
	return fmt.Sprintf("McNemar's exact test on the %d cases that changed status: p = %s (mid-p %s).",
		d.McNemar.B+d.McNemar.C, pvalue(d.McNemar.P), pvalue(d.McNemar.MidP))
}

func (d *Diff) verdict() string {
	if d.Regression {
		return "REGRESSION: " + strings.Join(d.Reasons, "; ")
	}
	return "No regression."
}

// points formats a change of a share in percentage points: "+16.7 pp".
func points(x float64) string { return signed(x*100, 1) + " pp" }

// signed formats x with a sign and the given decimals; a value that rounds to zero is
// "±0" so that no "-0.0" appears.
func signed(x float64, decimals int) string {
	x = finite(x)
	s := strconv.FormatFloat(math.Abs(x), 'f', decimals, 64)
	if strings.Trim(s, "0.") == "" {
		return "±" + s
	}
	if x < 0 {
		return "-" + s
	}
	return "+" + s
}

// pvalue formats a p-value with three significant digits, or "< 0.0001".
func pvalue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}
