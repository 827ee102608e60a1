package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// svg builds one inline SVG chart. Every number goes through num and every piece of
// text through html.EscapeString, so a tag or case id from a suite cannot add markup.
// Text and axes use currentColor, so a chart follows the page's light or dark theme.
type svg struct {
	b    strings.Builder
	w, h float64
}

// Colours shared by the charts (readable on light and dark backgrounds).
const (
	colorPass    = "#2e9d5b"
	colorFail    = "#d64545"
	colorNeutral = "#8a94a6"
	colorAccent  = "#3b6fd8"
	colorWarn    = "#d08a00"
)

// newSVG starts a chart w×h units wide with an accessible title (read by screen
// readers and shown as a tooltip) and a longer description.
func newSVG(w, h float64, title, desc string) *svg {
	s := &svg{w: w, h: h}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" class="qeval-chart" viewBox="0 0 %s %s" width="100%%" `+
		`style="max-width:%spx;height:auto" role="img" aria-label="%s" font-family="system-ui,-apple-system,Segoe UI,sans-serif" font-size="12">`,
		num(w), num(h), num(w), esc(title))
	fmt.Fprintf(&s.b, "<title>%s</title><desc>%s</desc>", esc(title), esc(desc))
	return s
}

func (s *svg) String() string { return s.b.String() + "</svg>" }

// rect draws a filled rectangle; tip, when set, is its hover tooltip.
func (s *svg) rect(x, y, w, h float64, fill, tip string) {
	w, h = math.Max(w, 0), math.Max(h, 0)
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(x), num(y), num(w), num(h), fill)
	if tip == "" {
		s.b.WriteString("/>")
		return
	}
	fmt.Fprintf(&s.b, "><title>%s</title></rect>", esc(tip))
}

// frame draws an unfilled rectangle outline.
func (s *svg) frame(x, y, w, h float64, stroke string, width float64) {
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s" stroke-width="%s"/>`,
		num(x), num(y), num(math.Max(w, 0)), num(math.Max(h, 0)), stroke, num(width))
}

// line draws a line; dashed lines mark references (a threshold, perfect calibration).
func (s *svg) line(x1, y1, x2, y2 float64, stroke string, opacity float64, dashed bool) {
	fmt.Fprintf(&s.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-opacity="%s"`,
		num(x1), num(y1), num(x2), num(y2), stroke, num(opacity))
	if dashed {
		s.b.WriteString(` stroke-dasharray="4 3"`)
	}
	s.b.WriteString("/>")
}

// circle draws a dot with an optional tooltip.
func (s *svg) circle(cx, cy, r float64, fill, tip string) {
	fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="%s" fill="%s">`, num(cx), num(cy), num(r), fill)
	if tip != "" {
		fmt.Fprintf(&s.b, "<title>%s</title>", esc(tip))
	}
	s.b.WriteString("</circle>")
}

// text writes a label; anchor is start, middle or end.
func (s *svg) text(x, y float64, anchor, content string) {
	s.textStyled(x, y, anchor, "", "", content)
}

// textStyled writes a label in color ("" for currentColor) with extra presentation
// attributes (written as given: pass only constants).
func (s *svg) textStyled(x, y float64, anchor, color, attrs, content string) {
	if color == "" {
		color = "currentColor"
	}
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" text-anchor="%s" fill="%s"`, num(x), num(y), anchor, color)
	if attrs != "" {
		s.b.WriteString(" " + attrs)
	}
	fmt.Fprintf(&s.b, ">%s</text>", esc(content))
}

// num formats a coordinate with at most one decimal.
func num(x float64) string {
	x = finite(x)
	s := strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// esc escapes text for SVG, which is XML: control characters and invalid UTF-8, which
// XML cannot hold, become spaces and U+FFFD.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xfffe || r == 0xffff {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\ufffd"))
	return html.EscapeString(s)
}

// unit clamps x to [0, 1] (NaN to 0).
func unit(x float64) float64 { return math.Min(math.Max(finite(x), 0), 1) }
