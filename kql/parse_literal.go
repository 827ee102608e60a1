package kql

import "strings"

// typedLiteral converts a typed literal token (datetime(...), int(null), ...).
func typedLiteral(t *token) *Literal {
	lit := &Literal{Span: Span{t.pos, t.end}, Raw: t.text, Value: unquote(t.aux)}
	switch t.val {
	case "datetime", "date":
		lit.Kind = LitDatetime
	case "timespan", "time":
		lit.Kind = LitTimespan
	case "guid":
		lit.Kind = LitGuid
	case "int":
		lit.Kind = LitInt
	case "long":
		lit.Kind = LitLong
	case "real", "double":
		lit.Kind = LitReal
	case "decimal":
		lit.Kind = LitDecimal
	case "bool", "boolean":
		lit.Kind = LitBool
	}
	lit.Null = t.aux == "null"
	return lit
}

// unquote removes one pair of surrounding quotes and trims spaces inside them.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// parseDynamic parses dynamic(json-like value).
func (p *parser) parseDynamic() Expr {
	start := p.next().pos
	p.expect("(")
	v := p.parseJSON()
	p.expect(")")
	return &DynamicLit{Span: Span{start, p.prevEnd()}, Value: v}
}

// parseJSON parses the JSON-like contents of dynamic(...): literals, arrays, bags.
func (p *parser) parseJSON() Expr {
	if !p.enter() {
		return p.bad()
	}
	defer p.leave()
	t := p.tok()
	switch {
	case p.is("["):
		p.next()
		a := &ArrayLit{}
		for !p.is("]") && !p.atEOF() {
			a.Elems = append(a.Elems, p.parseJSON())
			if !p.accept(",") {
				break
			}
		}
		p.expect("]")
		a.Span = Span{t.pos, p.prevEnd()}
		return a
	case p.is("{"):
		p.next()
		o := &ObjectLit{}
		for !p.is("}") && !p.atEOF() {
			k := p.tok()
			switch k.kind {
			case tString:
				o.Keys = append(o.Keys, k.val)
			case tIdent, tLong:
				o.Keys = append(o.Keys, k.text)
			default:
				p.errorExpected("a property name")
				p.skipTo("}")
				p.expect("}")
				o.Span = Span{t.pos, p.prevEnd()}
				return o
			}
			p.next()
			p.expect(":")
			o.Values = append(o.Values, p.parseJSON())
			if !p.accept(",") {
				break
			}
		}
		p.expect("}")
		o.Span = Span{t.pos, p.prevEnd()}
		return o
	case p.is("-") || p.is("+"):
		p.next()
		n := p.tok()
		if n.kind == tLong || n.kind == tReal || n.kind == tTimespan {
			x := p.parsePrimary().(*Literal)
			x.From = t.pos
			x.Raw = p.src[t.pos:x.To]
			if t.text == "-" {
				x.Value = "-" + x.Value
			}
			return x
		}
		p.errorExpected("a number")
		return p.bad()
	}
	return p.parsePrimary()
}

// parseTypeOf parses typeof(type) or typeof(schema).
func (p *parser) parseTypeOf() Expr {
	start := p.next().pos
	p.expect("(")
	tr := &TypeRef{}
	tstart := p.tok().pos
	if p.tok().kind == tIdent && p.isAt(1, ")") {
		tr.Name = p.next().text
	} else {
		tr.Tabular = true
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
	}
	tr.Span = Span{tstart, p.prevEnd()}
	p.expect(")")
	return &TypeOf{Span: Span{start, p.prevEnd()}, Type: tr}
}

// parseColumnDecls parses (Name:Type, ...).
func (p *parser) parseColumnDecls() []*ColumnDecl {
	var cols []*ColumnDecl
	if !p.expect("(") {
		return nil
	}
	for !p.is(")") && !p.atEOF() {
		cols = append(cols, p.parseColumnDecl(true))
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return cols
}

func (p *parser) parseDatatable() Expr {
	start := p.next().pos
	d := &DatatableExpr{Columns: p.parseColumnDecls()}
	if p.expect("[") {
		for !p.is("]") && !p.atEOF() {
			d.Values = append(d.Values, p.parseExpr())
			if !p.accept(",") {
				break
			}
		}
		p.expect("]")
	}
	d.Span = Span{start, p.prevEnd()}
	return d
}

func (p *parser) parseExternalData() Expr {
	t := p.next()
	d := &ExternalDataExpr{Name: t.text, Columns: p.parseColumnDecls()}
	if p.expect("[") {
		d.URIs = p.parseExprList("]")
		p.expect("]")
	}
	if p.isWord("with") && p.isAt(1, "(") {
		p.next()
		d.With = p.parsePropList()
	}
	d.Span = Span{t.pos, p.prevEnd()}
	return d
}

// parsePropList parses ( name = value [, value...] , ... ) as in with (...) clauses.
func (p *parser) parsePropList() []*OpParam {
	var props []*OpParam
	if !p.expect("(") {
		return nil
	}
	p.accept(",") // render allows a leading comma
	for !p.is(")") && !p.atEOF() {
		start := p.tok().pos
		name := p.parseDottedName()
		if name == "" {
			p.skipTo(")")
			break
		}
		prm := &OpParam{Name: name}
		if p.expect("=") {
			prm.Value = p.parseExpr()
		}
		for p.is(",") && !(p.peek(1).kind == tIdent && (p.isAt(2, "=") || p.isAt(2, "."))) && !p.isAt(1, ")") {
			p.next()
			l, ok := prm.Value.(*ListExpr)
			if !ok {
				l = &ListExpr{Span: spanOf(prm.Value), Elems: []Expr{prm.Value}}
				prm.Value = l
			}
			e := p.parseExpr()
			l.Elems = append(l.Elems, e)
			l.To = e.End()
		}
		prm.Span = Span{start, p.prevEnd()}
		props = append(props, prm)
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return props
}

func spanOf(n Node) Span {
	if n == nil {
		return Span{}
	}
	return Span{n.Pos(), n.End()}
}

// bracedName returns the number of tokens of a client parameter {Name} or {Name[-1]}
// at the current token (written without spaces), or 0.
func (p *parser) bracedName() int {
	k := 1
	if p.peek(k).kind != tIdent || p.peek(k).pos != p.tok().end {
		return 0
	}
	if p.isAt(k+1, "[") {
		k += 2
		if p.isAt(k, "-") {
			k++
		}
		if p.peek(k).kind != tLong || !p.isAt(k+1, "]") {
			return 0
		}
		k++
	}
	if !p.isAt(k+1, "}") || p.peek(k+1).pos != p.peek(k).end {
		return 0
	}
	return k + 2
}
