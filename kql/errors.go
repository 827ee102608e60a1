package kql

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qeval/qeval"
)

// Error is one syntax error: a 1-based Line and Col (in characters), the Message, and
// the source line it points into (for the caret display).
type Error struct {
	Pos      Pos
	Line     int
	Col      int
	Message  string
	LineText string // the source line, clipped around Col when very long
	textCol  int    // column of the caret within LineText (0: same as Col)
}

// Error prints "line:col: message", then the source line and a caret under the column.
func (e *Error) Error() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Error) write(b *strings.Builder) {
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Col))
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.LineText == "" && e.Col <= 1 {
		return
	}
	b.WriteString("\n    ")
	b.WriteString(e.LineText)
	b.WriteString("\n    ")
	col := e.Col
	if e.textCol > 0 {
		col = e.textCol
	}
	n := 0
	for _, r := range e.LineText {
		if n >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < col-1; n++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
}

// QevalError returns e as a *qeval.Error with code qeval.CodeQuery.
func (e *Error) QevalError() *qeval.Error {
	return &qeval.Error{Code: qeval.CodeQuery, Op: "parse kql", Message: e.Message, Line: e.Line, Col: e.Col, Err: e}
}

// ErrorList is the list of syntax errors Parse found, in source order.
type ErrorList []*Error

// Error prints every error, each with its source line and caret, one after another.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		e.write(&b)
	}
	return b.String()
}

// QevalError returns the list as one *qeval.Error (code qeval.CodeQuery) positioned at
// the first error; Err is the list, so errors.As still finds every error.
func (l ErrorList) QevalError() *qeval.Error {
	if len(l) == 0 {
		return nil
	}
	msg := l[0].Message
	if len(l) > 1 {
		msg += " (and " + strconv.Itoa(len(l)-1) + " more errors)"
	}
	return &qeval.Error{Code: qeval.CodeQuery, Op: "parse kql", Message: msg, Line: l[0].Line, Col: l[0].Col,
		Hint: "the KQL text has a syntax error; see the line and column", Err: l}
}

// lineStarts returns the offset of the start of every line of src.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position converts an offset to a 1-based line and character column.
func position(src string, starts []int, p Pos) (line, col int) {
	off := int(p)
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	return i + 1, utf8.RuneCountInString(src[starts[i]:off]) + 1
}

// lineText returns the text of the 1-based line, without its line break.
func lineText(src string, starts []int, line int) string {
	if line < 1 || line > len(starts) {
		return ""
	}
	s := src[starts[line-1]:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\r")
}
