package kql

// Parse functions for search/find, the operators with sub-pipelines (fork, facet,
// partition), reduce, scan and the graph operators.

func parseSearch(p *parser, b OpBase) Operator {
	op := &SearchOp{OpBase: b}
	if p.isWord("in") && p.isAt(1, "(") {
		p.next()
		p.next()
		op.Tables = p.parseTableList()
		p.expect(")")
	}
	op.Pred = p.parseExpr()
	return op
}

// parseTableList parses the table names of search/find in (...): names with
// wildcards, database("d").T, and so on.
func (p *parser) parseTableList() []Expr {
	var list []Expr
	for !p.is(")") && !p.atEOF() {
		list = append(list, p.parseNamePattern())
		if !p.accept(",") {
			break
		}
	}
	return list
}

func parseFind(p *parser, b OpBase) Operator {
	op := &FindOp{OpBase: b}
	if p.isWord("in") && p.isAt(1, "(") {
		p.next()
		p.next()
		op.Tables = p.parseTableList()
		p.expect(")")
	}
	p.acceptWord("where")
	op.Pred = p.parseExpr()
	switch {
	case p.isWord("project-smart"), p.isWord("project") && p.isAt(1, "-") && p.isWordAt(2, "smart"):
		for !p.isWord("smart") {
			p.next()
		}
		p.next()
		op.ProjectSmart = true
	case p.isWord("project") && !p.isAt(1, "-"):
		p.next()
		for {
			var x Expr
			if p.isName() && (p.isAt(1, ":") || p.is("[") && p.isAt(3, ":")) {
				x = p.parseColumnDecl(true)
			} else {
				x = p.parseExpr()
			}
			op.Project = append(op.Project, x)
			if !p.accept(",") {
				break
			}
		}
	}
	return op
}

func parseFork(p *parser, b OpBase) Operator {
	op := &ForkOp{OpBase: b}
	for {
		start := p.tok().pos
		br := &ForkBranch{}
		if p.isName() && (p.isAt(1, "=") || (p.is("[") && p.isAt(3, "="))) {
			br.Name = p.parseName()
			p.next()
		}
		if !p.is("(") {
			if br.Name != nil || len(op.Branches) == 0 {
				p.errorExpected("'(' to start a fork branch")
			}
			return op
		}
		p.next()
		br.Body = p.parseOpPipe()
		p.expect(")")
		br.Span = Span{start, p.prevEnd()}
		op.Branches = append(op.Branches, br)
	}
}

func parseFacet(p *parser, b OpBase) Operator {
	op := &FacetOp{OpBase: b}
	if !p.expectWord("by") {
		return op
	}
	for {
		op.By = append(op.By, p.parseExpr())
		if !p.accept(",") {
			break
		}
	}
	if p.isWord("with") && p.isAt(1, "(") {
		p.next()
		p.next()
		op.With = p.parseOpPipe()
		p.expect(")")
	}
	return op
}

func parsePartition(p *parser, b OpBase) Operator {
	op := &PartitionOp{OpBase: b}
	op.Params = append(op.Params, p.parseParams(nil)...)
	if !p.expectWord("by") {
		return op
	}
	// The key is a column; parse it without call syntax so "by Col (" opens the body.
	var key Expr = p.parseName()
	for p.is(".") && p.peek(1).kind == tIdent {
		p.next()
		n := p.parseName()
		key = &Member{Span: Span{key.Pos(), n.End()}, X: key, Name: n}
	}
	op.By = key
	op.Params = append(op.Params, p.parseParams(nil)...)
	switch {
	case p.is("("):
		p.next()
		op.Body = p.parseOpPipe()
		p.expect(")")
	case p.is("{"):
		op.Body = p.parseBlock()
	default:
		p.errorExpected("'(' or '{' to start the partition subquery")
	}
	return op
}

func parseReduce(p *parser, b OpBase) Operator {
	op := &ReduceOp{OpBase: b}
	if p.expectWord("by") {
		op.By = p.parseExpr()
	}
	if p.acceptWord("with") {
		for p.tok().kind == tIdent && p.isAt(1, "=") {
			t := p.next()
			p.next()
			v := p.parseExpr()
			op.With = append(op.With, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: t.text, Value: v})
			if !p.accept(",") {
				break
			}
		}
	}
	return op
}

func parseScan(p *parser, b OpBase) Operator {
	op := &ScanOp{OpBase: b}
	for {
		switch {
		case p.isWord("order") && p.isWordAt(1, "by"):
			p.next()
			p.next()
			op.OrderBy = p.parseSortTerms()
			continue
		case p.isWord("partition") && p.isWordAt(1, "by"):
			p.next()
			p.next()
			op.PartitionBy = p.parseExprListUntilWord()
			continue
		case p.isWord("declare") && p.isAt(1, "("):
			p.next()
			p.next()
			for !p.is(")") && !p.atEOF() {
				op.Declare = append(op.Declare, p.parseParam())
				if !p.accept(",") {
					break
				}
			}
			p.expect(")")
			continue
		}
		break
	}
	if !p.expectWord("with") || !p.expect("(") {
		return op
	}
	for p.isWord("step") {
		start := p.next().pos
		st := &ScanStep{Name: p.parseName()}
		st.Params = p.parseParams([]string{"output"})
		if p.expect(":") {
			st.Cond = p.parseExpr()
		}
		if p.accept("=>") {
			for {
				e := p.parseNamedExpr()
				if ne, ok := e.(*NamedExpr); ok {
					st.Assigns = append(st.Assigns, ne)
				} else {
					p.error(e.Pos(), "expected Column = Expression in a scan step")
				}
				if !p.accept(",") {
					break
				}
			}
		}
		st.Span = Span{start, p.prevEnd()}
		op.Steps = append(op.Steps, st)
		if !p.accept(";") {
			break
		}
	}
	p.expect(")")
	return op
}

// parseExprListUntilWord parses comma-separated expressions.
func (p *parser) parseExprListUntilWord() []Expr {
	var list []Expr
	for {
		list = append(list, p.parseExpr())
		if !p.accept(",") {
			return list
		}
	}
}

// acceptArrow consumes the tokens of "-->" (lexed as '-', '-', '>').
func (p *parser) acceptArrow() bool {
	if p.is("-") && p.isAt(1, "-") && p.isAt(2, ">") {
		p.next()
		p.next()
		p.next()
		return true
	}
	return false
}

func parseMakeGraph(p *parser, b OpBase) Operator {
	op := &MakeGraphOp{OpBase: b}
	op.Source = p.parseName()
	if !p.acceptArrow() {
		p.errorExpected("'-->'")
		return op
	}
	op.Target = p.parseName()
	op.Params = append(op.Params, p.parseParams(simpleParams["make-graph"])...)
	if p.acceptWord("with") {
		for {
			start := p.tok().pos
			gn := &GraphNodes{Table: p.parseRightTable()}
			if p.expectWord("on") {
				gn.Key = p.parseName()
			}
			gn.Span = Span{start, p.prevEnd()}
			op.Nodes = append(op.Nodes, gn)
			if !p.accept(",") {
				break
			}
		}
	}
	if p.isWord("partitioned") && p.isAt(1, "-") && p.isWordAt(2, "by") {
		p.next()
		p.next()
		p.next()
		op.PartitionBy = p.parseName()
		if p.expect("(") {
			op.PartitionOps = p.parseOpPipe()
			p.expect(")")
		}
	}
	return op
}

func parseGraphMatch(p *parser, b OpBase) Operator {
	op := &GraphMatchOp{OpBase: b}
	for {
		op.Patterns = append(op.Patterns, p.parseGraphPattern())
		if !p.accept(",") {
			break
		}
	}
	if p.acceptWord("where") {
		op.Where = p.parseExpr()
	}
	if p.acceptWord("project") {
		op.Project = p.parseNamedList()
	}
	return op
}

// parseGraphPattern parses (a)-[e]->(b)<-[f*1..3]-(c)...
func (p *parser) parseGraphPattern() *GraphPattern {
	gp := &GraphPattern{Span: Span{From: p.tok().pos}}
	for {
		start := p.tok().pos
		if !p.expect("(") {
			break
		}
		node := &GraphElem{}
		if p.isName() {
			node.Name = p.parseName()
		}
		p.expect(")")
		node.Span = Span{start, p.prevEnd()}
		gp.Elems = append(gp.Elems, node)
		if !p.is("-") && !(p.is("<") && p.isAt(1, "-")) {
			break
		}
		gp.Elems = append(gp.Elems, p.parseGraphEdge())
	}
	gp.To = p.prevEnd()
	return gp
}

func (p *parser) parseGraphEdge() *GraphElem {
	e := &GraphElem{Edge: true, Dir: "--", Span: Span{From: p.tok().pos}}
	if p.accept("<") {
		e.Dir = "<-"
	}
	p.expect("-")
	if p.accept("[") {
		if p.isName() {
			e.Name = p.parseName()
		}
		if p.accept("*") {
			if p.tok().kind == tLong {
				e.Min = p.parsePrimary()
			}
			if p.accept("..") {
				e.Max = p.parsePrimary()
			}
		}
		p.expect("]")
	}
	p.expect("-")
	if p.accept(">") {
		if e.Dir == "<-" {
			p.error(p.prevEnd()-1, "an edge cannot point both ways")
		}
		e.Dir = "->"
	}
	e.To = p.prevEnd()
	return e
}

func parseGraphToTable(p *parser, b OpBase) Operator {
	op := &GraphToTableOp{OpBase: b}
	for {
		start := p.tok().pos
		it := &GraphToTableItem{}
		if p.isWord("nodes") || p.isWord("edges") {
			it.Kind = p.next().text
		} else {
			p.errorExpected("'nodes' or 'edges'")
			return op
		}
		for {
			if p.acceptWord("as") {
				it.As = p.parseName()
				continue
			}
			if p.tok().kind == tIdent && p.isAt(1, "=") {
				t := p.next()
				p.next()
				v := p.parsePrimary()
				it.Params = append(it.Params, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: t.text, Value: v})
				continue
			}
			break
		}
		it.Span = Span{start, p.prevEnd()}
		op.Items = append(op.Items, it)
		if !p.accept(",") {
			return op
		}
	}
}
