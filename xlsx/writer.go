package xlsx

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/qeval/qeval"
	"github.com/xuri/excelize/v2"
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
	{"Metric Errors", 40, kindText, true, metricErrors},
	{"Duration (ms)", 13, kindNumber, false, func(c *qeval.CaseResult) any { return c.DurationMS }},
	{"Database", 20, kindText, false, func(c *qeval.CaseResult) any { return c.Database }},
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
	f := excelize.NewFile()
	defer f.Close()
	st, err := newStyles(f)
	if err != nil {
		return wrap(err)
	}
	if err := f.SetSheetName("Sheet1", SummarySheet); err != nil {
		return wrap(err)
	}
	if _, err := f.NewSheet(CasesSheet); err != nil {
		return wrap(err)
	}
	if err := writeSummary(f, r, st); err != nil {
		return wrap(err)
	}
	if err := writeCases(f, r, st); err != nil {
		return wrap(err)
	}
	props := &excelize.DocProperties{Creator: "qeval " + r.Run.QevalVersion, Title: r.Run.Suite, Description: "qeval report"}
	if !r.Run.Started.IsZero() {
		props.Created = r.Run.Started.UTC().Format("2006-01-02T15:04:05Z")
		props.Modified = props.Created
		if !r.Run.Finished.IsZero() {
			props.Modified = r.Run.Finished.UTC().Format("2006-01-02T15:04:05Z")
		}
	}
	if err := f.SetDocProps(props); err != nil {
		return wrap(err)
	}
	f.SetActiveSheet(0)
	return f.Write(w)
}

func wrap(err error) error {
	return &qeval.Error{Code: qeval.CodeInternal, Op: "write report.xlsx", Message: err.Error(), Err: err}
}

// writeCases fills the Cases sheet: a header, one row per case, the status fills, the
// frozen header and id column, and the filters. The sheet is streamed row by row (a
// run of 200,000 cases is read back one case at a time and never held as a sheet).
func writeCases(f *excelize.File, r *qeval.Report, st *styles) error {
	last, _ := excelize.ColumnNumberToName(len(columns))
	// the filter is part of the worksheet the stream writer starts from
	if err := f.AutoFilter(CasesSheet, fmt.Sprintf("A1:%s%d", last, max(len(r.Cases)+1, 2)), nil); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(CasesSheet)
	if err != nil {
		return err
	}
	for i, col := range columns {
		if err := sw.SetColWidth(i+1, i+1, col.width); err != nil {
			return err
		}
		if err := sw.SetColStyle(i+1, i+1, st.column(col)); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, XSplit: 1, YSplit: 1, TopLeftCell: "B2", ActivePane: "bottomRight",
		Selection: []excelize.Selection{{SQRef: "B2", ActiveCell: "B2", Pane: "bottomRight"}}}); err != nil {
		return err
	}
	row := make([]any, len(columns))
	for j, col := range columns {
		row[j] = excelize.Cell{StyleID: st.header, Value: col.title}
	}
	if err := sw.SetRow("A1", row); err != nil {
		return err
	}
	for i := range r.Cases {
		c, err := r.Case(i)
		if err != nil {
			return err
		}
		for j, col := range columns {
			row[j] = cellOf(col, col.value(c), st)
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, row); err != nil {
			return fmt.Errorf("case %q: %w", c.ID, err)
		}
	}
	return sw.Flush()
}

// cellOf is one cell of a case's row: a string always as text (a query like "=1+1"
// stays text), a number, or an empty cell for an empty string or a missing score,
// styled by its column (and a status by its value).
func cellOf(col column, v any, st *styles) excelize.Cell {
	cell := excelize.Cell{StyleID: st.column(col)}
	switch x := v.(type) {
	case string:
		if x == "" {
			return cell
		}
		cell.Value = x
		if col.kind == kindStatus {
			cell.StyleID = st.status(x)
		}
	case *float64:
		if x != nil {
			cell.Value = finite(*x)
		}
	case float64:
		cell.Value = finite(x)
	}
	return cell
}

// finite is x, or nil for NaN and infinities, which Excel cannot hold.
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// setFloat writes a number; NaN and infinities, which Excel cannot hold, stay empty.
func setFloat(f *excelize.File, sheet, cell string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return f.SetCellFloat(sheet, cell, x, -1, 64)
}
