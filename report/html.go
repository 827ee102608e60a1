package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
)

// HTML writes report.html: one self-contained page (inline CSS, inline SVG charts, a
// few lines of script to filter the cases, no external assets) with the summary, the
// charts and every case's details. Everything that comes from the suite or the system
// under test is escaped by html/template.
type HTML struct{}

// FileName is "report.html".
func (HTML) FileName() string { return "report.html" }

//go:embed html.tmpl
var htmlSource string

// htmlTemplate is parsed on first use: every qeval command would otherwise pay for it
// at start-up (0.5 ms).
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":           pct,
		"join":          strings.Join,
		"pctPtr":        pctPtr,
		"score":         score,
		"scorePtr":      scorePtr,
		"interval":      interval,
		"topSubclasses": topSubclasses,
		"mainClass": func(c *qeval.CaseResult) string {
			if len(c.ErrorClass) == 0 {
				return ""
			}
			return c.ErrorClass[0].Class
		},
		"auditHeadline": auditHeadline,
		"millis":        millis,
		"count":         count,
		"label":         label,
		"judge":         judgeLine,
		"safety":        safetyLine,
		"critical":      critical,
		"plural":        plural,
		"base":          filepath.Base,
		"when":          func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"statusClass": func(s string) string {
			switch s {
			case qeval.StatusPass, qeval.StatusFail, qeval.StatusError:
				return strings.ToLower(s)
			}
			return "other"
		},
	}).Parse(htmlSource))
})

// Limits on what the page shows of each case, so a huge result cannot bloat it.
const (
	htmlPreviewRows  = 5
	htmlPreviewCols  = 12
	htmlDetailsChars = 4000
)

type htmlPage struct {
	R          *qeval.Report
	Title      string
	Charts     []htmlChart
	Components []htmlComponent
	Metrics    []htmlComponent
	Outcomes   []htmlOutcome
	Warnings   []warning
	Cases      []htmlCase
	// Omitted counts the cases left out past MaxHTMLCases (they are in report.json).
	Omitted, OmittedPassed int
}

// MaxHTMLCases is how many cases report.html details: past it, the failed and errored
// cases come first and the rest are counted and left to report.json, so a browser can
// open the page (issue 24: 200,000 cases made a 668 MB report.html).
const MaxHTMLCases = 2000

type htmlChart struct {
	ID, Title string
	SVG       template.HTML
}

type htmlComponent struct {
	Name   string
	Weight *float64
	Mean   *float64
}

type htmlOutcome struct {
	Name  string
	Count int
}

type htmlCase struct {
	*qeval.CaseResult
	Reason      string
	Metrics     []htmlMetric
	Reasoning   string
	Gold, Pred  *htmlTable
	ScoreText   string
	SearchIndex string
	// GoldNote says which gold matched, on a case with several.
	GoldNote string
	// State is what a stateful case compared that differed (stateHTML).
	State []htmlState
}

type htmlMetric struct {
	Name, Score, Note, Details string
	Failed                     bool
}

type htmlTable struct {
	Columns []string
	Rows    [][]string
	More    int
}

// Write writes r as one HTML page.
func (HTML) Write(w io.Writer, r *qeval.Report) error {
	p := htmlPage{R: r, Title: "qeval report", Warnings: runWarnings(r)}
	if r.Run.Suite != "" {
		p.Title = r.Run.Suite + " · qeval report"
	}
	for _, c := range Charts(&r.Summary, r.Run.Threshold) {
		// The SVG is built by charts.go, which escapes every piece of text it draws.
		p.Charts = append(p.Charts, htmlChart{ID: c.ID, Title: c.Title, SVG: template.HTML(c.SVG)})
	}
	for _, n := range componentNames(r) {
		hc := htmlComponent{Name: n, Mean: r.Summary.ComponentMeans[n]}
		if v, ok := r.Run.Weights[n]; ok {
			hc.Weight = &v
		}
		p.Components = append(p.Components, hc)
	}
	for _, n := range sortedKeys(r.Summary.MetricMeans) {
		p.Metrics = append(p.Metrics, htmlComponent{Name: n, Mean: r.Summary.MetricMeans[n]})
	}
	for _, o := range qeval.Outcomes {
		if n := r.Summary.Outcomes[o]; n > 0 {
			p.Outcomes = append(p.Outcomes, htmlOutcome{string(o), n})
		}
	}
	for _, o := range sortedKeys(r.Summary.Outcomes) {
		if n := r.Summary.Outcomes[o]; n > 0 && !slices.Contains(qeval.Outcomes, o) {
			p.Outcomes = append(p.Outcomes, htmlOutcome{string(o), n})
		}
	}
	// the summary names every metric of the run: cases a store holds are here without them
	names := metricNames(r.Cases, sortedKeys(r.Summary.MetricMeans)...)
	for _, i := range htmlCaseOrder(r.Cases) {
		if len(p.Cases) == MaxHTMLCases {
			p.Omitted++
			if r.Cases[i].Status == qeval.StatusPass {
				p.OmittedPassed++
			}
			continue
		}
		c, err := r.Case(i)
		if err != nil {
			return err
		}
		p.Cases = append(p.Cases, newHTMLCase(c, names, r.Run.Threshold))
	}
	return htmlTemplate().Execute(w, p)
}

// htmlCaseOrder is the cases in report order, or, past MaxHTMLCases, the ones that did
// not pass first (each group in report order).
func htmlCaseOrder(cases []qeval.CaseResult) []int {
	order := make([]int, 0, len(cases))
	if len(cases) <= MaxHTMLCases {
		for i := range cases {
			order = append(order, i)
		}
		return order
	}
	for pass := 0; pass < 2; pass++ {
		for i, c := range cases {
			if (c.Status == qeval.StatusPass) == (pass == 1) {
				order = append(order, i)
			}
		}
	}
	return order
}

func newHTMLCase(c *qeval.CaseResult, names []string, threshold float64) htmlCase {
	hc := htmlCase{CaseResult: c, Reason: caseReason(c, threshold), Reasoning: reasoning(c), ScoreText: scorePtr(c.TotalScore), GoldNote: goldNote(c)}
	for _, n := range names {
		m, ok := c.Metrics[n]
		if !ok {
			continue
		}
		hm := htmlMetric{Name: n, Score: scorePtr(m.Score), Note: metricNote(m), Failed: m.Error != nil}
		if details := detailsJSON(m.Details); details != "" {
			hm.Details = clip(details, htmlDetailsChars)
		}
		hc.Metrics = append(hc.Metrics, hm)
	}
	if v := c.Verdict; v != nil {
		hc.Gold, hc.Pred = previewTable(v.Gold), previewTable(v.Pred)
		hc.State = stateHTML(v.State)
	}
	hc.SearchIndex = clip(c.ID+" "+c.Question+" "+strings.Join(c.Tags, " "), 500)
	return hc
}

// previewTable is the first rows and columns of a result set, as text.
func previewTable(rs *qeval.ResultSet) *htmlTable {
	if rs == nil {
		return nil
	}
	t := &htmlTable{More: max(len(rs.Rows)-htmlPreviewRows, 0)}
	for i, col := range rs.Columns {
		if i == htmlPreviewCols {
			t.Columns = append(t.Columns, "…")
			break
		}
		t.Columns = append(t.Columns, col.Name)
	}
	for _, row := range rs.Head(htmlPreviewRows).Rows {
		cells := make([]string, 0, min(len(row), htmlPreviewCols+1))
		for i, v := range row {
			if i == htmlPreviewCols {
				cells = append(cells, "…")
				break
			}
			cells = append(cells, clip(v.String(), 80))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// detailsJSON is a metric's details as compact JSON, without the judge's reasoning,
// which the page shows on its own ("" when nothing is left).
func detailsJSON(details map[string]any) string {
	shown := make(map[string]any, len(details))
	for k, v := range details {
		if k != "reasoning" {
			shown[k] = v
		}
	}
	if len(shown) == 0 {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // html/template escapes the page; \u003c would only hurt reading
	if err := enc.Encode(shown); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
