package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Error classes (why a case's query is wrong, package errclass) in every report: the
// summary's count by main class, with intervals, as a table and a chart, and each
// failed case's classes.

// ErrorClassesSVG draws the share of the classified failures in each main class with
// its 95% Wilson interval, the count in brackets; "" when no case has a class.
func ErrorClassesSVG(s *qeval.Summary) string {
	if len(s.ErrorClasses) == 0 {
		return ""
	}
	var rows []bar
	total := 0
	for _, c := range s.ErrorClasses {
		v, lo, hi := c.Share.Value, c.Share.Low, c.Share.High
		rows = append(rows, bar{label: c.Class, sublabel: "(" + strconv.Itoa(c.Count) + ")", value: &v, low: &lo, hi: &hi})
		total += c.Count
	}
	desc := fmt.Sprintf("Share of the %d failed cases with an error class in each main class (the first, most specific, of each case), with its 95%% Wilson interval; the number of cases is in brackets.", total)
	return barsSVG("Failures by error class", desc, rows, true)
}

// topSubclasses names a class's most frequent subclasses with their counts, at most
// three, the most frequent first (ties by name).
func topSubclasses(c qeval.ErrorClassCount) string {
	names := slices.Collect(maps.Keys(c.Subclasses))
	slices.SortFunc(names, func(a, b string) int {
		if d := c.Subclasses[b] - c.Subclasses[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, 3)
	for i, n := range names {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", n, c.Subclasses[n]))
	}
	return strings.Join(parts, ", ")
}

// caseClass is a case's first (most specific) error class as class.detail, "" when
// it has none.
func caseClass(c *qeval.CaseResult) string {
	if len(c.ErrorClass) == 0 {
		return ""
	}
	return c.ErrorClass[0].Subclass
}

// writeErrorClasses writes the text summary's table of failures by class.
func writeErrorClasses(w io.Writer, s *qeval.Summary) {
	if len(s.ErrorClasses) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFailures by error class\tcases\tshare\t95% interval\tmost frequent")
	for _, c := range s.ErrorClasses {
		fmt.Fprintf(w, "  %s\t%d\t%s\t%s\t%s\n", termText(c.Class), c.Count, pct(c.Share.Value), interval(c.Share), termText(topSubclasses(c)))
	}
}

// writeErrorClasses writes the Markdown table of failures by class.
func (m Markdown) writeErrorClasses(p func(string, ...any), s *qeval.Summary) {
	if len(s.ErrorClasses) == 0 {
		return
	}
	p("#### Failures by error class\n\n| Class | Cases | Share | 95%% interval | Most frequent |\n|---|--:|--:|---|---|\n")
	for _, c := range s.ErrorClasses {
		p("| %s | %d | %s | %s | %s |\n", mdEscape(c.Class), c.Count, pct(c.Share.Value), interval(c.Share), mdEscape(topSubclasses(c)))
	}
	p("\n")
}
