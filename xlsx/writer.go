package xlsx

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Sheet names.
const (
	SummarySheet = "Summary"
	CasesSheet   = "Cases"
)

// Fill colours of the statuses (Excel's Good, Bad and Neutral cell styles).
const (
	FillPass  = "C6EFCE"
	FillFail  = "FFC7CE"
	FillError = "FFEB9C"
)

// Writer writes report.xlsx.
type Writer struct{}

// FileName is "report.xlsx".
func (Writer) FileName() string { return "report.xlsx" }

// column is one column of the Cases sheet.
type column struct {
	title string
	width float64
	kind  int // kindText, kindScore, kindNumber, kindStatus
	wrap  bool
	value func(c *qeval.CaseResult) any // string, *float64, float64 or nil
}

const (
	kindText = iota
	kindScore
	kindNumber
	kindStatus
)

func metricColumn(title, name string) column {
	return column{title: title, width: 14, kind: kindScore, value: func(c *qeval.CaseResult) any {
		return c.Metrics[name].Score
	}}
}

// columns is the layout of the Cases sheet. The seed's report columns come first after
// the case, in the seed's order.
var columns = []column{
	{"Case ID", 24, kindText, false, func(c *qeval.CaseResult) any { return c.ID }},
	{"Question", 40, kindText, true, func(c *qeval.CaseResult) any { return c.Question }},
	{"Tags", 16, kindText, false, func(c *qeval.CaseResult) any { return strings.Join(c.Tags, ", ") }},
	{"Expected Query", 50, kindText, true, func(c *qeval.CaseResult) any { return c.ExpectedQuery }},
	{"Generated Query", 50, kindText, true, func(c *qeval.CaseResult) any { return c.GeneratedQuery }},
	{"Total Score", 12, kindScore, false, func(c *qeval.CaseResult) any { return c.TotalScore }},
	{"Score Status", 13, kindStatus, false, func(c *qeval.CaseResult) any { return c.Status }},
	metricColumn("Schema Match Score", "schema_match"),
	metricColumn("Semantic Similarity Score", "semantic_similarity"),
	metricColumn("Results Match Score", "results_match"),
	metricColumn("LLM Grading Score", "llm_grading"),
	{"LLM Reasoning", 60, kindText, true, func(c *qeval.CaseResult) any {
		s, _ := c.Metrics["llm_grading"].Details["reasoning"].(string)
		return s
	}},
	metricColumn("Execution Match Score", "execution_match"),
	{"Execution Outcome", 16, kindText, false, func(c *qeval.CaseResult) any {
		if c.Verdict == nil {
			return ""
		}
		return string(c.Verdict.Outcome)
	}},
	metricColumn("Table Accuracy Score", "table_accuracy"),
	metricColumn("Safety Validation Score", "safety_validation"),
	metricColumn("Validation Accuracy Score", "validation_accuracy"),
	metricColumn("Query Correctness Score", "query_correctness"),
	{"Partial Score", 10, kindText, false, func(c *qeval.CaseResult) any {
		if c.Partial {
			return "yes"
		}
		return ""
	}},
	{"Reason", 40, kindText, true, func(c *qeval.CaseResult) any { return c.Reason }},
	{"Error Class", 24, kindText, false, func(c *qeval.CaseResult) any {
		if len(c.ErrorClass) == 0 {
			return ""
		}
		return c.ErrorClass[0].Subclass
	}},
	{"Why It Failed", 50, kindText, true, whyItFailed},
	{"Metric Errors", 40, kindText, true, metricErrors},
	{"Duration (ms)", 13, kindNumber, false, func(c *qeval.CaseResult) any { return c.DurationMS }},
	{"Database", 20, kindText, false, func(c *qeval.CaseResult) any { return c.Database }},
}

// whyItFailed is every error class of a case, one a line, with the fragments of each
// query that differ.
func whyItFailed(c *qeval.CaseResult) any {
	lines := make([]string, len(c.ErrorClass))
	for i, ec := range c.ErrorClass {
		lines[i] = ec.Subclass
		if ec.Expected != "" || ec.Generated != "" {
			lines[i] += ": expected " + orNothing(ec.Expected) + ", generated " + orNothing(ec.Generated)
		}
		if ec.Reason != "" {
			lines[i] += " (" + ec.Reason + ")"
		}
	}
	return strings.Join(lines, "\n")
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// Headers returns the titles of the Cases sheet's columns, in order.
func Headers() []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c.title
	}
	return out
}

// metricErrors lists the metrics that failed on c, one per line, in name order.
func metricErrors(c *qeval.CaseResult) any {
	var lines []string
	for name, m := range c.Metrics {
		if m.Error != nil {
			lines = append(lines, name+": "+m.Error.Message)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// Write writes r as an Excel workbook.
func (Writer) Write(w io.Writer, r *qeval.Report) error {
	z := zip.NewWriter(w)
	p := &pkg{z: z}
	props := docProps{title: r.Run.Suite, creator: "qeval " + r.Run.QevalVersion, description: "qeval report"}
	if !r.Run.Started.IsZero() {
		props.created, props.modified = r.Run.Started, r.Run.Started
		if !r.Run.Finished.IsZero() {
			props.modified = r.Run.Finished
		}
	}
	last := colName(len(columns))
	lastRow := strconv.Itoa(max(len(r.Cases)+1, 2))
	p.writeFrame([]string{SummarySheet, CasesSheet}, "'"+CasesSheet+"'!$A$1:$"+last+"$"+lastRow, props)
	p.put("xl/worksheets/sheet1.xml", func(x *xw) { writeSummary(x, r) })
	if x := p.part("xl/worksheets/sheet2.xml"); x != nil {
		if err := writeCases(x, r, "A1:"+last+lastRow); err != nil {
			return wrap(err)
		}
		p.done(x)
	}
	if p.err != nil {
		return wrap(p.err)
	}
	if err := z.Close(); err != nil {
		return wrap(err)
	}
	return nil
}

func wrap(err error) error {
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return err
	}
	return &qeval.Error{Code: qeval.CodeInternal, Op: "write report.xlsx", Message: err.Error(), Err: err}
}

// writeCases writes the Cases sheet: the frozen header and id column, the column
// widths and styles, a header, one row per case with the status fills, and the filter
// over filter. The sheet is streamed row by row (a run of 200,000 cases is read back
// one case at a time and never held as a sheet).
func writeCases(x *xw, r *qeval.Report, filter string) error {
	x.raw(`<worksheet xmlns="`, nsMain, `"><sheetPr filterMode="1"/><sheetViews><sheetView workbookViewId="0">`,
		`<pane xSplit="1" ySplit="1" topLeftCell="B2" activePane="bottomRight" state="frozen"/>`,
		`<selection pane="bottomRight" activeCell="B2" sqref="B2"/></sheetView></sheetViews>`)
	cs := make([]col, len(columns))
	for i, c := range columns {
		cs[i] = col{min: i + 1, max: i + 1, width: c.width, style: columnStyle(c)}
	}
	x.cols(cs)
	x.raw(`<sheetData><row r="1">`)
	for j, c := range columns {
		x.cell(j+1, 1, c.title, styleHeader)
	}
	x.raw(`</row>`)
	for i := range r.Cases {
		c, err := r.Case(i)
		if err != nil {
			return err
		}
		row := strconv.Itoa(i + 2)
		x.raw(`<row r="`, row, `">`)
		for j, col := range columns {
			v, st := col.value(c), columnStyle(col)
			if s, ok := v.(string); ok && s != "" && col.kind == kindStatus {
				st = statusStyle(s)
			}
			x.cell(j+1, i+2, v, st)
		}
		x.raw(`</row>`)
		if x.err != nil {
			return fmt.Errorf("case %q: %w", c.ID, x.err)
		}
	}
	x.raw(`</sheetData><autoFilter ref="`, filter, `"/></worksheet>`)
	return nil
}
