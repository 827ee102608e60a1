package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

func write(t *testing.T, w report.Writer, r *qeval.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Write(&buf, r); err != nil {
		t.Fatalf("%T.Write: %v", w, err)
	}
	return buf.Bytes()
}

func TestWriters_Golden(t *testing.T) {
	for _, w := range []report.Writer{report.JSON{}, report.JUnit{}, report.Markdown{}, report.HTML{}, report.Text{}} {
		t.Run(w.FileName(), func(t *testing.T) {
			got := write(t, w, fixture())
			golden(t, w.FileName(), got)
			if again := write(t, w, fixture()); !bytes.Equal(got, again) {
				t.Errorf("%s: two writes of the same report differ", w.FileName())
			}
		})
	}
}

func TestWriters_DoNotModifyReport(t *testing.T) {
	r := fixture()
	r.SchemaVersion, r.Cases = "", nil
	for _, w := range []report.Writer{report.JSON{}, report.JUnit{}, report.Markdown{}, report.HTML{}, report.Text{}} {
		write(t, w, r)
	}
	if r.SchemaVersion != "" || r.Cases != nil {
		t.Errorf("a writer changed the report: schema %q, cases %v", r.SchemaVersion, r.Cases)
	}
}

func TestJSON_RoundTrip(t *testing.T) {
	out := write(t, report.JSON{}, fixture())
	r, err := report.Unmarshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if again := write(t, report.JSON{}, r); !bytes.Equal(out, again) {
		t.Errorf("report.json read back and written again differs:\n%s", firstDiff(again, out))
	}
	if len(r.Cases) != 6 || r.Cases[2].Metrics["execution_match"].Error == nil {
		t.Errorf("cases not read back with their metric errors: %+v", r.Cases)
	}
	if !strings.Contains(string(out), `"generated_query": "`+strings.ReplaceAll(xss, `'`, `'`)+`"`) {
		t.Errorf("report.json does not keep the query as written (no \\u003c escapes)")
	}
	for _, key := range []string{`"schema_version": "1"`, `"run": {`, `"summary": {`, `"cases": [`, `"total_score": 0.95`, `"status": "ERROR"`, `"reasoning": "Same join`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("report.json lacks %s", key)
		}
	}
}

func TestJSON_EmptyReport(t *testing.T) {
	out := string(write(t, report.JSON{}, &qeval.Report{}))
	if !strings.Contains(out, `"schema_version": "1"`) || !strings.Contains(out, `"cases": []`) {
		t.Errorf("empty report:\n%s", out)
	}
}

func TestJSON_NaNNamesTheCase(t *testing.T) {
	r := fixture()
	r.Cases[1].Metrics["semantic_similarity"] = qeval.MetricResult{Score: f(math.NaN())}
	var buf bytes.Buffer
	err := report.JSON{}.Write(&buf, r)
	if err == nil {
		t.Fatal("a NaN score was written")
	}
	if msg := err.Error(); !strings.Contains(msg, `case "fail-agg"`) || !strings.Contains(msg, "semantic_similarity") {
		t.Errorf("error %q does not name the case and metric", msg)
	}
	if buf.Len() != 0 {
		t.Errorf("a partial report.json was written: %d bytes", buf.Len())
	}
}

// junit.xml must be valid XML with the counts CI systems read.
func TestJUnit_Parses(t *testing.T) {
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Name       string `xml:"name,attr"`
			Timestamp  string `xml:"timestamp,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	out := write(t, report.JUnit{}, fixture())
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	if doc.Tests != 6 || doc.Failures != 3 || doc.Errors != 1 || len(doc.Suites) != 1 {
		t.Fatalf("tests=%d failures=%d errors=%d suites=%d, want 6, 3, 1, 1", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Name != "shop <demo>" || s.Timestamp != "2025-01-02T03:04:05Z" {
		t.Errorf("suite name %q timestamp %q", s.Name, s.Timestamp)
	}
	byName := map[string]int{}
	for i, c := range s.Cases {
		byName[c.Name] = i
	}
	if c := s.Cases[byName["fail-agg"]]; c.Failure == nil || c.Failure.Message != "total score 0.410 below the threshold 0.700" || c.Time != "2.300" {
		t.Errorf("fail-agg: %+v", c)
	} else if !strings.Contains(c.Failure.Text, "Uses SUM instead of AVG") {
		t.Errorf("fail-agg failure text lacks the judge's reasoning:\n%s", c.Failure.Text)
	}
	if c := s.Cases[byName["error-syntax"]]; c.Error == nil || !strings.Contains(c.Error.Message, `near "SELEC"`) || c.Failure != nil {
		t.Errorf("error-syntax: %+v", c)
	}
	if c := s.Cases[byName["markup"]]; c.Failure == nil || !strings.Contains(c.Failure.Text, xss) {
		t.Errorf("markup: the query did not survive XML escaping: %+v", c)
	}
	if c := s.Cases[byName["pass-join"]]; c.Failure != nil || c.Error != nil {
		t.Errorf("pass-join has a problem: %+v", c)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["mode"] != "spider-ts@1" || props["weight.llm_grading"] != "0.25" || props["judge"] != "openai gpt-4o-mini" {
		t.Errorf("properties %v", props)
	}
}

// Characters XML cannot hold must not make junit.xml unreadable.
func TestJUnit_ControlCharacters(t *testing.T) {
	r := fixture()
	r.Cases[1].Reason = "bad \x00\x1b[31m byte"
	r.Cases[1].GeneratedQuery = "SELECT '\x01', ']]>' FROM t"
	var doc struct {
		Failures []string `xml:"testsuite>testcase>failure"`
	}
	if err := xml.Unmarshal(write(t, report.JUnit{}, r), &doc); err != nil {
		t.Fatalf("junit.xml with control characters: %v", err)
	}
	if len(doc.Failures) == 0 || !strings.Contains(doc.Failures[0], "generated: SELECT '\ufffd', ']]>' FROM t") {
		t.Errorf("failure text %q", doc.Failures)
	}
}

func TestMarkdown_Escapes(t *testing.T) {
	out := string(write(t, report.Markdown{}, fixture()))
	for _, bad := range []string{"<script>", "<img", "<b>", " @octocat"} {
		if strings.Contains(out, bad) {
			t.Errorf("summary.md contains %q unescaped", bad)
		}
	}
	for _, want := range []string{"**2 of 6 cases passed (33.3%)**", "> [!CAUTION]", "returns &lt;script&gt; \\| not the rows of \\`x\\` \\@octocat", "## qeval: shop &lt;demo&gt;", "| Execution accuracy | 50.0% | [0.0%, 100.0%] | 4 |", "Cases that did not pass (4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	// The error is listed first.
	if i, j := strings.Index(out, "error-syntax"), strings.Index(out, "fail-agg"); i < 0 || j < 0 || i > j {
		t.Errorf("error-syntax (at %d) should come before fail-agg (at %d)", i, j)
	}
}

func TestMarkdown_MaxCases(t *testing.T) {
	out := string(write(t, report.Markdown{MaxCases: 2}, fixture()))
	if !strings.Contains(out, "…and 2 more") || strings.Contains(out, "| partial |") {
		t.Errorf("MaxCases 2 did not cut the list:\n%s", out)
	}
	if none := string(write(t, report.Markdown{MaxCases: -1}, fixture())); strings.Contains(none, "did not pass") {
		t.Errorf("MaxCases -1 still lists cases")
	}
}

func TestText_Summary(t *testing.T) {
	out := string(write(t, report.Text{}, fixture()))
	for _, want := range []string{"pass rate 33.3%", "execution accuracy", "[0.0%, 100.0%]", "CRITICAL: recall 0.0%", "Slowest cases:", "fail-agg", "2.30 s",
		"openai gpt-4o-mini (prompt v1): 4 calls, 1 cache hit, 12,345 tokens in, 678 tokens out", "llm_grading"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("summary without Color has escape sequences")
	}
	if colored := string(write(t, report.Text{Color: true}, fixture())); !strings.Contains(colored, "\x1b[31m") {
		t.Error("summary with Color has no red")
	}
	r := fixture()
	r.Summary.Warnings = []string{"evil \x1b]0;title\x07 warning"}
	if out := string(write(t, report.Text{}, r)); strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("control characters from the report reached the terminal: %q", out)
	}
}

func TestFileNames(t *testing.T) {
	got := []string{report.JSON{}.FileName(), report.JUnit{}.FileName(), report.HTML{}.FileName(), report.Markdown{}.FileName()}
	want := []string{"report.json", "junit.xml", "report.html", "summary.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FileName()=%v, want %v", got, want)
	}
}

type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriters_ReturnWriteErrors(t *testing.T) {
	for _, w := range []report.Writer{report.JSON{}, report.JUnit{}, report.Markdown{}, report.HTML{}, report.Text{}} {
		if err := w.Write(failingWriter{}, fixture()); !errors.Is(err, errDiskFull) {
			t.Errorf("%s: Write to a full disk returned %v, want %v", w.FileName(), err, errDiskFull)
		}
	}
}

// A safety validator that let an unsafe query through is CRITICAL in every summary,
// whether or not the run's warnings already say so, and is said once.
func TestWriters_SafetyCritical(t *testing.T) {
	for _, warnings := range [][]string{nil, {"CRITICAL: safety recall 0.0%: an unsafe query passed the validator"}} {
		r := fixture()
		r.Summary.Warnings = warnings
		for _, w := range []report.Writer{report.Markdown{}, report.HTML{}, report.Text{}} {
			out := string(write(t, w, r))
			n := strings.Count(out, "CRITICAL: safety")
			if n != 1 {
				t.Errorf("%s with warnings %q: %d CRITICAL safety warnings, want 1", w.FileName(), warnings, n)
			}
		}
	}
	r := fixture()
	r.Summary.Safety.FN, r.Summary.Safety.Recall, r.Summary.Safety.Critical = 0, f(1), false
	r.Summary.Warnings = nil
	if out := string(write(t, report.Markdown{}, r)); strings.Contains(out, "CRITICAL") {
		t.Errorf("a validator that blocked every unsafe query is CRITICAL:\n%s", out)
	}
}
