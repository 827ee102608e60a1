package kql

import "unicode/utf8"

// Limits that keep Parse fast on hostile input.
const (
	maxErrors = 10   // Parse stops after this many errors
	maxDepth  = 200  // nesting depth of expressions and pipelines
	maxChain  = 5000 // terms of one chain of binary operators (a + b + ...)
)

// Parse parses a KQL query text (one or more statements separated by semicolons).
// It always returns a Script, partial when the text has errors; the error is then an
// ErrorList with every error found (up to 10), in source order. Parse never panics,
// and it runs in time linear in the length of src.
func Parse(src string) (*Script, error) {
	p := newParser(src)
	s := p.parseScript()
	if len(p.errs) > 0 {
		return s, p.errs
	}
	return s, nil
}

type parser struct {
	src      string
	toks     []token
	i        int
	errs     ErrorList
	lines    []int
	suppress bool // an error was reported and the parser has not resynchronised yet
	depth    int
}

func newParser(src string) *parser {
	toks, lexErrs := lex(src)
	p := &parser{src: src, toks: toks}
	for _, e := range lexErrs {
		p.addError(e.pos, e.msg)
	}
	return p
}

// tok returns the current token.
func (p *parser) tok() *token { return &p.toks[p.i] }

// peek returns the token k places ahead (the EOF token past the end).
func (p *parser) peek(k int) *token {
	if p.i+k < len(p.toks) {
		return &p.toks[p.i+k]
	}
	return &p.toks[len(p.toks)-1]
}

func (p *parser) next() *token {
	t := &p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) atEOF() bool { return p.toks[p.i].kind == tEOF }

// is reports whether the current token is the punctuation s.
func (p *parser) is(s string) bool {
	t := &p.toks[p.i]
	return t.kind == tPunct && t.text == s
}

// isAt reports whether the token k ahead is the punctuation s.
func (p *parser) isAt(k int, s string) bool {
	t := p.peek(k)
	return t.kind == tPunct && t.text == s
}

// isWord reports whether the current token is the identifier w.
func (p *parser) isWord(w string) bool {
	t := &p.toks[p.i]
	return t.kind == tIdent && t.text == w
}

func (p *parser) isWordAt(k int, w string) bool {
	t := p.peek(k)
	return t.kind == tIdent && t.text == w
}

func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) acceptWord(w string) bool {
	if p.isWord(w) {
		p.next()
		return true
	}
	return false
}

// prevEnd is the end of the last consumed token.
func (p *parser) prevEnd() Pos {
	if p.i == 0 {
		return 0
	}
	return p.toks[p.i-1].end
}

// expect consumes the punctuation s or reports an error.
func (p *parser) expect(s string) bool {
	if p.accept(s) {
		return true
	}
	p.errorExpected("'" + s + "'")
	return false
}

func (p *parser) expectWord(w string) bool {
	if p.acceptWord(w) {
		return true
	}
	p.errorExpected("'" + w + "'")
	return false
}

func (p *parser) errorExpected(what string) {
	p.error(p.tok().pos, "expected "+what+", found "+describe(p.tok()))
}

// describe names a token for an error message.
func describe(t *token) string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tString:
		return "string literal"
	case tIdent, tWordOp:
		return "'" + t.text + "'"
	case tBad:
		return "invalid token"
	}
	s := t.text
	if utf8.RuneCountInString(s) > 20 {
		s = string([]rune(s)[:20]) + "..."
	}
	return "'" + s + "'"
}

// error reports an error at pos unless one was reported since the last
// resynchronisation (to avoid cascades).
func (p *parser) error(pos Pos, msg string) {
	if p.suppress {
		return
	}
	p.addError(pos, msg)
	p.suppress = true
}

func (p *parser) addError(pos Pos, msg string) {
	if len(p.errs) >= maxErrors {
		return
	}
	if n := len(p.errs); n > 0 && p.errs[n-1].Pos == pos {
		return
	}
	if p.lines == nil {
		p.lines = lineStarts(p.src)
	}
	line, col := position(p.src, p.lines, pos)
	text, tcol := clipLine(lineText(p.src, p.lines, line), col)
	e := &Error{Pos: pos, Line: line, Col: col, Message: msg, LineText: text}
	e.textCol = tcol
	p.errs = append(p.errs, e)
	if len(p.errs) >= maxErrors {
		p.abort()
	}
}

// abort stops parsing: the rest of the input is treated as consumed.
func (p *parser) abort() { p.i = len(p.toks) - 1 }

// clipLine shortens very long lines to a window around col for display, and returns
// the column of the caret within the returned text.
func clipLine(s string, col int) (string, int) {
	const half = 60
	if len(s) <= 2*half+20 {
		return s, col
	}
	r := []rune(s)
	if len(r) <= 2*half+20 {
		return s, col
	}
	from := col - 1 - half
	if from < 0 {
		from = 0
	}
	to := from + 2*half
	if to > len(r) {
		to = len(r)
	}
	prefix := ""
	c := col - from
	if from > 0 {
		prefix = "..."
		c += 3
	}
	return prefix + string(r[from:to]) + "...", c
}

// enter guards recursion; it reports false (and stops the parse) when nesting is too
// deep.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.suppress = false
		p.error(p.tok().pos, "query nested too deeply")
		p.abort()
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// skipTo skips tokens until one of the stop punctuations appears at bracket depth 0,
// or a closing bracket that this level did not open.
func (p *parser) skipTo(stops ...string) {
	depth := 0
	for !p.atEOF() {
		t := p.tok()
		if t.kind == tPunct {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return
				}
				depth--
			default:
				if depth == 0 {
					for _, s := range stops {
						if t.text == s {
							return
						}
					}
				}
			}
		}
		p.next()
	}
}
