package xlsx

import (
	"archive/zip"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The workbook is written as SpreadsheetML (ECMA-376) by hand: a zip of a few XML
// parts, the Cases sheet streamed row by row. A spreadsheet library would cost every
// qeval command its initialisation (excelize's took 3 to 16 ms and 1.3 MB of
// allocations at each start), for a format most runs never write.

// Namespaces and relationship types of the parts.
const (
	nsMain     = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRel      = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsPkgRel   = "http://schemas.openxmlformats.org/package/2006/relationships"
	relDoc     = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
	relCore    = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
	relSheet   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
	relStyles  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
	ctSheet    = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
	xmlHeading = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
)

// maxCellChars is the most characters (UTF-16 units) a cell holds in Excel; longer
// text is cut.
const maxCellChars = 32767

// xw writes XML text to a part, keeping the first error.
type xw struct {
	w   io.Writer
	err error
	buf []byte
}

func (x *xw) flush() {
	if x.err == nil && len(x.buf) > 0 {
		_, x.err = x.w.Write(x.buf)
	}
	x.buf = x.buf[:0]
}

// raw writes s as it is; the buffer goes out every 32 KiB.
func (x *xw) raw(s ...string) {
	for _, p := range s {
		x.buf = append(x.buf, p...)
	}
	if len(x.buf) >= 32<<10 {
		x.flush()
	}
}

// text writes s escaped as XML character data or an attribute value; characters XML
// cannot hold become U+FFFD.
func (x *xw) text(s string) {
	for _, r := range s {
		switch {
		case r == '&':
			x.buf = append(x.buf, "&amp;"...)
		case r == '<':
			x.buf = append(x.buf, "&lt;"...)
		case r == '>':
			x.buf = append(x.buf, "&gt;"...)
		case r == '"':
			x.buf = append(x.buf, "&quot;"...)
		case r == '\r':
			x.buf = append(x.buf, "&#xD;"...)
		case r == '\n' || r == '\t':
			x.buf = append(x.buf, byte(r))
		case r < 0x20 || r > 0xD7FF && r < 0xE000 || r == 0xFFFE || r == 0xFFFF:
			x.buf = utf8.AppendRune(x.buf, utf8.RuneError)
		default:
			x.buf = utf8.AppendRune(x.buf, r)
		}
	}
	x.raw()
}

// colName is the letters of the 1-based column n: 1 A, 26 Z, 27 AA.
func colName(n int) string {
	var b []byte
	for ; n > 0; n = (n - 1) / 26 {
		b = append([]byte{byte('A' + (n-1)%26)}, b...)
	}
	return string(b)
}

// cell writes one cell at col, row: a string as text (never a formula), an int or a
// float64 as a number; nil, "", a nil *float64 and a number Excel cannot hold (NaN,
// ±Inf) leave it empty, written only when it has a style.
func (x *xw) cell(col, row int, v any, style int) {
	num := ""
	switch t := v.(type) {
	case string:
		if t != "" {
			x.inline(col, row, t, style)
			return
		}
	case int:
		num = strconv.Itoa(t)
	case float64:
		num = formatNumber(t)
	case *float64:
		if t != nil {
			num = formatNumber(*t)
		}
	}
	if num == "" && style == 0 {
		return
	}
	x.raw(`<c r="`, colName(col), strconv.Itoa(row), `"`)
	if style != 0 {
		x.raw(` s="`, strconv.Itoa(style), `"`)
	}
	if num == "" {
		x.raw(`/>`)
		return
	}
	x.raw(`><v>`, num, `</v></c>`)
}

func (x *xw) inline(col, row int, s string, style int) {
	s = cutCell(s)
	x.raw(`<c r="`, colName(col), strconv.Itoa(row), `"`)
	if style != 0 {
		x.raw(` s="`, strconv.Itoa(style), `"`)
	}
	x.raw(` t="inlineStr"><is><t xml:space="preserve">`)
	x.text(s)
	x.raw(`</t></is></c>`)
}

// cutCell is s cut to the characters a cell holds, counted as Excel does (in UTF-16
// units: a character past U+FFFF counts twice).
func cutCell(s string) string {
	if len(s) <= maxCellChars {
		return s
	}
	units := 0
	for i, r := range s {
		if units += utf16.RuneLen(r); units > maxCellChars {
			return s[:i]
		}
	}
	return s
}

// formatNumber is x as a cell value, "" when Excel cannot hold it.
func formatNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// col is the width (and style, when not 0) of the columns min..max.
type col struct {
	min, max int
	width    float64
	style    int
}

func (x *xw) cols(cs []col) {
	x.raw(`<cols>`)
	for _, c := range cs {
		x.raw(`<col min="`, strconv.Itoa(c.min), `" max="`, strconv.Itoa(c.max), `" width="`,
			strconv.FormatFloat(c.width, 'g', -1, 64), `" customWidth="1"`)
		if c.style != 0 {
			x.raw(` style="`, strconv.Itoa(c.style), `"`)
		}
		x.raw(`/>`)
	}
	x.raw(`</cols>`)
}

// pkg is the zip being written, keeping the first error.
type pkg struct {
	z   *zip.Writer
	err error
}

// part starts the part name and returns its writer; nil after an error.
func (p *pkg) part(name string) *xw {
	if p.err != nil {
		return nil
	}
	w, err := p.z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err != nil {
		p.err = err
		return nil
	}
	x := &xw{w: w}
	x.raw(xmlHeading)
	return x
}

// put writes a whole part.
func (p *pkg) put(name string, body func(x *xw)) {
	x := p.part(name)
	if x == nil {
		return
	}
	body(x)
	p.done(x)
}

// done ends a part begun with part.
func (p *pkg) done(x *xw) {
	x.flush()
	if p.err == nil {
		p.err = x.err
	}
}

// docProps are the workbook's core properties; empty ones are left out.
type docProps struct {
	title, creator, description string
	created, modified           time.Time
}

// writeFrame writes the parts around the sheets: the content types, the relationships,
// the core properties and the workbook, whose sheets are sheet1.xml, sheet2.xml, … in
// the order of names; filter is the range of the Cases sheet's filter.
func (p *pkg) writeFrame(names []string, filter string, props docProps) {
	p.put("[Content_Types].xml", func(x *xw) {
		x.raw(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`,
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`,
			`<Default Extension="xml" ContentType="application/xml"/>`,
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`,
			`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>`,
			`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>`)
		for i := range names {
			x.raw(`<Override PartName="/xl/worksheets/sheet`, strconv.Itoa(i+1), `.xml" ContentType="`, ctSheet, `"/>`)
		}
		x.raw(`</Types>`)
	})
	p.put("_rels/.rels", func(x *xw) {
		x.raw(`<Relationships xmlns="`, nsPkgRel, `">`,
			`<Relationship Id="rId1" Type="`, relDoc, `" Target="xl/workbook.xml"/>`,
			`<Relationship Id="rId2" Type="`, relCore, `" Target="docProps/core.xml"/>`,
			`</Relationships>`)
	})
	p.put("docProps/core.xml", func(x *xw) { writeCore(x, props) })
	p.put("xl/_rels/workbook.xml.rels", func(x *xw) {
		x.raw(`<Relationships xmlns="`, nsPkgRel, `">`)
		for i := range names {
			n := strconv.Itoa(i + 1)
			x.raw(`<Relationship Id="rId`, n, `" Type="`, relSheet, `" Target="worksheets/sheet`, n, `.xml"/>`)
		}
		x.raw(`<Relationship Id="rIdStyles" Type="`, relStyles, `" Target="styles.xml"/>`, `</Relationships>`)
	})
	p.put("xl/workbook.xml", func(x *xw) {
		x.raw(`<workbook xmlns="`, nsMain, `" xmlns:r="`, nsRel, `"><bookViews><workbookView activeTab="0"/></bookViews><sheets>`)
		for i, name := range names {
			n := strconv.Itoa(i + 1)
			x.raw(`<sheet name="`)
			x.text(name)
			x.raw(`" sheetId="`, n, `" r:id="rId`, n, `"/>`)
		}
		x.raw(`</sheets><definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="1" hidden="1">`)
		x.text(filter)
		x.raw(`</definedName></definedNames></workbook>`)
	})
	p.put("xl/styles.xml", writeStyles)
}

func writeCore(x *xw, props docProps) {
	x.raw(`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"`,
		` xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"`,
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`)
	for _, e := range []struct{ tag, v string }{{"dc:title", props.title}, {"dc:creator", props.creator}, {"dc:description", props.description}} {
		if e.v != "" {
			x.raw(`<`, e.tag, `>`)
			x.text(e.v)
			x.raw(`</`, e.tag, `>`)
		}
	}
	for _, e := range []struct {
		tag string
		t   time.Time
	}{{"dcterms:created", props.created}, {"dcterms:modified", props.modified}} {
		if !e.t.IsZero() {
			x.raw(`<`, e.tag, ` xsi:type="dcterms:W3CDTF">`, e.t.UTC().Format("2006-01-02T15:04:05Z"), `</`, e.tag, `>`)
		}
	}
	x.raw(`</cp:coreProperties>`)
}
