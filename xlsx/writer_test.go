package xlsx_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/xlsx"
	"github.com/xuri/excelize/v2"
)

// fixture reads testdata/report.json, a copy of report/testdata/report.json (the
// report package's golden run of six cases), and adds a case whose query looks like a
// spreadsheet formula.
func fixture(tb testing.TB) *qeval.Report {
	tb.Helper()
	b, err := os.ReadFile("testdata/report.json")
	if err != nil {
		tb.Fatal(err)
	}
	var r qeval.Report
	if err := json.Unmarshal(b, &r); err != nil {
		tb.Fatal(err)
	}
	r.Cases = append(r.Cases, qeval.CaseResult{ID: "formula", Status: qeval.StatusError, GeneratedQuery: `=HYPERLINK("http://example.com","x")`})
	return &r
}

func open(t *testing.T, r *qeval.Report) *excelize.File {
	t.Helper()
	var buf bytes.Buffer
	if err := (xlsx.Writer{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatalf("report.xlsx does not open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

var wantHeader = []string{
	"Case ID", "Question", "Tags", "Expected Query", "Generated Query",
	"Total Score", "Score Status", "Schema Match Score", "Semantic Similarity Score", "Results Match Score", "LLM Grading Score", "LLM Reasoning",
	"Execution Match Score", "Execution Outcome", "Table Accuracy Score", "Safety Validation Score", "Validation Accuracy Score",
	"Query Correctness Score", "Partial Score", "Reason", "Error Class", "Why It Failed", "Metric Errors", "Duration (ms)", "Database",
}

func TestWriter_Sheets(t *testing.T) {
	f := open(t, fixture(t))
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{"Summary", "Cases"}) {
		t.Errorf("sheets %v, want [Summary Cases]", got)
	}
	rows, err := f.GetRows("Cases")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], wantHeader) || !reflect.DeepEqual(xlsx.Headers(), wantHeader) {
		t.Errorf("header %q,\nwant %q", rows[0], wantHeader)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want a header and 7 cases", len(rows))
	}
	// The seed's columns, by title.
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	first := rows[1]
	for title, want := range map[string]string{
		"Case ID": "pass-join", "Total Score": "0.950", "Score Status": "PASS", "Schema Match Score": "1.000",
		"Semantic Similarity Score": "0.800", "LLM Grading Score": "1.000", "LLM Reasoning": "Same join and grouping; GROUP BY 1 is equivalent.",
		"Execution Outcome": "match", "Duration (ms)": "120",
	} {
		if got := first[col[title]]; got != want {
			t.Errorf("pass-join %s = %q, want %q", title, got, want)
		}
	}
	// Scores are numbers, so they sort and sum.
	if v, _ := f.GetCellValue("Cases", "F2", excelize.Options{RawCellValue: true}); v != "0.95" {
		t.Errorf("Total Score raw value %q, want 0.95", v)
	}
	// A skipped metric leaves its cell empty; an error shows in Metric Errors.
	errRow := rows[3]
	if errRow[col["Score Status"]] != "ERROR" || errRow[col["LLM Grading Score"]] != "" || errRow[col["Total Score"]] != "" {
		t.Errorf("error-syntax row %q", errRow)
	}
	if got := errRow[col["Metric Errors"]]; got != `execution_match: near "SELEC": syntax error` {
		t.Errorf("Metric Errors %q", got)
	}
	// Why a case failed: its first error class, and every class with the fragments.
	failRow := rows[2]
	if got := failRow[col["Error Class"]]; got != "function.aggregate" {
		t.Errorf("fail-agg Error Class %q, want function.aggregate", got)
	}
	if got, want := failRow[col["Why It Failed"]], "function.aggregate: expected avg(orders.total), generated sum(orders.total)\ncondition.missing: expected orders.year = 2024, generated nothing"; got != want {
		t.Errorf("fail-agg Why It Failed %q, want %q", got, want)
	}
	// Text from the suite is kept as written.
	if got := rows[6][col["Generated Query"]]; got != "SELECT '<script>alert(1)</script>' AS x FROM t WHERE a | b" {
		t.Errorf("markup query %q", got)
	}
	if formula, _ := f.GetCellFormula("Cases", "E8"); formula != "" {
		t.Errorf("a generated query became the formula %q", formula)
	}
	if got := rows[7][col["Generated Query"]]; !strings.HasPrefix(got, "=HYPERLINK") {
		t.Errorf("formula-like query %q", got)
	}
}

// fillOf is the fill colour of a Cases cell, as excelize parsed the styles part: its
// GetStyle names colours only through a theme part, which the workbook does not carry
// (Excel needs none).
func fillOf(t *testing.T, f *excelize.File, cell string) string {
	t.Helper()
	id, err := f.GetCellStyle("Cases", cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	xf := f.Styles.CellXfs.Xf[id]
	if st.Fill.Type != "pattern" || xf.FillID == nil || *xf.FillID == 0 {
		return ""
	}
	fill := f.Styles.Fills.Fill[*xf.FillID].PatternFill
	if fill == nil || fill.PatternType != "solid" || fill.FgColor == nil {
		t.Fatalf("fill of %s: %+v", cell, fill)
	}
	return strings.TrimPrefix(fill.FgColor.RGB, "FF")
}

func TestWriter_StatusFills(t *testing.T) {
	f := open(t, fixture(t))
	// Score Status is column G; rows 2..8 are pass-join, fail-agg, error-syntax,
	// no-judge, partial, markup, formula.
	for cell, want := range map[string]string{"G2": xlsx.FillPass, "G3": xlsx.FillFail, "G4": xlsx.FillError, "G5": xlsx.FillPass, "G6": xlsx.FillFail, "G8": xlsx.FillError} {
		if got := fillOf(t, f, cell); got != want {
			t.Errorf("fill of %s = %q, want %q", cell, got, want)
		}
	}
	if got := fillOf(t, f, "F2"); got != "" {
		t.Errorf("Total Score cell filled %q", got)
	}
	if got := fillOf(t, f, "A1"); got == "" {
		t.Error("header row has no fill")
	}
}

func TestWriter_FrozenHeaderAndFilter(t *testing.T) {
	f := open(t, fixture(t))
	p, err := f.GetPanes("Cases")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Freeze || p.YSplit != 1 || p.XSplit != 1 || p.TopLeftCell != "B2" {
		t.Errorf("panes %+v, want the header row and id column frozen", p)
	}
	var filter string
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm._FilterDatabase" && d.Scope == "Cases" {
			filter = d.RefersTo
		}
	}
	if filter != "'Cases'!$A$1:$Y$8" {
		t.Errorf("autofilter %q, want 'Cases'!$A$1:$Y$8", filter)
	}
	for c, want := range map[string]float64{"A": 24, "B": 40, "L": 60, "G": 13} {
		if w, _ := f.GetColWidth("Cases", c); w != want {
			t.Errorf("width of column %s = %v, want %v", c, w, want)
		}
	}
}

func TestWriter_Summary(t *testing.T) {
	f := open(t, fixture(t))
	rows, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range rows {
		if len(r) > 1 {
			got[r[0]] = r[1:]
		}
	}
	for k, want := range map[string]string{
		"Suite": "shop <demo>", "Comparison mode": "spider-ts@1", "Pass rate": "33.3%", "Mean total score": "0.602",
		"Threshold": "0.700", "LLM judge": "openai gpt-4o-mini", "Judge tokens in": "12,345", "Safety recall": "0.0%",
		"Started (UTC)": "2025-01-02 03:04:05", "llm_grading": "0.250",
	} {
		if v := got[k]; len(v) == 0 || v[0] != want {
			t.Errorf("Summary %s = %v, want %q", k, v, want)
		}
	}
	if v := got["Execution accuracy"]; !reflect.DeepEqual(v, []string{"50.0%", "0.0%", "100.0%", "4"}) {
		t.Errorf("Execution accuracy row %v", v)
	}
	if v := got["easy"]; !reflect.DeepEqual(v, []string{"2", "50.0%", "50.0%", "0.0%", "100.0%"}) {
		t.Errorf("tag easy row %v", v)
	}
	if v := got["function"]; !reflect.DeepEqual(v, []string{"1", "33.3%", "6.2%", "79.2%", "function.aggregate 1"}) {
		t.Errorf("error class function row %v", v)
	}
}

func TestWriter_EmptyReport(t *testing.T) {
	f := open(t, &qeval.Report{})
	rows, err := f.GetRows("Cases")
	if err != nil || len(rows) != 1 {
		t.Errorf("empty report: %d rows, %v", len(rows), err)
	}
}

func TestWriter_ByteStable(t *testing.T) {
	var a, b bytes.Buffer
	if err := (xlsx.Writer{}).Write(&a, fixture(t)); err != nil {
		t.Fatal(err)
	}
	if err := (xlsx.Writer{}).Write(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same report differ")
	}
}

type fullDisk struct{}

var errFull = errors.New("disk full")

func (fullDisk) Write([]byte) (int, error) { return 0, errFull }

func TestWriter_WriteError(t *testing.T) {
	if err := (xlsx.Writer{}).Write(fullDisk{}, fixture(t)); !errors.Is(err, errFull) {
		t.Errorf("Write to a full disk: %v", err)
	}
}

func BenchmarkWriter(b *testing.B) {
	r := fixture(b)
	base := r.Cases
	r.Cases = nil
	for i := range 2000 {
		c := base[i%len(base)]
		c.ID = c.ID + "-" + string(rune('a'+i%26)) + strings.Repeat("x", i%7)
		r.Cases = append(r.Cases, c)
	}
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		if err := (xlsx.Writer{}).Write(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
}

// Text XML cannot hold becomes U+FFFD, text past Excel's 32,767 characters is cut, and
// the workbook's properties say who wrote it and when.
func TestWriter_HostileTextAndProperties(t *testing.T) {
	r := fixture(t)
	r.Cases = append(r.Cases, qeval.CaseResult{ID: "hostile", Question: strings.Repeat("é", 40000), Tags: []string{strings.Repeat("😀", 20000)},
		GeneratedQuery: "SELECT '\x00\x01' <> \"&\" \r\n  -- \uFFFE end  "})
	f := open(t, r)
	rows, err := f.GetRows("Cases")
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	if got := last[1]; got != strings.Repeat("é", 32767) {
		t.Errorf("a 40,000-character question kept %d characters, want 32,767", len([]rune(got)))
	}
	if got := last[2]; got != strings.Repeat("😀", 16383) {
		t.Errorf("tags of 20,000 characters past U+FFFF kept %d, want 16,383 (32,766 UTF-16 units)", len([]rune(got)))
	}
	if got, want := last[4], "SELECT '\uFFFD\uFFFD' <> \"&\" \r\n  -- \uFFFD end  "; got != want {
		t.Errorf("hostile query read back as %q, want %q", got, want)
	}
	p, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	if p.Creator != "qeval "+r.Run.QevalVersion || p.Title != "shop <demo>" || p.Created != "2025-01-02T03:04:05Z" || p.Modified == "" {
		t.Errorf("properties %+v", p)
	}
}
