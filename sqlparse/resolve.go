package sqlparse

import (
	"strings"

	"github.com/qeval/qeval"
)

// walk records the columns, functions, aggregates and subqueries of e. clause is the
// clause e is in ("select", "where", "group", "having", "order", "join" or "").
func (x *extractor) walk(e *expr, s *scope, clause string) {
	if e == nil {
		return
	}
	switch e.kind {
	case exprColumn:
		x.column(e, s, clause, true)
		return
	case exprCall:
		x.addFunc(e.fn)
		if e.isAggregate() {
			a := qeval.Aggregate{Func: e.fn, Arg: x.aggArg(e, s)}
			k := a.Func + "(" + strings.ToLower(a.Arg)
			if !x.aggs[k] {
				x.aggs[k] = true
				x.shape.Aggregates = append(x.shape.Aggregates, a)
			}
		}
	}
	if e.q != nil {
		x.query(e.q, s, false)
	}
	e.children(func(c *expr) { x.walk(c, s, clause) })
}

func (x *extractor) aggArg(e *expr, s *scope) string {
	if e.star || len(e.args) == 0 {
		return "*"
	}
	parts := make([]string, len(e.args))
	for i, a := range e.args {
		parts[i] = x.render(a, s)
	}
	arg := strings.Join(parts, ", ")
	if e.distinct {
		arg = "DISTINCT " + arg
	}
	return arg
}

// column resolves a column reference to its base table ("" when it is not a base
// table's column or cannot be told) and, when record is set, lists it in the shape.
// ok is false when the name is not a column at all (a result-column alias).
func (x *extractor) column(e *expr, s *scope, clause string, record bool) (table string, ok bool) {
	if e.table != "" {
		return x.qualifiedColumn(e, s, record), true
	}
	// An unqualified name: a result-column alias where the clause allows one, else the
	// column of the nearest source that has it.
	aliasFirst := clause == "order" || clause == "group" || clause == "having"
	if aliasFirst || x.schema == nil {
		if clause != "select" && clause != "join" && s.aliases[strings.ToLower(e.name)] {
			return "", false
		}
	}
	open := false
	for sc := s; sc != nil; sc = sc.parent {
		var found *binding
		var others []string
		for _, b := range sc.sources {
			if containsFold(b.cols, e.name) {
				if found == nil {
					found = b
				} else {
					others = append(others, firstNonEmpty(b.table, b.name))
				}
			}
		}
		if len(others) > 0 && record && x.schema != nil && !sc.joined[lower(e.name)] && !sc.natural {
			x.st.Unresolved = append(x.st.Unresolved, Unresolved{Column: e.name, Ambiguous: true,
				Scope: append([]string{firstNonEmpty(found.table, found.name)}, others...), Line: e.line, Col: e.col})
		}
		if found == nil {
			// One source whose columns are not known, the others known not to have it:
			// it must be that one.
			var open []*binding
			for _, b := range sc.sources {
				if b.cols == nil || b.star {
					open = append(open, b)
				}
			}
			if len(open) == 1 {
				found = open[0]
			}
		}
		if found != nil {
			if found.table != "" && record {
				x.addColumn(found.table, e.name)
			}
			return found.table, true
		}
		if x.schema == nil && len(sc.sources) > 0 {
			break // several sources and no schema: the table cannot be told
		}
		if sourcesOpen(sc) {
			open = true // it may be one of the columns not known
			break
		}
	}
	if s.aliases[strings.ToLower(e.name)] && clause != "select" {
		return "", false
	}
	if record {
		if x.schema != nil && !open {
			x.st.Unresolved = append(x.st.Unresolved, Unresolved{Column: e.name, Scope: scopeTables(s), Line: e.line, Col: e.col})
		}
		x.addColumn("", e.name)
	}
	return "", true
}

// qualifiedColumn is column for a name written with its table (or alias) before the
// dot: the binding of that name in the nearest scope, else a source over a table of
// that name. It returns "" when that is no base table or none is found; with record
// set it lists the column, and a reference the schema does not know, in the shape.
func (x *extractor) qualifiedColumn(e *expr, s *scope, record bool) string {
	b := x.lookupBinding(s, e.table)
	if b == nil && e.schema != "" {
		b = x.lookupBinding(s, e.schema+"."+e.table)
	}
	if b == nil {
		b = x.bindingOfTable(s, e.table)
	}
	if b == nil {
		if record && x.schema != nil {
			x.st.Unresolved = append(x.st.Unresolved, Unresolved{Table: e.table, Column: e.name, Qualifier: true, Line: e.line, Col: e.col})
		}
		if record {
			x.addColumn("", e.name)
		}
		return ""
	}
	if b.table == "" {
		if record && x.schema != nil && !b.star && !containsFold(b.cols, e.name) {
			x.st.Unresolved = append(x.st.Unresolved, Unresolved{Table: b.name, Column: e.name, Line: e.line, Col: e.col})
		}
		return ""
	}
	if record {
		if x.schema != nil && b.cols != nil && !containsFold(b.cols, e.name) {
			x.st.Unresolved = append(x.st.Unresolved, Unresolved{Table: b.table, Column: e.name, Line: e.line, Col: e.col})
		}
		x.addColumn(b.table, e.name)
	}
	return b.table
}

// sourcesOpen says whether a scope has a source whose columns are not all known, so an
// unresolved name may well be one of them.
func sourcesOpen(s *scope) bool {
	for _, b := range s.sources {
		if b.star {
			return true
		}
	}
	return false
}

func (x *extractor) bindingOfTable(s *scope, table string) *binding {
	for ; s != nil; s = s.parent {
		for _, b := range s.sources {
			if b.table != "" && strings.EqualFold(b.table, table) {
				return b
			}
		}
	}
	return nil
}

func scopeTables(s *scope) []string {
	var out []string
	for ; s != nil; s = s.parent {
		for _, b := range s.sources {
			out = append(out, firstNonEmpty(b.table, b.name))
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

func containsFold(list []string, name string) bool {
	for _, n := range list {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// cond walks a WHERE, HAVING or ON condition and records its comparisons as filters.
func (x *extractor) cond(e *expr, s *scope, clause string) {
	if e == nil {
		return
	}
	x.unquoteStrings(e, s)
	x.walk(e, s, clause)
	x.filters(e, s, clause, false)
}

// filters records the comparisons of a condition. AND/OR chains are walked with a
// stack of their own, not by recursion: a generated OR chain of a hundred thousand
// terms would otherwise grow the goroutine stack again and again.
func (x *extractor) filters(e *expr, s *scope, clause string, neg bool) {
	stack := []*expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		if e.kind == exprBinary && (e.op == "and" || e.op == "or") {
			stack = append(stack, e.y, e.x) // x is recorded first
			continue
		}
		x.filter(e, s, clause, neg)
	}
}

func (x *extractor) filter(e *expr, s *scope, clause string, neg bool) {
	not := func(op string, n bool) string {
		if n != neg {
			return "not " + op
		}
		return op
	}
	switch e.kind {
	case exprBinary:
		switch e.op {
		case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "like", "glob", "regexp", "match", "is", "ilike", "~", "~*", "similar":
		default:
			return
		}
		l, r := e.x, e.y
		op := normOp(e.op)
		if isValue(l) && !isValue(r) {
			l, r = r, l
			op = flipOp(op)
		}
		f := qeval.Filter{Clause: clause, Column: x.render(l, s), Operator: not(op, e.not)}
		if isValue(r) {
			f.Value = literalText(r)
		}
		if neg && (op == "=" || op == "!=") && !e.not {
			f.Operator = map[string]string{"=": "!=", "!=": "="}[op]
		}
		x.shape.Filters = append(x.shape.Filters, f)
	case exprUnary:
		if e.op == "not" {
			x.filters(e.x, s, clause, !neg)
		}
	case exprBetween:
		f := qeval.Filter{Clause: clause, Column: x.render(e.x, s), Operator: not("between", e.not)}
		if len(e.args) == 2 && isValue(e.args[0]) && isValue(e.args[1]) {
			f.Value = literalText(e.args[0]) + " AND " + literalText(e.args[1])
		}
		x.shape.Filters = append(x.shape.Filters, f)
	case exprIn:
		f := qeval.Filter{Clause: clause, Column: x.render(e.x, s), Operator: not("in", e.not)}
		if e.q == nil && len(e.args) > 0 {
			vals := make([]string, 0, len(e.args))
			for _, a := range e.args {
				if !isValue(a) {
					vals = nil
					break
				}
				vals = append(vals, literalText(a))
			}
			f.Value = strings.Join(vals, ", ")
		}
		x.shape.Filters = append(x.shape.Filters, f)
	case exprIsNull:
		x.shape.Filters = append(x.shape.Filters, qeval.Filter{Clause: clause, Column: x.render(e.x, s), Operator: not("is null", e.not)})
	}
}

func normOp(op string) string {
	switch op {
	case "==":
		return "="
	case "<>":
		return "!="
	}
	return op
}

func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

// isValue says whether e is a constant: a literal, a parameter or a signed literal.
func isValue(e *expr) bool {
	if e == nil {
		return false
	}
	switch e.kind {
	case exprLiteral, exprParam:
		return true
	case exprUnary:
		return (e.op == "-" || e.op == "+") && isValue(e.x)
	}
	return false
}

func literalText(e *expr) string {
	switch e.kind {
	case exprLiteral, exprParam:
		return e.text
	case exprUnary:
		return e.op + literalText(e.x)
	}
	return ""
}

func lower(s string) string { return strings.ToLower(s) }
