package kql

// opParser parses the rest of one tabular operator after its name; b holds the name and
// start. It returns the operator; Parse sets the end of its span.
type opParser func(p *parser, b OpBase) Operator

// operators is the one table of tabular operators: name as written → parser. To add an
// operator, write a parse function in parse_ops*.go and add its name(s) here.
var operators map[string]opParser

func init() {
	// Built in init because the parse functions refer back to the table (through
	// parsePipeExpr), which Go forbids in a package-level initializer.
	operators = map[string]opParser{
		"where": parseWhere, "filter": parseWhere,
		"project": parseProject, "project-smart": parseProject,
		"project-away": parseProjectAway, "project-keep": parseProjectAway,
		"project-rename": parseProjectRename, "project-reorder": parseProjectReorder,
		"extend": parseExtend, "summarize": parseSummarize, "count": parseCount,
		"distinct": parseDistinct, "sort": parseSort, "order": parseSort,
		"top": parseTop, "take": parseTake, "limit": parseTake,
		"sample": parseSample, "sample-distinct": parseSampleDistinct,
		"top-hitters": parseTopHitters, "top-nested": parseTopNested,
		"join": parseJoin, "lookup": parseLookup, "union": parseUnion,
		"mv-expand": parseMvExpand, "mvexpand": parseMvExpand,
		"mv-apply": parseMvApply, "mvapply": parseMvApply,
		"parse": parseParse, "parse-where": parseParse, "parse-kv": parseParseKv,
		"make-series": parseMakeSeries, "render": parseRender, "as": parseAs,
		"getschema": parseSimple, "consume": parseSimple, "graph-mark-components": parseSimple,
		"serialize": parseSerialize, "evaluate": parseEvaluate, "invoke": parseInvoke,
		"search": parseSearch, "find": parseFind, "fork": parseFork, "facet": parseFacet,
		"partition": parsePartition, "reduce": parseReduce, "scan": parseScan,
		"make-graph": parseMakeGraph, "graph-match": parseGraphMatch,
		"graph-shortest-paths": parseGraphMatch, "graph-to-table": parseGraphToTable,
		"print": parsePrint, "range": parseRange, "macro-expand": parseMacroExpand,
		"graph-where-nodes": parseWhere, "graph-where-edges": parseWhere,
		"project-by-names": parseProject, "__executeAndCache": parseSimple,
		"assert-schema": parseAssertSchema,
	}
}

// simpleParams lists the operators that take name=value parameters before their
// operands: hint.* parameters always, and the names listed. An operator missing here
// takes none, so "extend kind = 1" stays an assignment.
var simpleParams = map[string][]string{
	"join":                  {"kind"},
	"lookup":                {"kind"},
	"union":                 {"kind", "withsource", "with_source", "isfuzzy", "__isFuzzy", "best_effort"},
	"mv-expand":             {"kind", "bagexpansion", "with_itemindex"},
	"mvexpand":              {"kind", "bagexpansion", "with_itemindex"},
	"mv-apply":              {"kind", "with_itemindex"},
	"mvapply":               {"kind", "with_itemindex"},
	"parse":                 {"kind", "flags"},
	"parse-where":           {"kind", "flags"},
	"make-series":           {"kind"},
	"search":                {"kind"},
	"find":                  {"kind", "withsource", "with_source"},
	"consume":               {"decodeblocks"},
	"graph-mark-components": {"kind", "with_component_id"},
	"reduce":                {"kind"},
	"scan":                  {"kind", "with_match_id"},
	"make-graph":            {"with_node_id"},
	"graph-match":           {"cycles"},
	"graph-shortest-paths":  {"cycles", "output"},
	"macro-expand":          {"force_remote", "isfuzzy", "best_effort"},
	"sort":                  {},
	"order":                 {},
	"top":                   {},
	"top-nested":            {},
	"take":                  {},
	"limit":                 {},
	"distinct":              {},
	"summarize":             {},
	"evaluate":              {},
	"partition":             {},
	"as":                    {},
}

// parsePipeExpr parses Source [| Operator]..., or a scalar expression.
func (p *parser) parsePipeExpr() Expr {
	if !p.enter() {
		return p.bad()
	}
	defer p.leave()
	src := p.parseSource()
	if pe, ok := src.(*PipeExpr); ok && pe.Source == nil {
		p.parsePipeOps(pe)
		pe.To = p.prevEnd()
		return pe
	}
	if !p.is("|") {
		return src
	}
	pe := &PipeExpr{Source: src}
	p.parsePipeOps(pe)
	pe.Span = Span{src.Pos(), p.prevEnd()}
	return pe
}

// parsePipeOps parses "| op" repeatedly.
func (p *parser) parsePipeOps(pe *PipeExpr) {
	for p.is("|") {
		p.next()
		p.suppress = false
		if op := p.parseOperator(); op != nil {
			pe.Ops = append(pe.Ops, op)
		}
		p.endOperator()
	}
}

// parseOpPipe parses an operator-only pipeline: op [| op]... (the bodies of mv-apply,
// partition, fork and facet). A body that starts with a table is parsed as a full
// pipeline, which Kusto also accepts in some of these places.
func (p *parser) parseOpPipe() *PipeExpr {
	start := p.tok().pos
	p.accept("|")
	var x Expr
	if p.tok().kind == tIdent && p.operatorAt() != "" && !p.isAt(1, "|") && !p.isAt(1, ".") && !p.isAt(1, "=") {
		x = p.parseOpOnlyPipe()
	} else {
		x = p.parsePipeExpr()
	}
	if pe, ok := x.(*PipeExpr); ok {
		pe.From = start
		return pe
	}
	return &PipeExpr{Span: Span{start, x.End()}, Source: x}
}

// parseOpOnlyPipe parses a pipeline that starts with an operator: op [| op]...
func (p *parser) parseOpOnlyPipe() Expr {
	if !p.enter() {
		return p.bad()
	}
	defer p.leave()
	pe := &PipeExpr{Span: Span{From: p.tok().pos}}
	if op := p.parseOperator(); op != nil {
		pe.Ops = append(pe.Ops, op)
	}
	p.endOperator()
	p.parsePipeOps(pe)
	pe.To = p.prevEnd()
	return pe
}

// endOperator checks that an operator ended where an operator may end, and skips to
// the next pipe or statement end otherwise.
func (p *parser) endOperator() {
	if p.isOpEnd() {
		return
	}
	p.error(p.tok().pos, "unexpected "+describe(p.tok())+" after operator")
	p.skipTo("|", ";")
}

// isOpEnd reports whether the current token may follow a complete operator.
func (p *parser) isOpEnd() bool {
	t := p.tok()
	if t.kind == tEOF {
		return true
	}
	if t.kind != tPunct {
		return false
	}
	switch t.text {
	case "|", ")", "]", "}", ";", ",":
		return true
	}
	return false
}

// operatorAt returns the operator name that starts at the current token (joining
// hyphenated parts written without spaces, e.g. project-away), or "".
func (p *parser) operatorAt() string {
	name, _ := p.operatorName()
	if _, ok := operators[name]; ok {
		return name
	}
	return ""
}

// operatorName returns the longest hyphenated name at the current token that is a
// known operator (or just the first word), and the number of tokens it spans.
func (p *parser) operatorName() (string, int) {
	t := p.tok()
	name, n := t.text, 1
	best, bestN := name, 1
	end := t.end
	for k := 1; k < 7; k += 2 {
		dash, w := p.peek(k), p.peek(k+1)
		if dash.kind != tPunct || dash.text != "-" || dash.pos != end || w.kind != tIdent || w.pos != dash.end {
			break
		}
		name += "-" + w.text
		n += 2
		end = w.end
		if _, ok := operators[name]; ok {
			best, bestN = name, n
		}
	}
	return best, bestN
}

// parseOperator parses one tabular operator at the current token.
func (p *parser) parseOperator() Operator {
	t := p.tok()
	if t.kind != tIdent {
		p.errorExpected("a tabular operator")
		return nil
	}
	name, n := p.operatorName()
	fn, ok := operators[name]
	if !ok {
		p.error(t.pos, "unknown tabular operator '"+name+"'")
		p.skipTo("|", ";")
		return nil
	}
	for k := 0; k < n; k++ {
		p.next()
	}
	b := OpBase{Span: Span{t.pos, p.prevEnd()}, Name: name}
	if _, ok := simpleParams[name]; ok {
		b.Params = p.parseParams(simpleParams[name])
	}
	op := fn(p, b)
	op.(interface{ base() *OpBase }).base().To = p.prevEnd()
	return op
}

func (o *OpBase) base() *OpBase { return o }

// parseParams parses name=value parameters: hint.* ones and those in names.
func (p *parser) parseParams(names []string) []*OpParam {
	var params []*OpParam
	for p.tok().kind == tIdent {
		t := p.tok()
		isHint := t.text == "hint" && p.isAt(1, ".") && p.peek(2).kind == tIdent
		if !isHint && !(p.isAt(1, "=") && contains(names, t.text)) {
			break
		}
		name := p.parseDottedName()
		p.expect("=")
		v := p.parsePrimary()
		params = append(params, &OpParam{Span: Span{t.pos, p.prevEnd()}, Name: name, Value: v})
	}
	return params
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseSource parses the first element of a pipeline: a source operator (print,
// range, union, evaluate, search, find, macro-expand) or an expression (a table name, a
// function call, datatable, a parenthesized pipeline...). An operator name followed by
// its operand, as in "(where x > 1)", starts an operator-only pipeline.
func (p *parser) parseSource() Expr {
	t := p.tok()
	if t.kind == tIdent {
		if p.startsSourceOp() {
			name, n := p.operatorName()
			b := OpBase{Span: Span{t.pos, t.end}, Name: name}
			for k := 0; k < n; k++ {
				p.next()
			}
			fn := operators[name]
			if prm, ok := simpleParams[name]; ok {
				b.Params = p.parseParams(prm)
			}
			op := fn(p, b)
			op.(interface{ base() *OpBase }).base().To = p.prevEnd()
			return op.(Expr)
		}
		if p.startsOperator() {
			return p.parseOpOnlyPipe()
		}
	}
	return p.parseExpr()
}

// startsOperator reports whether the identifier at the current token is an operator
// name followed by an operand (two names in a row are never an expression).
func (p *parser) startsOperator() bool {
	name, n := p.operatorName()
	if _, ok := operators[name]; !ok {
		return false
	}
	switch t := p.peek(n); t.kind {
	case tIdent:
		return !isBinaryWord(t.text) || (t.text == "in" && name == "search")
	case tString, tLong, tReal, tTimespan, tTyped:
		return true
	case tPunct:
		return t.text == "*"
	}
	return false
}

// startsSourceOp reports whether the identifier at the current token is a source
// operator keyword rather than a name that happens to be spelled the same.
func (p *parser) startsSourceOp() bool {
	w := p.tok().text
	switch w {
	case "print", "union", "evaluate", "search", "find", "range":
	case "macro":
		name, n := p.operatorName()
		return name == "macro-expand" && p.peek(n).kind == tIdent
	default:
		return false
	}
	n := p.peek(1)
	switch n.kind {
	case tEOF, tWordOp:
		return false
	case tIdent:
		if w == "range" {
			return p.isWordAt(2, "from")
		}
		if n.text == "in" && (w == "search" || w == "find") {
			return true
		}
		return !isBinaryWord(n.text)
	case tPunct:
		switch n.text {
		case "(":
			return w != "range" && w != "evaluate"
		case "*":
			return w == "union" || w == "search" || w == "print"
		case "-", "+":
			return w == "print"
		case "[":
			return w == "print" || w == "union"
		}
		return false
	}
	return w != "range" && w != "evaluate"
}
