package kql

// Parse functions for the common tabular operators. Each receives the operator's name
// and parameters in b and parses its operands.

func parseWhere(p *parser, b OpBase) Operator {
	return &WhereOp{OpBase: b, Pred: p.parseExpr()}
}

func parseProject(p *parser, b OpBase) Operator {
	op := &ProjectOp{OpBase: b}
	if b.Name == "project-smart" && p.isOpEnd() {
		return op
	}
	op.Items = p.parseNamedList()
	return op
}

func parseProjectAway(p *parser, b OpBase) Operator {
	op := &ProjectAwayOp{OpBase: b}
	for {
		op.Columns = append(op.Columns, p.parseNamePattern())
		if !p.accept(",") {
			return op
		}
	}
}

// parseNamePattern parses a column or table name that may hold '*' wildcards written
// without spaces (Col*, *Name, Device*Events), a bracketed name, or any expression.
func (p *parser) parseNamePattern() Expr {
	t := p.tok()
	if t.kind == tPunct && t.text == "*" || t.kind == tIdent && p.isAt(1, "*") && p.peek(1).pos == t.end {
		return p.parseWildName()
	}
	return p.parseUnary()
}

// parseWildName parses a name made of adjacent identifier, number and '*' tokens
// (Col*, *Name, a*b*), or a bracketed name.
func (p *parser) parseWildName() *Ident {
	t := p.tok()
	if t.kind == tPunct && t.text == "[" {
		return p.parseName()
	}
	name := ""
	end := t.pos
	for {
		c := p.tok()
		if name != "" && c.pos != end {
			break
		}
		if c.kind == tIdent || (c.kind == tPunct && c.text == "*") || (c.kind == tLong && name != "") {
			name += c.text
			end = c.end
			p.next()
			continue
		}
		break
	}
	if name == "" {
		p.errorExpected("a name")
	}
	return &Ident{Span: Span{t.pos, end}, Name: name}
}

func parseProjectRename(p *parser, b OpBase) Operator {
	op := &ProjectRenameOp{OpBase: b}
	for {
		e := p.parseNamedExpr()
		if ne, ok := e.(*NamedExpr); ok {
			op.Items = append(op.Items, ne)
		} else {
			p.error(e.Pos(), "expected NewName = ExistingName")
		}
		if !p.accept(",") {
			return op
		}
	}
}

func parseProjectReorder(p *parser, b OpBase) Operator {
	op := &ProjectReorderOp{OpBase: b}
	for {
		start := p.tok().pos
		st := &SortTerm{X: p.parseNamePattern()}
		switch {
		case p.isWord("granny") && p.isAt(1, "-") && (p.isWordAt(2, "asc") || p.isWordAt(2, "desc")):
			p.next()
			p.next()
			st.Order = "granny-" + p.next().text
		case p.isWord("asc") || p.isWord("desc"):
			st.Order = p.next().text
		}
		st.Span = Span{start, p.prevEnd()}
		op.Items = append(op.Items, st)
		if !p.accept(",") {
			return op
		}
	}
}

func parseExtend(p *parser, b OpBase) Operator {
	return &ExtendOp{OpBase: b, Items: p.parseNamedList()}
}

func parseSummarize(p *parser, b OpBase) Operator {
	op := &SummarizeOp{OpBase: b}
	if !p.isWord("by") && !p.isOpEnd() {
		op.Aggs = p.parseNamedList()
	}
	if p.acceptWord("by") {
		op.By = p.parseNamedList()
	}
	return op
}

func parseCount(p *parser, b OpBase) Operator {
	op := &CountOp{OpBase: b}
	if p.acceptWord("as") {
		op.As = p.parseName()
	}
	return op
}

func parseAssertSchema(p *parser, b OpBase) Operator {
	return &AssertSchemaOp{OpBase: b, Schema: p.parseType()}
}

func parseSimple(p *parser, b OpBase) Operator { return &SimpleOp{OpBase: b} }

func parseDistinct(p *parser, b OpBase) Operator {
	return &DistinctOp{OpBase: b, Items: p.parseNamedList()}
}

func parseSort(p *parser, b OpBase) Operator {
	op := &SortOp{OpBase: b}
	p.expectWord("by")
	op.Terms = p.parseSortTerms()
	return op
}

// parseSortTerms parses Expr [asc|desc] [nulls first|last], ...
func (p *parser) parseSortTerms() []*SortTerm {
	var terms []*SortTerm
	for {
		terms = append(terms, p.parseSortTerm())
		if !p.accept(",") {
			return terms
		}
	}
}

func (p *parser) parseSortTerm() *SortTerm {
	start := p.tok().pos
	st := &SortTerm{X: p.parseExpr()}
	if p.isWord("asc") || p.isWord("desc") {
		st.Order = p.next().text
	}
	if p.acceptWord("nulls") {
		if p.isWord("first") || p.isWord("last") {
			st.Nulls = p.next().text
		} else {
			p.errorExpected("'first' or 'last'")
		}
	}
	st.Span = Span{start, p.prevEnd()}
	return st
}

func parseTop(p *parser, b OpBase) Operator {
	op := &TopOp{OpBase: b, Count: p.parseExpr()}
	if p.expectWord("by") {
		op.Terms = p.parseSortTerms()
	}
	return op
}

func parseTake(p *parser, b OpBase) Operator {
	return &TakeOp{OpBase: b, Count: p.parseExpr()}
}

func parseSample(p *parser, b OpBase) Operator {
	return &SampleOp{OpBase: b, Count: p.parseExpr()}
}

func parseSampleDistinct(p *parser, b OpBase) Operator {
	op := &SampleDistinctOp{OpBase: b, Count: p.parseExpr()}
	if p.expectWord("of") {
		op.Of = p.parseExpr()
	}
	return op
}

func parseTopHitters(p *parser, b OpBase) Operator {
	op := &TopHittersOp{OpBase: b, Count: p.parseExpr()}
	if p.expectWord("of") {
		op.Of = p.parseExpr()
	}
	if p.acceptWord("by") {
		op.By = p.parseExpr()
	}
	return op
}

func parseTopNested(p *parser, b OpBase) Operator {
	op := &TopNestedOp{OpBase: b}
	for {
		start := p.tok().pos
		lv := &TopNestedLevel{}
		if !p.isWord("of") {
			lv.Count = p.parseExpr()
		}
		if p.expectWord("of") {
			lv.Of = p.parseNamedExpr()
		}
		if p.isWord("with") && p.isWordAt(1, "others") {
			p.next()
			p.next()
			p.expect("=")
			lv.Others = p.parseExpr()
		}
		if p.expectWord("by") {
			lv.By = p.parseNamedExpr()
		}
		if p.isWord("asc") || p.isWord("desc") {
			lv.Order = p.next().text
		}
		lv.Span = Span{start, p.prevEnd()}
		op.Levels = append(op.Levels, lv)
		if !(p.is(",") && p.isWordAt(1, "top") && p.isAt(2, "-") && p.isWordAt(3, "nested")) {
			return op
		}
		for k := 0; k < 4; k++ {
			p.next()
		}
	}
}

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
