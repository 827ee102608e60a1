package xlsx

import (
	"slices"
	"strconv"

	"github.com/qeval/qeval"
)

// The cell styles of the workbook; a cell's s attribute is its index in styleTable.
const (
	styleNone = iota
	styleHeader
	styleText
	styleWrapped
	styleScore
	styleNumber
	stylePass
	styleFail
	styleError
	styleOther
	styleTitle
	styleSection
	styleLabel
	stylePercent
	styleValue
)

// style is one cell style: its font, fill colour, bottom border colour, number format
// and alignment ("" for the defaults).
type style struct {
	font         font
	fill, border string
	numFmt       string
	h, v         string
	wrap         bool
}

type font struct {
	bold  bool
	color string
	size  int
}

var (
	bold   = font{bold: true}
	banner = style{font: bold, fill: "D9E1F2", border: "8EA9DB"}
)

func badge(color, fill string) style {
	return style{font: font{bold: true, color: color}, fill: fill, h: "center", v: "top"}
}

// styleTable is every style, by its constant.
var styleTable = [...]style{
	styleNone:    {},
	styleHeader:  {font: bold, fill: banner.fill, border: banner.border, v: "center", wrap: true},
	styleText:    {v: "top"},
	styleWrapped: {v: "top", wrap: true},
	styleScore:   {numFmt: "0.000", v: "top"},
	styleNumber:  {numFmt: "#,##0", v: "top"},
	stylePass:    badge("006100", FillPass),
	styleFail:    badge("9C0006", FillFail),
	styleError:   badge("9C5700", FillError),
	styleOther:   {h: "center", v: "top"},
	styleTitle:   {font: font{bold: true, size: 14}},
	styleSection: banner,
	styleLabel:   {font: bold, v: "top"},
	stylePercent: {numFmt: "0.0%"},
	styleValue:   {h: "left", wrap: true},
}

// columnStyle is the style of a Cases column.
func columnStyle(c column) int {
	switch {
	case c.kind == kindScore:
		return styleScore
	case c.kind == kindNumber:
		return styleNumber
	case c.wrap:
		return styleWrapped
	}
	return styleText
}

// statusStyle is the style of a status cell: its fill says pass, fail or error.
func statusStyle(v string) int {
	switch v {
	case qeval.StatusPass:
		return stylePass
	case qeval.StatusFail:
		return styleFail
	case qeval.StatusError:
		return styleError
	}
	return styleOther
}

// index returns the position of v in *list, adding it at the end when missing.
func index[T comparable](list *[]T, v T) int {
	if i := slices.Index(*list, v); i >= 0 {
		return i
	}
	*list = append(*list, v)
	return len(*list) - 1
}

// writeStyles writes styles.xml: the fonts, fills, borders and number formats the
// styles use, each once, and one cell format per style.
func writeStyles(x *xw) {
	fonts, fills, borders, fmts := []font{{}}, []string{"none", "gray125"}, []string{""}, []string{}
	var xfs []string
	for _, s := range styleTable {
		fmtID := 0
		if s.numFmt != "" {
			fmtID = 164 + index(&fmts, s.numFmt)
		}
		fillID := 0
		if s.fill != "" {
			fillID = index(&fills, s.fill)
		}
		xf := `<xf numFmtId="` + strconv.Itoa(fmtID) + `" fontId="` + strconv.Itoa(index(&fonts, s.font)) +
			`" fillId="` + strconv.Itoa(fillID) + `" borderId="` + strconv.Itoa(index(&borders, s.border)) + `" xfId="0"` +
			` applyNumberFormat="1" applyFont="1" applyFill="1" applyBorder="1" applyAlignment="1"><alignment`
		if s.h != "" {
			xf += ` horizontal="` + s.h + `"`
		}
		if s.v != "" {
			xf += ` vertical="` + s.v + `"`
		}
		if s.wrap {
			xf += ` wrapText="1"`
		}
		xfs = append(xfs, xf+`/></xf>`)
	}
	x.raw(`<styleSheet xmlns="`, nsMain, `"><numFmts count="`, strconv.Itoa(len(fmts)), `">`)
	for i, f := range fmts {
		x.raw(`<numFmt numFmtId="`, strconv.Itoa(164+i), `" formatCode="`)
		x.text(f)
		x.raw(`"/>`)
	}
	x.raw(`</numFmts><fonts count="`, strconv.Itoa(len(fonts)), `">`)
	for _, f := range fonts {
		x.raw(`<font>`)
		if f.bold {
			x.raw(`<b/>`)
		}
		x.raw(`<sz val="`, strconv.Itoa(max(f.size, 11)), `"/>`)
		if f.color != "" {
			x.raw(`<color rgb="FF`, f.color, `"/>`)
		}
		x.raw(`<name val="Calibri"/><family val="2"/></font>`)
	}
	x.raw(`</fonts><fills count="`, strconv.Itoa(len(fills)), `">`)
	for i, f := range fills {
		if i < 2 {
			x.raw(`<fill><patternFill patternType="`, f, `"/></fill>`)
			continue
		}
		x.raw(`<fill><patternFill patternType="solid"><fgColor rgb="FF`, f, `"/></patternFill></fill>`)
	}
	x.raw(`</fills><borders count="`, strconv.Itoa(len(borders)), `">`)
	for _, b := range borders {
		if b == "" {
			x.raw(`<border><left/><right/><top/><bottom/><diagonal/></border>`)
			continue
		}
		x.raw(`<border><left/><right/><top/><bottom style="medium"><color rgb="FF`, b, `"/></bottom><diagonal/></border>`)
	}
	x.raw(`</borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`,
		`<cellXfs count="`, strconv.Itoa(len(xfs)), `">`)
	x.raw(xfs...)
	x.raw(`</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`)
}
