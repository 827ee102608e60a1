package xlsx

import (
	"github.com/qeval/qeval"
	"github.com/xuri/excelize/v2"
)

// styles are the cell styles of the workbook, created once per file.
type styles struct {
	header, text, wrapped, score, number  int
	pass, fail, errored, other            int
	title, section, label, percent, value int
}

func newStyles(f *excelize.File) (*styles, error) {
	top := &excelize.Alignment{Vertical: "top"}
	st := &styles{}
	bold := &excelize.Font{Bold: true}
	fill := func(color string) excelize.Fill {
		return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}
	}
	format3 := "0.000"
	formatInt := "#,##0"
	formatPct := "0.0%"
	specs := []struct {
		dst   *int
		style excelize.Style
	}{
		{&st.header, excelize.Style{Font: bold, Fill: fill("D9E1F2"), Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
			Border: []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 2}}}},
		{&st.text, excelize.Style{Alignment: top}},
		{&st.wrapped, excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}}},
		{&st.score, excelize.Style{Alignment: top, CustomNumFmt: &format3}},
		{&st.number, excelize.Style{Alignment: top, CustomNumFmt: &formatInt}},
		{&st.pass, excelize.Style{Font: &excelize.Font{Bold: true, Color: "006100"}, Fill: fill(FillPass), Alignment: &excelize.Alignment{Vertical: "top", Horizontal: "center"}}},
		{&st.fail, excelize.Style{Font: &excelize.Font{Bold: true, Color: "9C0006"}, Fill: fill(FillFail), Alignment: &excelize.Alignment{Vertical: "top", Horizontal: "center"}}},
		{&st.errored, excelize.Style{Font: &excelize.Font{Bold: true, Color: "9C5700"}, Fill: fill(FillError), Alignment: &excelize.Alignment{Vertical: "top", Horizontal: "center"}}},
		{&st.other, excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", Horizontal: "center"}}},
		{&st.title, excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}}},
		{&st.section, excelize.Style{Font: bold, Fill: fill("D9E1F2"), Border: []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 2}}}},
		{&st.label, excelize.Style{Font: bold, Alignment: top}},
		{&st.percent, excelize.Style{CustomNumFmt: &formatPct}},
		{&st.value, excelize.Style{Alignment: &excelize.Alignment{Horizontal: "left", WrapText: true}}},
	}
	for _, s := range specs {
		id, err := f.NewStyle(&s.style)
		if err != nil {
			return nil, err
		}
		*s.dst = id
	}
	return st, nil
}

// column is the style of a Cases column.
func (s *styles) column(c column) int {
	switch {
	case c.kind == kindScore:
		return s.score
	case c.kind == kindNumber:
		return s.number
	case c.wrap:
		return s.wrapped
	}
	return s.text
}

// status is the fill of a status cell.
func (s *styles) status(v string) int {
	switch v {
	case qeval.StatusPass:
		return s.pass
	case qeval.StatusFail:
		return s.fail
	case qeval.StatusError:
		return s.errored
	}
	return s.other
}
