package kql

// Parse functions for the common tabular operators. Each receives the operator's name
// and parameters in b and parses its operands.

func parseWhere(p *parser, b OpBase) Operator {
	pred := p.parseNamedExpr()
	if ne, ok := pred.(*NamedExpr); ok && len(ne.Names) == 1 {
		// Kusto accepts "where a = b" (its grammar reads a named expression) and
		// means a == b; store the comparison.
		pred = &Binary{Span: ne.Span, Op: "==", Left: ne.Names[0], Right: ne.Value}
	}
	return &WhereOp{OpBase: b, Pred: pred}
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
	st := &SortTerm{X: p.parseNamedExpr()}
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
	op := &TopOp{OpBase: b, Count: p.parseNamedExpr()}
	if p.expectWord("by") {
		op.Terms = p.parseSortTerms()
	}
	return op
}

func parseTake(p *parser, b OpBase) Operator {
	return &TakeOp{OpBase: b, Count: p.parseNamedExpr()}
}

func parseSample(p *parser, b OpBase) Operator {
	return &SampleOp{OpBase: b, Count: p.parseNamedExpr()}
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
