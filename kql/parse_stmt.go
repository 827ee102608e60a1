package kql

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
	prm := &Param{Name: p.parseName()}
	if p.expect(":") {
		prm.Type = p.parseType()
	}
	if p.accept("=") {
		prm.Default = p.parseExpr()
	}
	prm.Span = Span{start, p.prevEnd()}
	return prm
}

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
