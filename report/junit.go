package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// JUnit writes junit.xml, the test-report format CI systems read: one testsuite for the
// run and one testcase per case. A FAIL case has a <failure> and an ERROR case an
// <error>, each with the reason as its message and the scores and queries as its text.
type JUnit struct{}

// FileName is "junit.xml".
func (JUnit) FileName() string { return "junit.xml" }

// The JUnit XML elements, as Jenkins, GitLab and GitHub Actions read them.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"` // CDATA keeps line breaks readable in the raw file
	}
)

// Write writes r as JUnit XML.
func (JUnit) Write(w io.Writer, r *qeval.Report) error {
	name := r.Run.Suite
	if name == "" {
		name = "qeval"
	}
	s := junitSuite{
		Name:       name,
		Tests:      len(r.Cases),
		Time:       seconds(r.Run.DurationMS),
		Properties: junitProperties(r),
	}
	if !r.Run.Started.IsZero() {
		s.Timestamp = r.Run.Started.UTC().Format(time.RFC3339)
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		tc := junitCase{Name: c.ID, Classname: name, Time: seconds(c.DurationMS)}
		switch c.Status {
		case qeval.StatusPass:
		case qeval.StatusError:
			s.Errors++
			tc.Error = &junitProblem{Message: clip(caseReason(c, r.Run.Threshold), 500), Type: c.Status, Text: xmlText(caseDetails(c, r.Run.Threshold))}
		default:
			s.Failures++
			tc.Failure = &junitProblem{Message: clip(caseReason(c, r.Run.Threshold), 500), Type: c.Status, Text: xmlText(caseDetails(c, r.Run.Threshold))}
		}
		s.Cases = append(s.Cases, tc)
	}
	doc := junitSuites{Name: "qeval", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: s.Time, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitProperties records the run's settings, so a CI page shows what was measured.
func junitProperties(r *qeval.Report) []junitProperty {
	p := []junitProperty{
		{"qeval_version", r.Run.QevalVersion},
		{"dialect", r.Run.Dialect},
		{"mode", r.Run.Mode},
		{"threshold", strconv.FormatFloat(r.Run.Threshold, 'g', -1, 64)},
		{"pass_rate", strconv.FormatFloat(finite(r.Summary.PassRate), 'f', 4, 64)},
	}
	for _, n := range sortedKeys(r.Run.Weights) {
		p = append(p, junitProperty{"weight." + n, strconv.FormatFloat(r.Run.Weights[n], 'g', -1, 64)})
	}
	if j := r.Run.Judge; j != nil {
		if j.Skipped != "" {
			p = append(p, junitProperty{"judge", "none: " + j.Skipped})
		} else {
			p = append(p, junitProperty{"judge", strings.TrimSpace(j.Provider + " " + j.Model)},
				junitProperty{"judge_prompt_version", j.PromptVersion})
		}
	}
	return p
}

// caseDetails is the text of a failure: what was asked, both queries and every metric.
func caseDetails(c *qeval.CaseResult, threshold float64) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	total := scorePtr(c.TotalScore)
	if c.Partial {
		total += " (partial: some components missing)"
	}
	line("total score", total+", threshold "+score(threshold))
	line("question", c.Question)
	line("expected", c.ExpectedQuery)
	line("generated", c.GeneratedQuery)
	if c.Verdict != nil {
		v := string(c.Verdict.Outcome)
		if c.Verdict.Error != "" {
			v += ": " + c.Verdict.Error
		}
		line("execution", v)
	}
	if c.Target != nil && c.Target.Error != "" {
		line("target", c.Target.Kind+": "+c.Target.Error)
	}
	for _, n := range metricNames([]qeval.CaseResult{*c}) {
		m := c.Metrics[n]
		v := scorePtr(m.Score)
		if note := metricNote(m); note != "" {
			v += " (" + note + ")"
		}
		line(n, v)
	}
	line("llm reasoning", reasoning(c))
	return b.String()
}

// seconds formats milliseconds as JUnit's seconds with three decimals.
func seconds(ms float64) string {
	return strconv.FormatFloat(max(finite(ms), 0)/1000, 'f', 3, 64)
}

// xmlText replaces the characters XML cannot hold, which a CDATA section does not
// escape, with U+FFFD.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
			return '\ufffd'
		}
		return r
	}, strings.ToValidUTF8(s, "\ufffd"))
}
