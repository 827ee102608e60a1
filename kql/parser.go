package kql

import (
	"unicode/utf8"
)

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
	if p.atEOF() && p.i > 0 && p.toks[p.i-1].end <= p.tok().pos {
		return p.toks[p.i-1].end
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

// parseScript parses statements separated by semicolons until the end.
func (p *parser) parseScript() *Script {
	s := &Script{Src: p.src}
	s.Stmts = p.parseStmts(false)
	if !p.atEOF() {
		p.error(p.tok().pos, "unexpected "+describe(p.tok()))
	}
	s.To = Pos(len(p.src))
	s.lines = p.lines
	return s
}

// parseStmts parses statements until the end, or until '}' when inBlock.
func (p *parser) parseStmts(inBlock bool) []Stmt {
	var stmts []Stmt
	for {
		for p.accept(";") {
			p.suppress = false
		}
		if p.atEOF() || (inBlock && p.is("}")) {
			return stmts
		}
		start := p.i
		st := p.parseStmt()
		if st != nil {
			stmts = append(stmts, st)
		}
		if p.atEOF() || (inBlock && p.is("}")) {
			return stmts
		}
		if !p.is(";") {
			p.error(p.tok().pos, "expected ';' or '|' between statements, found "+describe(p.tok()))
			p.skipTo(";")
			if p.is(")") || p.is("]") || (p.is("}") && !inBlock) {
				p.next()
				p.skipTo(";")
			}
		}
		if p.i == start {
			p.next()
		}
	}
}

func (p *parser) parseStmt() Stmt {
	t := p.tok()
	if t.kind == tIdent {
		switch t.text {
		case "let":
			if p.peek(1).kind == tIdent || p.isAt(1, "[") {
				return p.parseLet()
			}
		case "set":
			if p.peek(1).kind == tIdent && !isBinaryWord(p.peek(1).text) {
				return p.parseSet()
			}
		case "declare":
			if p.isWordAt(1, "query_parameters") {
				return p.parseDeclare()
			}
			if p.isWordAt(1, "pattern") {
				return p.parsePattern()
			}
		case "alias":
			if p.isWordAt(1, "database") {
				return p.parseAlias()
			}
		case "restrict":
			if p.isWordAt(1, "access") {
				return p.parseRestrict()
			}
		}
	}
	if t.kind == tDirective {
		p.next()
		return &DirectiveStmt{Span: Span{t.pos, t.end}, Text: t.text}
	}
	if p.is(".") && p.peek(1).kind == tIdent && p.peek(1).pos == t.end {
		p.error(t.pos, "management commands (."+p.peek(1).text+") are not queries")
		p.skipTo(";")
		return nil
	}
	e := p.parsePipeExpr()
	return &QueryStmt{Span: Span{e.Pos(), e.End()}, Query: e}
}

func (p *parser) parseLet() Stmt {
	start := p.next().pos
	name := p.parseName()
	st := &LetStmt{Name: name}
	if !p.expect("=") {
		p.skipTo(";")
		st.Span = Span{start, p.prevEnd()}
		st.Value = &BadExpr{Span{p.tok().pos, p.tok().pos}}
		return st
	}
	st.Value = p.parseLetValue()
	st.Span = Span{start, st.Value.End()}
	return st
}

// parseLetValue parses the right side of a let: a function or view definition, or
// any (tabular) expression.
func (p *parser) parseLetValue() Expr {
	if p.isWord("view") && p.isAt(1, "(") {
		start := p.next().pos
		f := p.parseFuncDef(start)
		f.View = true
		return f
	}
	if p.is("(") && p.looksLikeParams() {
		return p.parseFuncDef(p.tok().pos)
	}
	return p.parsePipeExpr()
}

// looksLikeParams reports whether the '(' at the current token opens a parameter list
// "() {", "(name:" or "(name :" rather than a parenthesized expression.
func (p *parser) looksLikeParams() bool {
	if p.isAt(1, ")") {
		return p.isAt(2, "{")
	}
	k := 1
	if p.isAt(1, "[") && p.peek(2).kind == tString && p.isAt(3, "]") {
		k = 3
	} else if p.peek(1).kind != tIdent && p.peek(1).kind != tTyped {
		return false
	}
	return p.isAt(k+1, ":")
}

// parseFuncDef parses (params) { body } with the current token at '('.
func (p *parser) parseFuncDef(start Pos) *FuncDef {
	f := &FuncDef{}
	p.expect("(")
	for !p.is(")") && !p.atEOF() {
		f.Params = append(f.Params, p.parseParam())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	f.Body = p.parseBlock()
	f.Span = Span{start, p.prevEnd()}
	return f
}

// parseBlock parses { statements }.
func (p *parser) parseBlock() *Block {
	b := &Block{Span: Span{From: p.tok().pos}}
	if !p.expect("{") {
		b.To = p.tok().pos
		return b
	}
	if !p.enter() {
		return b
	}
	b.Stmts = p.parseStmts(true)
	p.leave()
	p.expect("}")
	b.To = p.prevEnd()
	return b
}

// parseParam parses Name: Type [= Default].
func (p *parser) parseParam() *Param {
	start := p.tok().pos
	prm := &Param{Name: p.parseNameOrTypeWord()}
	if p.expect(":") {
		prm.Type = p.parseType()
	}
	if p.accept("=") {
		prm.Default = p.parseExpr()
	}
	prm.Span = Span{start, p.prevEnd()}
	return prm
}

// parseNameOrTypeWord parses a name; a typed-literal word lexed as such (a parameter
// named "time" followed by "(") is never a name, so only identifiers are accepted.
func (p *parser) parseNameOrTypeWord() *Ident { return p.parseName() }

// parseType parses a scalar type name or a tabular schema (*), (a:long, ...).
func (p *parser) parseType() *TypeRef {
	t := p.tok()
	if t.kind == tIdent {
		p.next()
		return &TypeRef{Span: Span{t.pos, t.end}, Name: t.text}
	}
	if p.is("(") {
		if !p.enter() {
			return &TypeRef{Span: Span{t.pos, t.pos}}
		}
		defer p.leave()
		start := p.next().pos
		tr := &TypeRef{Tabular: true}
		for !p.is(")") && !p.atEOF() {
			if p.accept("*") {
				tr.Star = true
			} else {
				tr.Columns = append(tr.Columns, p.parseColumnDecl(true))
			}
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
		tr.Span = Span{start, p.prevEnd()}
		return tr
	}
	p.errorExpected("a type")
	return &TypeRef{Span: Span{t.pos, t.pos}}
}

// parseColumnDecl parses Name:Type (typeRequired) or Name[:Type].
func (p *parser) parseColumnDecl(typeRequired bool) *ColumnDecl {
	start := p.tok().pos
	c := &ColumnDecl{Name: p.parseName()}
	if typeRequired {
		if p.expect(":") {
			c.Type = p.parseType()
		}
	} else if p.accept(":") {
		c.Type = p.parseType()
	}
	c.Span = Span{start, p.prevEnd()}
	return c
}

// parseName parses an identifier or a bracketed name ['x'].
func (p *parser) parseName() *Ident {
	t := p.tok()
	switch {
	case t.kind == tIdent:
		p.next()
		return &Ident{Span: Span{t.pos, t.end}, Name: t.text}
	case t.kind == tTyped:
		// A type word used as a name right before "(" (rare): keep the word.
		p.next()
		return &Ident{Span: Span{t.pos, t.end}, Name: t.val}
	case p.is("[") && p.peek(1).kind == tString && p.isAt(2, "]"):
		p.next()
		s := p.next()
		end := p.next().end
		return &Ident{Span: Span{t.pos, end}, Name: s.val, Bracketed: true}
	}
	p.errorExpected("a name")
	return &Ident{Span: Span{t.pos, t.pos}}
}

// isName reports whether the current token starts a name.
func (p *parser) isName() bool {
	return p.tok().kind == tIdent || (p.is("[") && p.peek(1).kind == tString && p.isAt(2, "]"))
}

func (p *parser) parseSet() Stmt {
	start := p.next().pos
	st := &SetStmt{Name: p.parseDottedName()}
	if p.accept("=") {
		st.Value = p.parseExpr()
	}
	st.Span = Span{start, p.prevEnd()}
	return st
}

// parseDottedName parses name(.name)* as one string (hint.strategy, set options).
func (p *parser) parseDottedName() string {
	t := p.tok()
	if t.kind != tIdent {
		p.errorExpected("a name")
		return ""
	}
	p.next()
	name := t.text
	for p.is(".") && p.peek(1).kind == tIdent {
		p.next()
		name += "." + p.next().text
	}
	return name
}

func (p *parser) parseDeclare() Stmt {
	start := p.next().pos
	st := &DeclareStmt{Kind: p.next().text}
	p.expect("(")
	for !p.is(")") && !p.atEOF() {
		st.Params = append(st.Params, p.parseParam())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	st.Span = Span{start, p.prevEnd()}
	return st
}

func (p *parser) parseAlias() Stmt {
	start := p.next().pos
	st := &AliasStmt{Kind: p.next().text}
	st.Name = p.parseName()
	p.expect("=")
	st.Value = p.parseExpr()
	st.Span = Span{start, p.prevEnd()}
	return st
}

func (p *parser) parseRestrict() Stmt {
	start := p.next().pos
	p.next() // access
	p.expectWord("to")
	st := &RestrictStmt{}
	if p.expect("(") {
		st.Entities = p.parseTableList()
		p.expect(")")
	}
	st.Span = Span{start, p.prevEnd()}
	return st
}

func (p *parser) parsePattern() Stmt {
	start := p.next().pos
	p.next() // pattern
	st := &PatternStmt{Name: p.parseName()}
	if p.accept("=") {
		st.Params = p.parseParamList("(", ")")
		if p.is("[") {
			st.PathParams = p.parseParamList("[", "]")
		}
		if p.expect("{") {
			for p.is("(") {
				rs := p.tok().pos
				r := &PatternRule{}
				p.next()
				r.Args = p.parseExprList(")")
				p.expect(")")
				if p.accept(".") && p.expect("[") {
					r.Path = p.parseExprList("]")
					p.expect("]")
				}
				p.expect("=")
				r.Body = p.parseBlock()
				r.Span = Span{rs, p.prevEnd()}
				st.Rules = append(st.Rules, r)
				if !p.accept(";") {
					break
				}
			}
			p.expect("}")
		}
	}
	st.Span = Span{start, p.prevEnd()}
	return st
}

// parseParamList parses open Param, ... close.
func (p *parser) parseParamList(open, close string) []*Param {
	var params []*Param
	if !p.expect(open) {
		return nil
	}
	for !p.is(close) && !p.atEOF() {
		params = append(params, p.parseParam())
		if !p.accept(",") {
			break
		}
	}
	p.expect(close)
	return params
}
