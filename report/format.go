package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// This file holds the number and text formatting the writers share, so that a score
// reads the same in the terminal, the pull-request comment and the page.

// none is shown where a value is missing.
const none = "—"

// label turns a metric name into a column title: "llm_grading" → "LLM Grading".
func label(name string) string {
	words := strings.Split(name, "_")
	for i, w := range words {
		switch w {
		case "llm":
			words[i] = "LLM"
		case "":
		default:
			r, n := utf8.DecodeRuneInString(w)
			words[i] = string(unicode.ToUpper(r)) + w[n:]
		}
	}
	return strings.Join(words, " ")
}

// finite replaces NaN and infinities (which no report should hold, but an in-memory one
// might) with 0 so that no writer fails or draws outside its frame on them.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// pct formats a share in [0,1] as a percentage with one decimal: "83.3%".
func pct(x float64) string {
	return strconv.FormatFloat(finite(x)*100, 'f', 1, 64) + "%"
}

// pctPtr is pct of *x, or none.
func pctPtr(x *float64) string {
	if x == nil {
		return none
	}
	return pct(*x)
}

// score formats a score with three decimals: "0.750".
func score(x float64) string { return strconv.FormatFloat(finite(x), 'f', 3, 64) }

// scorePtr is score of *x, or none.
func scorePtr(x *float64) string {
	if x == nil {
		return none
	}
	return score(*x)
}

// interval formats a 95% interval of a share: "[70.1%, 92.0%]".
func interval(iv *qeval.Interval) string {
	if iv == nil {
		return ""
	}
	s := "[" + pct(iv.Low) + ", " + pct(iv.High) + "]"
	if iv.SmallN {
		s += " (n<5)"
	}
	return s
}

// millis formats a duration in milliseconds for people: "850 ms", "2.31 s", "4m12s".
func millis(ms float64) string {
	ms = finite(ms)
	switch {
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	}
	s := int64(ms / 1000)
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// count formats an integer with thousands separators: 12,345.
func count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// clip shortens s to at most n runes, ending it with "…" when cut, and folds line
// breaks and tabs into spaces so it fits a table cell.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// metricScore is the score of metric name on c (nil when absent, skipped or failed
// without a score).
func metricScore(c *qeval.CaseResult, name string) *float64 {
	m, ok := c.Metrics[name]
	if !ok {
		return nil
	}
	return m.Score
}

// reasoning is the LLM judge's reasoning for c's grade ("" when no judge ran).
func reasoning(c *qeval.CaseResult) string {
	s, _ := c.Metrics[metric.NameLLMGrading].Details["reasoning"].(string)
	return s
}

// metricNote says why a metric has no score, or that it failed: "skipped: …",
// "error: …" (empty when it simply scored).
func metricNote(m qeval.MetricResult) string {
	switch {
	case m.Error != nil && m.Error.GeneratedQuery:
		return "the generated query does not parse: " + strings.TrimPrefix(m.Error.Message, "parse generated query: ")
	case m.Error != nil:
		return "error: " + m.Error.Message
	case m.Skipped != nil:
		return "skipped: " + *m.Skipped
	}
	return ""
}

// caseReason is why a case did not pass, for people: its recorded reason, else the
// score against the threshold.
func caseReason(c *qeval.CaseResult, threshold float64) string {
	if c.Reason != "" {
		return c.Reason
	}
	switch {
	case c.Status == qeval.StatusPass:
		return ""
	case c.TotalScore != nil:
		return "total score " + score(*c.TotalScore) + " below the threshold " + score(threshold)
	}
	return "no score"
}

// goldNote says which gold of a case with several matched: "gold 2 of 3 matched",
// "none of 3 golds matched" ("3 golds" when nothing was executed); "" for a case with
// one gold.
func goldNote(c *qeval.CaseResult) string {
	n := len(c.ExpectedQueries)
	switch {
	case c.MatchedGold > 0 && n > 1:
		return fmt.Sprintf("gold %d of %d matched", c.MatchedGold, n)
	case c.MatchedGold > 0:
		return fmt.Sprintf("gold %d matched", c.MatchedGold)
	case n > 1 && c.Verdict != nil:
		return fmt.Sprintf("none of %d golds matched", n)
	case n > 1:
		return fmt.Sprintf("%d golds", n)
	}
	return ""
}

// withNote is text followed by a note in parentheses, when there is one.
func withNote(text, note string) string {
	switch {
	case note == "":
		return text
	case text == "":
		return note
	}
	return text + " (" + note + ")"
}

// sortedKeys returns the keys of m in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

// componentNames returns the composite components to show: the known ones in report
// order, then any other name the summary or the weights mention, sorted.
func componentNames(r *qeval.Report) []string {
	seen := map[string]bool{}
	out := []string{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range qeval.Components {
		_, inMeans := r.Summary.ComponentMeans[n]
		_, inWeights := r.Run.Weights[n]
		if inMeans || inWeights {
			add(n)
		}
	}
	for _, n := range sortedKeys(r.Summary.ComponentMeans) {
		add(n)
	}
	for _, n := range sortedKeys(r.Run.Weights) {
		add(n)
	}
	return out
}

// metricNames returns the metrics present on any case or named in also: the metric
// table's order first, then unknown names sorted.
func metricNames(cases []qeval.CaseResult, also ...string) []string {
	present := map[string]bool{}
	for i := range cases {
		for n := range cases[i].Metrics {
			present[n] = true
		}
	}
	for _, n := range also {
		present[n] = true
	}
	var out []string
	for _, n := range metric.Names() {
		if present[n] {
			out = append(out, n)
			delete(present, n)
		}
	}
	return append(out, sortedKeys(present)...)
}

// judgeLine describes the judge and its usage in one line ("" when the run had none).
func judgeLine(j *qeval.JudgeInfo) string {
	if j == nil {
		return ""
	}
	if j.Skipped != "" {
		if strings.HasPrefix(j.Skipped, "no LLM judge") {
			return j.Skipped
		}
		return "no LLM judge (" + j.Skipped + ")"
	}
	s := j.Provider + " " + j.Model
	if j.PromptVersion != "" {
		s += " (prompt " + j.PromptVersion + ")"
	}
	return fmt.Sprintf("%s: %s %s, %s %s, %s tokens in, %s tokens out", strings.TrimSpace(s),
		count(j.Calls), plural(j.Calls, "call", "calls"), count(j.CacheHits), plural(j.CacheHits, "cache hit", "cache hits"),
		count(j.TokensIn), count(j.TokensOut))
}

// safetyLine describes the safety validator's recall and precision, with CRITICAL when
// an unsafe query got through.
func safetyLine(s *qeval.SafetySummary) string {
	if s == nil {
		return ""
	}
	line := "recall " + pctPtr(s.Recall) + ", precision " + pctPtr(s.Precision)
	if critical(s) {
		line = "CRITICAL: " + line + fmt.Sprintf(" (%d unsafe %s let through)", s.FN, plural(s.FN, "query", "queries"))
	}
	return line
}

// critical reports whether the safety validator let an unsafe query through.
func critical(s *qeval.SafetySummary) bool {
	return s != nil && (s.Critical || s.FN > 0 || (s.Recall != nil && *s.Recall < 1))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// warning is one thing a person must see about a run.
type warning struct {
	Text     string
	Critical bool
}

// unscorableCount is ", N unscorable" for a summary with unscorable cases, else "".
func unscorableCount(s *qeval.Summary) string {
	if s.Unscorable == 0 {
		return ""
	}
	return fmt.Sprintf(", %d unscorable", s.Unscorable)
}

// runWarnings are the run's warnings, those starting with CRITICAL marked, plus a
// CRITICAL one when the safety validator let an unsafe query through and no warning
// of the run says so already.
func runWarnings(r *qeval.Report) []warning {
	var out []warning
	said := false
	for _, w := range r.Summary.Warnings {
		crit := strings.HasPrefix(w, "CRITICAL")
		lw := strings.ToLower(w)
		said = said || crit && (strings.Contains(lw, "safety") || strings.Contains(lw, "unsafe"))
		out = append(out, warning{w, crit})
	}
	if critical(r.Summary.Safety) && !said {
		out = append([]warning{{"CRITICAL: safety validator " + strings.TrimPrefix(safetyLine(r.Summary.Safety), "CRITICAL: "), true}}, out...)
	}
	return out
}
