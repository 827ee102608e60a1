package kql

// Parse functions for the operators that combine tables (join, lookup, union), expand
// or reshape rows (mv-expand, mv-apply, parse, make-series) and the remaining simple ones.

func parseJoin(p *parser, b OpBase) Operator {
	op := &JoinOp{OpBase: b}
	op.Params = append(op.Params, p.parseParams(simpleParams["join"])...)
	op.Right = p.parseRightTable()
	op.Params = append(op.Params, p.parseParams(simpleParams["join"])...)
	if p.expectWord("on") {
		op.On = p.parseOnList()
	}
	return op
}

func parseLookup(p *parser, b OpBase) Operator {
	op := &LookupOp{OpBase: b}
	op.Right = p.parseRightTable()
	if p.expectWord("on") {
		op.On = p.parseOnList()
	}
	return op
}

// parseRightTable parses the right side of join/lookup: (pipeline) or a table
// reference (T, database("d").T, f()).
func (p *parser) parseRightTable() Expr {
	if p.is("(") {
		p.next()
		x := p.parsePipeExpr()
		p.expect(")")
		return x
	}
	return p.parseUnary()
}

func (p *parser) parseOnList() []Expr {
	var list []Expr
	for {
		list = append(list, p.parseExpr())
		if !p.accept(",") {
			return list
		}
	}
}

func parseUnion(p *parser, b OpBase) Operator {
	op := &UnionOp{OpBase: b}
	for {
		if p.is("(") {
			p.next()
			op.Tables = append(op.Tables, p.parsePipeExpr())
			p.expect(")")
		} else {
			op.Tables = append(op.Tables, p.parseNamePattern())
		}
		if !p.accept(",") {
			return op
		}
	}
}

func parseMvExpand(p *parser, b OpBase) Operator {
	op := &MvExpandOp{OpBase: b, Items: p.parseExpandItems()}
	if p.acceptWord("limit") {
		op.Limit = p.parseExpr()
	}
	return op
}

// parseExpandItems parses [Name =] Expr [to typeof(Type)], ...
func (p *parser) parseExpandItems() []*ExpandItem {
	var items []*ExpandItem
	for {
		start := p.tok().pos
		it := &ExpandItem{X: p.parseNamedExpr()}
		if p.isWord("to") && p.isWordAt(1, "typeof") {
			p.next()
			if to, ok := p.parseTypeOf().(*TypeOf); ok {
				it.To = to.Type
			}
		}
		it.Span = Span{start, p.prevEnd()}
		items = append(items, it)
		if !p.accept(",") {
			return items
		}
	}
}

func parseMvApply(p *parser, b OpBase) Operator {
	op := &MvApplyOp{OpBase: b, Items: p.parseExpandItems()}
	if p.acceptWord("limit") {
		op.Limit = p.parseExpr()
	}
	if p.acceptWord("id") {
		op.ContextID = p.parseExpr()
	}
	if p.expectWord("on") && p.expect("(") {
		op.Body = p.parseOpPipe()
		p.expect(")")
	}
	return op
}

func parseParse(p *parser, b OpBase) Operator {
	op := &ParseOp{OpBase: b, X: p.parseExpr()}
	if !p.expectWord("with") {
		return op
	}
	for !p.isOpEnd() {
		t := p.tok()
		switch {
		case t.kind == tString:
			op.Pattern = append(op.Pattern, p.parsePrimary())
		case p.is("*"):
			p.next()
			op.Pattern = append(op.Pattern, &Star{Span{t.pos, t.end}})
		case p.isName():
			op.Pattern = append(op.Pattern, p.parseColumnDecl(false))
		default:
			p.errorExpected("a string, '*' or a column name in the parse pattern")
			return op
		}
	}
	return op
}

func parseParseKv(p *parser, b OpBase) Operator {
	op := &ParseKvOp{OpBase: b, X: p.parseExpr()}
	if p.expectWord("as") {
		op.Columns = p.parseColumnDecls()
	}
	if p.acceptWord("with") {
		op.With = p.parsePropList()
	}
	return op
}

func parseMakeSeries(p *parser, b OpBase) Operator {
	op := &MakeSeriesOp{OpBase: b}
	for !p.isWord("on") && !p.isOpEnd() {
		start := p.tok().pos
		a := &SeriesAgg{X: p.parseNamedExpr()}
		if p.isWord("default") && p.isAt(1, "=") {
			p.next()
			p.next()
			a.Default = p.parseExpr()
		}
		a.Span = Span{start, p.prevEnd()}
		op.Aggs = append(op.Aggs, a)
		if !p.accept(",") {
			break
		}
	}
	if !p.expectWord("on") {
		return op
	}
	op.On = p.parseRelational()
	if p.isWord("in") && p.isWordAt(1, "range") && p.isAt(2, "(") {
		p.next()
		p.next()
		op.InRange = true
		args := p.parseCallArgs()
		if len(args) != 3 {
			p.error(op.On.End(), "in range(...) needs start, stop and step")
		} else {
			op.From, op.To, op.Step = args[0], args[1], args[2]
		}
	} else {
		if p.acceptWord("from") {
			op.From = p.parseExpr()
		}
		if p.acceptWord("to") {
			op.To = p.parseExpr()
		}
		if p.acceptWord("step") {
			op.Step = p.parseExpr()
		}
	}
	if p.acceptWord("by") {
		op.By = p.parseNamedList()
	}
	return op
}

func parseRender(p *parser, b OpBase) Operator {
	op := &RenderOp{OpBase: b}
	if p.tok().kind == tIdent && !p.isAt(1, "=") && !(p.isWord("with") && p.isAt(1, "(")) {
		op.Chart = p.next().text
	} else {
		p.errorExpected("a visualization name")
	}
	for {
		t := p.tok()
		switch {
		case t.kind == tIdent && p.isAt(1, "=") && (t.text == "kind" || t.text == "title" || t.text == "accumulate"):
			p.next()
			p.next()
			v := p.parsePrimary()
			op.Params = append(op.Params, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: t.text, Value: v})
			continue
		case p.isWord("with") && p.peek(1).kind == tString:
			p.next()
			v := p.parsePrimary()
			op.Params = append(op.Params, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: "with", Value: v})
			continue
		case p.isWord("by") && p.isName():
			p.next()
			l := &ListExpr{Span: Span{From: p.tok().pos}}
			for p.isName() && !(p.isWord("kind") || p.isWord("title") || p.isWord("accumulate") || p.isWord("with")) {
				l.Elems = append(l.Elems, p.parseName())
				if !p.accept(",") {
					break
				}
			}
			l.To = p.prevEnd()
			op.Params = append(op.Params, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: "by", Value: l})
			continue
		}
		break
	}
	if p.isWord("with") && p.isAt(1, "(") {
		p.next()
		op.With = p.parsePropList()
	}
	return op
}

func parseAs(p *parser, b OpBase) Operator {
	return &AsOp{OpBase: b, Name: p.parseName()}
}

func parseSerialize(p *parser, b OpBase) Operator {
	op := &SerializeOp{OpBase: b}
	if !p.isOpEnd() {
		op.Items = p.parseNamedList()
	}
	return op
}

func parseEvaluate(p *parser, b OpBase) Operator {
	op := &EvaluateOp{OpBase: b}
	start := p.tok().pos
	name := p.parseName()
	op.Plugin = &Call{Func: name}
	if p.is("(") {
		op.Plugin.Args = p.parseCallArgs()
	} else {
		p.errorExpected("'(' after the plugin name")
	}
	op.Plugin.Span = Span{start, p.prevEnd()}
	if p.accept(":") {
		op.Schema = p.parseType()
	}
	return op
}

func parseMacroExpand(p *parser, b OpBase) Operator {
	op := &MacroExpandOp{OpBase: b, Group: p.parseUnary()}
	if p.expectWord("as") {
		op.As = p.parseName()
	}
	if p.expect("(") {
		op.Body = p.parsePipeExpr()
		p.expect(")")
	}
	return op
}

func parseInvoke(p *parser, b OpBase) Operator {
	return &InvokeOp{OpBase: b, Call: p.parseUnary()}
}

func parsePrint(p *parser, b OpBase) Operator {
	return &PrintOp{OpBase: b, Items: p.parseNamedList()}
}

func parseRange(p *parser, b OpBase) Operator {
	op := &RangeOp{OpBase: b, Column: p.parseName()}
	if p.expectWord("from") {
		op.From = p.parseExpr()
	}
	if p.expectWord("to") {
		op.To = p.parseExpr()
	}
	if p.expectWord("step") {
		op.Step = p.parseExpr()
	}
	return op
}
