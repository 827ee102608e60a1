package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

func TestHTML_EscapesCaseText(t *testing.T) {
	out := string(write(t, report.HTML{}, fixture()))
	// Only the page's own script may appear.
	if n := strings.Count(out, "<script"); n != 1 {
		t.Errorf("report.html has %d <script> elements, want 1 (its own)", n)
	}
	for _, bad := range []string{"<img", "<b>this", "</code><script>"} {
		if strings.Contains(out, bad) {
			t.Errorf("report.html contains %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "shop &lt;demo&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("report.html lacks the escaped text %q", want)
		}
	}
}

func TestHTML_SelfContained(t *testing.T) {
	out := string(write(t, report.HTML{}, fixture()))
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*"?(https?:|//)|<link|@import|url\(`)
	if m := ext.FindString(out); m != "" {
		t.Errorf("report.html loads an external asset: %q", m)
	}
	for _, want := range []string{`<meta name="viewport"`, `<html lang="en">`, `<th scope="col">`, `role="img"`} {
		if !strings.Contains(out, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	// Every chart of the fixture is on the page.
	for _, id := range []string{"score-distribution", "component-means", "tag-accuracy", "reliability", "safety-matrix"} {
		if !strings.Contains(out, `<figure id="`+id+`">`) {
			t.Errorf("report.html lacks the chart %s", id)
		}
	}
	// Each case is a details element carrying its status for the filter.
	if n := strings.Count(out, `<details class="case"`); n != 6 {
		t.Errorf("%d case elements, want 6", n)
	}
	if !strings.Contains(out, `data-status="ERROR"`) || !strings.Contains(out, "Same join and grouping") {
		t.Error("case details are missing")
	}
}

// wellFormed fails unless s is one well-formed XML element.
func wellFormed(t *testing.T, name, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	depth, elems := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", name, err, s)
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				elems++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if elems != 1 || depth != 0 {
		t.Errorf("%s: %d top-level elements, depth %d at the end", name, elems, depth)
	}
}

func TestCharts_WellFormed(t *testing.T) {
	r := fixture()
	charts := report.Charts(&r.Summary, r.Run.Threshold)
	if len(charts) != 6 {
		t.Fatalf("Charts gave %d charts, want 6", len(charts))
	}
	for _, c := range charts {
		wellFormed(t, c.ID, c.SVG)
		if !strings.HasPrefix(c.SVG, "<svg ") || !strings.Contains(c.SVG, "<title>") || !strings.Contains(c.SVG, `role="img"`) {
			t.Errorf("%s lacks the svg element, its title or its role", c.ID)
		}
	}
	wellFormed(t, "metric means", report.MetricMeansSVG(&r.Summary))
	if tags := report.TagAccuracySVG(&r.Summary); !strings.Contains(tags, "&lt;img src=x") || strings.Contains(tags, "<img") {
		t.Errorf("the tag chart does not escape tag names")
	}
}

func TestCharts_EmptySummary(t *testing.T) {
	var s qeval.Summary
	if got := report.Charts(&s, 0.7); len(got) != 0 {
		t.Errorf("an empty summary gave %d charts", len(got))
	}
	s.ScoreHistogram = make([]int, 10)
	s.Safety = &qeval.SafetySummary{}
	s.Calibration = &qeval.CalibrationSummary{Bins: []qeval.ReliabilityBin{{Lower: 0, Upper: 1}}}
	if got := report.Charts(&s, 0.7); len(got) != 0 {
		t.Errorf("a summary of zero counts gave %d charts", len(got))
	}
}

// Values no run produces must still draw inside the frame, without NaN in the markup.
func TestCharts_OddValues(t *testing.T) {
	s := qeval.Summary{
		ScoreHistogram: []int{-3, 5},
		ComponentMeans: map[string]*float64{"schema_match": f(7), "llm_grading": nil, "custom": f(-1)},
		ByTag:          []qeval.TagSummary{{Tag: strings.Repeat("x", 300), Count: 1, Accuracy: &qeval.Interval{Value: 2, Low: -1, High: 3}}},
		Safety:         &qeval.SafetySummary{FN: 2},
		Calibration:    &qeval.CalibrationSummary{Bins: []qeval.ReliabilityBin{{Lower: 0.5, Upper: 0.5, Count: 3, Confidence: 1.5, Accuracy: -2}}},
	}
	for _, c := range report.Charts(&s, 2) {
		wellFormed(t, c.ID, c.SVG)
		if strings.Contains(c.SVG, "NaN") || strings.Contains(c.SVG, "Inf") || strings.Contains(c.SVG, `="-`) {
			t.Errorf("%s has an odd coordinate:\n%s", c.ID, c.SVG)
		}
	}
	if comp := report.ComponentMeansSVG(&s); !strings.Contains(comp, "not computed") {
		t.Errorf("a nil component mean is not marked as not computed")
	}
}

// A run of many cases gives a page a browser can open: past MaxHTMLCases the failed
// cases are detailed first and the rest counted (issue 24).
func TestHTML_ManyCases(t *testing.T) {
	rep := &qeval.Report{Run: qeval.RunInfo{Suite: "big", Threshold: 0.9}}
	one := 1.0
	for i := 0; i < report.MaxHTMLCases+500; i++ {
		st := qeval.StatusPass
		if i%1000 == 999 {
			st = qeval.StatusFail
		}
		rep.Cases = append(rep.Cases, qeval.CaseResult{ID: fmt.Sprintf("c%05d", i), Status: st, TotalScore: &one})
	}
	var buf bytes.Buffer
	if err := (report.HTML{}).Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "500 more (500 of them passed) are in report.json") || !strings.Contains(out, ">c00999<") {
		t.Errorf("the page does not say what it left out, or lacks the failed case")
	}
	if strings.Count(out, `<details class="case"`) != report.MaxHTMLCases {
		t.Errorf("%d cases detailed, want %d", strings.Count(out, `<details class="case"`), report.MaxHTMLCases)
	}
}
