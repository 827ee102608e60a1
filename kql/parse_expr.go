package kql

import (
	"strconv"
	"strings"
)

// Expression grammar, loosest binding first, as Kusto's own parser has it:
//
//	or          a or b or c
//	and         a and b and c
//	equality    a == b, !=, <>, in (...), !in, in~, !in~, has_any (...), has_all (...),
//	            between (x .. y), !between        (one operator, not chained)
//	relational  a < b, <=, >, >=                 (one operator)
//	additive    a + b - c
//	multiply    a * b / c % d
//	string      a has b, =~, !~, contains, startswith, matches regex, like, a:b, ...
//	            (one operator; binds tighter than arithmetic)
//	unary       -a, +a
//	postfix     f(x), a.b, a[i]

// stringOps are the word operators of the string level.
var stringOps = map[string]bool{
	"has": true, "has_cs": true, "hasprefix": true, "hasprefix_cs": true, "hassuffix": true, "hassuffix_cs": true,
	"contains": true, "contains_cs": true, "containscs": true, "notcontains": true, "notcontainscs": true,
	"startswith": true, "startswith_cs": true, "endswith": true, "endswith_cs": true,
	"like": true, "notlike": true, "likecs": true, "notlikecs": true,
}

// negatedStringOps are the !-prefixed word operators of the string level.
var negatedStringOps = map[string]bool{
	"!has": true, "!has_cs": true, "!hasprefix": true, "!hasprefix_cs": true, "!hassuffix": true,
	"!hassuffix_cs": true, "!contains": true, "!contains_cs": true, "!startswith": true,
	"!startswith_cs": true, "!endswith": true, "!endswith_cs": true,
}

// setOps are the word operators of the equality level that take a parenthesized list.
var setOps = map[string]bool{"in": true, "!in": true, "in~": true, "!in~": true, "has_any": true, "has_all": true}

// isBinaryWord reports whether an identifier is a word operator (so a name that
// follows a keyword is not taken as the keyword's operand).
func isBinaryWord(w string) bool {
	return w == "and" || w == "or" || stringOps[w] || setOps[w] || w == "between" || w == "matches"
}

// parseExpr parses a scalar expression (no pipes).
func (p *parser) parseExpr() Expr {
	if !p.enter() {
		return p.bad()
	}
	defer p.leave()
	return p.parseOr()
}

// chain counts the terms of an operator chain (a + b + c ...), which builds a tree as
// deep as it is long; past maxChain it reports an error and stops the parse, so no
// tree is too deep for the recursive walks of Format, ShapeOf and Inspect.
func (p *parser) chain(n *int) bool {
	*n++
	if *n > maxChain {
		p.suppress = false
		p.error(p.tok().pos, "expression has too many terms (more than "+strconv.Itoa(maxChain)+")")
		p.abort()
		return false
	}
	return true
}

func (p *parser) binary(op string, left, right Expr) Expr {
	return &Binary{Span: Span{left.Pos(), right.End()}, Op: op, Left: left, Right: right}
}

func (p *parser) parseOr() Expr {
	left := p.parseAnd()
	for n := 0; p.isWord("or") && p.chain(&n); {
		p.next()
		left = p.binary("or", left, p.parseAnd())
	}
	return left
}

func (p *parser) parseAnd() Expr {
	left := p.parseEquality()
	for n := 0; p.isWord("and") && p.chain(&n); {
		p.next()
		left = p.binary("and", left, p.parseEquality())
	}
	return left
}

func (p *parser) parseEquality() Expr {
	left := p.parseRelational()
	t := p.tok()
	switch {
	case t.kind == tPunct && (t.text == "==" || t.text == "!=" || t.text == "<>"):
		p.next()
		return p.binary(t.text, left, p.parseRelational())
	case (t.kind == tIdent || t.kind == tWordOp) && setOps[t.text]:
		if t.text == "in" && p.isWordAt(1, "range") && p.isAt(2, "(") {
			return left // make-series ... on T in range(...)
		}
		p.next()
		return p.parseInList(left, t.text)
	case (t.kind == tIdent && t.text == "between") || (t.kind == tWordOp && t.text == "!between"):
		p.next()
		return p.parseBetween(left, t.text == "!between")
	}
	return left
}

func (p *parser) parseRelational() Expr {
	left := p.parseAdditive()
	if t := p.tok(); t.kind == tPunct {
		switch t.text {
		case "<", "<=", ">", ">=":
			p.next()
			return p.binary(t.text, left, p.parseAdditive())
		}
	}
	return left
}

func (p *parser) parseAdditive() Expr {
	left := p.parseMultiplicative()
	for n := 0; (p.is("+") || p.is("-")) && p.chain(&n); {
		op := p.next().text
		left = p.binary(op, left, p.parseMultiplicative())
	}
	return left
}

func (p *parser) parseMultiplicative() Expr {
	left := p.parseStringOp()
	for n := 0; (p.is("*") || p.is("/") || p.is("%")) && p.chain(&n); {
		op := p.next().text
		left = p.binary(op, left, p.parseStringOp())
	}
	return left
}

// stringOpAt returns the string-level operator at token k ahead and its token count.
func (p *parser) stringOpAt(k int) (string, int) {
	t := p.peek(k)
	switch t.kind {
	case tPunct:
		if t.text == "=~" || t.text == "!~" || t.text == ":" {
			return t.text, 1
		}
	case tIdent:
		if stringOps[t.text] {
			return t.text, 1
		}
		if t.text == "matches" && p.isWordAt(k+1, "regex") {
			return "matches regex", 2
		}
	case tWordOp:
		if negatedStringOps[t.text] {
			return t.text, 1
		}
	}
	return "", 0
}

func (p *parser) parseStringOp() Expr {
	var left Expr
	if t := p.tok(); t.kind == tPunct && t.text == "*" {
		if op, _ := p.stringOpAt(1); op != "" || p.isAt(1, "==") {
			p.next()
			left = &Star{Span{t.pos, t.end}}
		}
	}
	if left == nil {
		left = p.parseUnary()
	}
	if op, n := p.stringOpAt(0); n > 0 {
		for k := 0; k < n; k++ {
			p.next()
		}
		return p.binary(op, left, p.parseUnary())
	}
	return left
}

func (p *parser) parseInList(left Expr, op string) Expr {
	in := &InExpr{Op: op, Left: left, Paren: true}
	if p.expect("(") {
		in.List = p.parseExprList(")")
		p.expect(")")
	}
	in.Span = Span{left.Pos(), p.prevEnd()}
	return in
}

func (p *parser) parseBetween(left Expr, not bool) Expr {
	b := &BetweenExpr{Not: not, Left: left}
	if p.expect("(") {
		b.Low = p.parseExpr()
		p.expect("..")
		b.High = p.parseExpr()
		p.expect(")")
	} else {
		b.Low, b.High = p.bad(), p.bad()
	}
	b.Span = Span{left.Pos(), p.prevEnd()}
	return b
}

func (p *parser) bad() Expr {
	t := p.tok()
	return &BadExpr{Span{t.pos, t.pos}}
}

func (p *parser) parseUnary() Expr {
	if !p.enter() {
		return p.bad()
	}
	defer p.leave()
	if p.is("-") || p.is("+") {
		t := p.next()
		x := p.parseUnary()
		return &Unary{Span: Span{t.pos, x.End()}, Op: t.text, X: x}
	}
	return p.parsePostfix(p.parsePrimary())
}

func (p *parser) parsePostfix(x Expr) Expr {
	for {
		switch {
		case p.is("."):
			if p.isAt(1, "[") {
				p.next()
				if p.peek(1).kind == tString && p.isAt(2, "]") {
					name := p.parseName()
					x = &Member{Span: Span{x.Pos(), name.End()}, X: x, Name: name}
					continue
				}
				p.next()
				idx := p.parseExpr()
				p.expect("]")
				x = &Index{Span: Span{x.Pos(), p.prevEnd()}, X: x, Index: idx}
				continue
			}
			nt := p.peek(1)
			if nt.kind != tIdent && nt.kind != tLong && !(nt.kind == tPunct && nt.text == "*") {
				p.next()
				p.errorExpected("a name after '.'")
				return x
			}
			p.next()
			id := p.parseWildName()
			x = &Member{Span: Span{x.Pos(), id.End()}, X: x, Name: id}
		case p.is("["):
			p.next()
			idx := p.parseExpr()
			p.expect("]")
			x = &Index{Span: Span{x.Pos(), p.prevEnd()}, X: x, Index: idx}
		case p.is("("):
			switch x.(type) {
			case *Ident, *Member:
			default:
				return x
			}
			args := p.parseCallArgs()
			x = &Call{Span: Span{x.Pos(), p.prevEnd()}, Func: x, Args: args}
		default:
			return x
		}
	}
}

// parseCallArgs parses (arg, ...); an argument may be name = value or a tabular
// expression.
func (p *parser) parseCallArgs() []Expr {
	p.expect("(")
	if !p.enter() {
		return nil
	}
	defer p.leave()
	var args []Expr
	for !p.is(")") && !p.atEOF() {
		if p.tok().kind == tIdent && p.isAt(1, "=") {
			name := p.parseName()
			p.next()
			v := p.parsePipeExpr()
			args = append(args, &NamedExpr{Span: Span{name.Pos(), v.End()}, Names: []*Ident{name}, Value: v})
		} else {
			args = append(args, p.parsePipeExpr())
		}
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return args
}

// parseExprList parses comma-separated (tabular) expressions up to the end token,
// which it does not consume. A trailing comma is allowed.
func (p *parser) parseExprList(end string) []Expr {
	var list []Expr
	for !p.is(end) && !p.atEOF() {
		list = append(list, p.parsePipeExpr())
		if !p.accept(",") {
			break
		}
	}
	return list
}

func (p *parser) parsePrimary() Expr {
	t := p.tok()
	switch t.kind {
	case tString:
		p.next()
		lit := &Literal{Span: Span{t.pos, t.end}, Kind: LitString, Value: t.val, Raw: t.text}
		if p.tok().kind == tString {
			// Adjacent string literals are one string.
			var b strings.Builder
			b.WriteString(t.val)
			for p.tok().kind == tString {
				b.WriteString(p.next().val)
			}
			lit.Value = b.String()
			lit.To = p.prevEnd()
			lit.Raw = p.src[lit.From:lit.To]
		}
		return lit
	case tLong, tReal, tTimespan:
		p.next()
		k := LitLong
		switch t.kind {
		case tReal:
			k = LitReal
		case tTimespan:
			k = LitTimespan
		}
		return &Literal{Span: Span{t.pos, t.end}, Kind: k, Value: t.text, Raw: t.text}
	case tTyped:
		p.next()
		return typedLiteral(t)
	case tIdent:
		switch t.text {
		case "true", "false", "True", "False", "TRUE", "FALSE":
			p.next()
			return &Literal{Span: Span{t.pos, t.end}, Kind: LitBool, Value: strings.ToLower(t.text), Raw: t.text}
		case "null":
			if !p.isAt(1, "(") {
				p.next()
				return &Literal{Span: Span{t.pos, t.end}, Kind: LitNull, Value: "null", Raw: t.text, Null: true}
			}
		case "dynamic":
			if p.isAt(1, "(") {
				return p.parseDynamic()
			}
		case "typeof":
			if p.isAt(1, "(") {
				return p.parseTypeOf()
			}
		case "datatable":
			if p.isAt(1, "(") {
				return p.parseDatatable()
			}
		case "entity_group":
			if p.isAt(1, "[") {
				p.next()
				p.next()
				g := &EntityGroup{Items: p.parseExprList("]")}
				p.expect("]")
				g.Span = Span{t.pos, p.prevEnd()}
				return g
			}
		case "externaldata", "external_data":
			if p.isAt(1, "(") {
				return p.parseExternalData()
			}
		}
		p.next()
		return &Ident{Span: Span{t.pos, t.end}, Name: t.text}
	case tPunct:
		switch t.text {
		case "(":
			p.next()
			x := p.parsePipeExpr()
			p.expect(")")
			return &Paren{Span: Span{t.pos, p.prevEnd()}, X: x}
		case "[":
			if p.peek(1).kind == tString && p.isAt(2, "]") {
				return p.parseName()
			}
		case "*":
			p.next()
			return &Star{Span{t.pos, t.end}}
		case "{":
			if n := p.bracedName(); n > 0 {
				name := p.src[p.peek(1).pos:p.peek(n-2).end]
				for k := 0; k < n; k++ {
					p.next()
				}
				return &Placeholder{Span: Span{t.pos, p.prevEnd()}, Name: name}
			}
		}
	}
	p.errorExpected("an expression")
	if t.kind == tBad || (t.kind == tPunct && !isCloser(t.text)) {
		p.next()
	}
	return &BadExpr{Span{t.pos, t.pos}}
}

// isCloser reports whether s ends a construct, so error recovery leaves it in place.
func isCloser(s string) bool {
	switch s {
	case ")", "]", "}", "|", ";", ",":
		return true
	}
	return false
}

// parseNamedExpr parses Name = Expr, (A, B) = Expr, or Expr.
func (p *parser) parseNamedExpr() Expr {
	start := p.tok().pos
	if p.tok().kind == tIdent && p.isAt(1, "=") {
		name := p.parseName()
		p.next()
		v := p.parseExpr()
		return &NamedExpr{Span: Span{start, v.End()}, Names: []*Ident{name}, Value: v}
	}
	if p.is("[") && p.peek(1).kind == tString && p.isAt(2, "]") && p.isAt(3, "=") {
		name := p.parseName()
		p.next()
		v := p.parseExpr()
		return &NamedExpr{Span: Span{start, v.End()}, Names: []*Ident{name}, Value: v}
	}
	if p.is("(") && p.isTupleTarget() {
		p.next()
		var names []*Ident
		for !p.is(")") && !p.atEOF() {
			names = append(names, p.parseName())
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
		p.expect("=")
		v := p.parseExpr()
		return &NamedExpr{Span: Span{start, v.End()}, Names: names, Value: v}
	}
	return p.parseExpr()
}

// isTupleTarget reports whether '(' starts "(a, b) =".
func (p *parser) isTupleTarget() bool {
	for k := 1; ; k++ {
		t := p.peek(k)
		switch {
		case t.kind == tIdent:
		case t.kind == tPunct && t.text == "[" && p.peek(k+1).kind == tString && p.isAt(k+2, "]"):
			k += 2
		default:
			return false
		}
		switch {
		case p.isAt(k+1, ","):
			k++
		case p.isAt(k+1, ")"):
			return p.isAt(k+2, "=")
		default:
			return false
		}
	}
}

// parseNamedList parses comma-separated named expressions.
func (p *parser) parseNamedList() []Expr {
	var list []Expr
	for {
		list = append(list, p.parseNamedExpr())
		if !p.accept(",") {
			return list
		}
	}
}
