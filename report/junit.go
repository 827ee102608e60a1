package report

import (
	"bufio"
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

// Write writes r as JUnit XML, streamed a testcase at a time (a run of 200,000 cases
// is never held as one document; a failing case is read back in full for its details).
func (JUnit) Write(w io.Writer, r *qeval.Report) error {
	name := r.Run.Suite
	if name == "" {
		name = "qeval"
	}
	s := junitSuite{Name: name, Tests: len(r.Cases), Time: seconds(r.Run.DurationMS)}
	if !r.Run.Started.IsZero() {
		s.Timestamp = r.Run.Started.UTC().Format(time.RFC3339)
	}
	for i := range r.Cases {
		switch r.Cases[i].Status {
		case qeval.StatusPass:
		case qeval.StatusError:
			s.Errors++
		default:
			s.Failures++
		}
	}
	doc := junitSuites{Name: "qeval", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: s.Time}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	suites := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: attrs("name", doc.Name, "tests", strconv.Itoa(doc.Tests),
		"failures", strconv.Itoa(doc.Failures), "errors", strconv.Itoa(doc.Errors), "time", doc.Time)}
	suite := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: attrs("name", s.Name, "tests", strconv.Itoa(s.Tests),
		"failures", strconv.Itoa(s.Failures), "errors", strconv.Itoa(s.Errors), "skipped", strconv.Itoa(s.Skipped), "time", s.Time, "timestamp", s.Timestamp)}
	for _, t := range []xml.Token{suites, suite} {
		if err := enc.EncodeToken(t); err != nil {
			return err
		}
	}
	props := struct {
		XMLName xml.Name        `xml:"properties"`
		P       []junitProperty `xml:"property"`
	}{P: junitProperties(r)}
	if err := enc.Encode(props); err != nil {
		return err
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Status != qeval.StatusPass {
			full, err := r.Case(i) // the details of a failure
			if err != nil {
				return err
			}
			c = full
		}
		tc := junitCase{Name: c.ID, Classname: name, Time: seconds(c.DurationMS)}
		switch c.Status {
		case qeval.StatusPass:
		case qeval.StatusError:
			tc.Error = &junitProblem{Message: clip(caseReason(c, r.Run.Threshold), 500), Type: c.Status, Text: xmlText(caseDetails(c, r.Run.Threshold))}
		default:
			tc.Failure = &junitProblem{Message: clip(caseReason(c, r.Run.Threshold), 500), Type: c.Status, Text: xmlText(caseDetails(c, r.Run.Threshold))}
		}
		if err := enc.EncodeElement(tc, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
			return err
		}
	}
	for _, t := range []xml.Token{suite.End(), suites.End()} {
		if err := enc.EncodeToken(t); err != nil {
			return err
		}
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	if _, err := bw.WriteString("\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// attrs makes XML attributes of name, value pairs, leaving out an empty timestamp.
func attrs(kv ...string) []xml.Attr {
	var out []xml.Attr
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "timestamp" && kv[i+1] == "" {
			continue
		}
		out = append(out, xml.Attr{Name: xml.Name{Local: kv[i]}, Value: kv[i+1]})
	}
	return out
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
	if len(c.ExpectedQueries) > 1 || c.MatchedGold > 0 {
		line("golds", goldNote(c))
		for i, q := range c.ExpectedQueries {
			line(fmt.Sprintf("gold %d", i+1), q)
		}
	}
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
