package kql

import (
	"strings"

	"github.com/qeval/qeval"
)

// scalar walks an expression in scalar position: names are columns unless bound,
// nested pipelines are walked as tables.
func (x *shaper) scalar(e Expr, ctx *pipeCtx) {
	if isNil(e) {
		return
	}
	switch e := e.(type) {
	case *Ident:
		if _, ok := x.scope.lookup(e.Name); ok || e.Name == "" || e.Name[0] == '$' || ctx.derived[e.Name] {
			return
		}
		x.addColumn(ctx.table, e.Name)
	case *Member:
		if r, ok := e.X.(*Ident); ok && (r.Name == "$left" || r.Name == "$right") {
			x.addColumn("", e.Name.Name)
			return
		}
		if t := x.tableRef(e); t != "" {
			x.addTable(t)
			return
		}
		x.scalar(e.X, ctx) // a.b: the column is a
	case *Call:
		switch e.Name() {
		case "table":
			if len(e.Args) > 0 {
				if l, ok := e.Args[0].(*Literal); ok && l.Kind == LitString {
					x.addTable(l.Value)
					return
				}
			}
		case "materialize", "toscalar", "view":
			for _, a := range e.Args {
				if x.isTabular(a) {
					x.source(a, sub())
				} else {
					x.scalar(a, ctx)
				}
			}
			return
		}
		x.call(e, ctx, 0)
	case *PipeExpr:
		x.pipe(e, sub())
	case *Paren:
		x.scalar(e.X, ctx)
	case *Unary:
		x.scalar(e.X, ctx)
	case *Binary:
		x.scalar(e.Left, ctx)
		x.scalar(e.Right, ctx)
	case *InExpr:
		x.scalar(e.Left, ctx)
		x.exprs(e.List, ctx)
	case *BetweenExpr:
		x.exprs([]Expr{e.Left, e.Low, e.High}, ctx)
	case *Index:
		x.scalar(e.X, ctx)
		x.scalar(e.Index, ctx)
	case *NamedExpr:
		x.scalar(e.Value, ctx)
	case *ListExpr:
		x.exprs(e.Elems, ctx)
	case *FuncDef:
		x.block(e.Body, e.Params)
	case *DatatableExpr:
		x.exprs(e.Values, ctx)
	case *ExternalDataExpr, *Literal, *DynamicLit, *Star, *TypeOf, *Placeholder, *BadExpr, *EntityGroup:
	case Operator:
		x.source(e.(Expr), sub())
	}
}

// call walks a function call's arguments; arguments of a let-bound function's tabular
// parameters are tables. skip is the number of leading parameters filled implicitly
// (1 for invoke, whose piped table is the first argument).
func (x *shaper) call(e *Call, ctx *pipeCtx, skip int) {
	if m, ok := e.Func.(*Member); ok {
		x.scalar(m.X, ctx)
	}
	var fn binding
	if id, ok := e.Func.(*Ident); ok {
		fn, _ = x.scope.lookup(id.Name)
	}
	for i, a := range e.Args {
		if k := i + skip; fn.kind == bindFunc && k < len(fn.tabular) && fn.tabular[k] {
			x.source(valueOf(a), sub()) // a table passed to a tabular parameter
			continue
		}
		x.scalar(valueOf(a), ctx)
	}
}

// filters records the comparisons of a where predicate, split on and/or.
func (x *shaper) filters(e Expr, neg bool) {
	switch e := e.(type) {
	case nil, *BadExpr:
		return
	case *Paren:
		x.filters(e.X, neg)
		return
	case *Binary:
		switch e.Op {
		case "and", "or":
			x.filters(e.Left, neg)
			x.filters(e.Right, neg)
			return
		case "+", "-", "*", "/", "%":
		default:
			x.compare(e.Left, e.Op, e.Right, neg)
			return
		}
	case *InExpr:
		f := qeval.Filter{Clause: "where", Column: x.colText(e.Left), Operator: negateOp(e.Op, neg)}
		if x.allConstant(e.List) {
			f.Value = "(" + x.formatList(e.List) + ")"
		}
		x.sh.Filters = append(x.sh.Filters, f)
		return
	case *BetweenExpr:
		op := "between"
		if e.Not {
			op = "!between"
		}
		f := qeval.Filter{Clause: "where", Column: x.colText(e.Left), Operator: negateOp(op, neg)}
		if x.isConstant(e.Low) && x.isConstant(e.High) {
			f.Value = "(" + x.format(e.Low) + " .. " + x.format(e.High) + ")"
		}
		x.sh.Filters = append(x.sh.Filters, f)
		return
	case *Call:
		name := e.Name()
		if name == "not" && len(e.Args) == 1 {
			x.filters(e.Args[0], !neg)
			return
		}
		f := qeval.Filter{Clause: "where", Operator: negateOp(name, neg)}
		if len(e.Args) > 0 {
			f.Column = x.colText(e.Args[0])
			if rest := e.Args[1:]; len(rest) > 0 && x.allConstant(rest) {
				f.Value = x.formatList(rest)
			}
		}
		x.sh.Filters = append(x.sh.Filters, f)
		return
	}
	op := "istrue"
	if neg {
		op = "isfalse"
	}
	x.sh.Filters = append(x.sh.Filters, qeval.Filter{Clause: "where", Column: x.colText(e), Operator: op})
}

// compare records one comparison, putting the column on the left.
func (x *shaper) compare(l Expr, op string, r Expr, neg bool) {
	if op == "<>" {
		op = "!="
	}
	if x.isConstant(l) && !x.isConstant(r) {
		l, r = r, l
		op = flipOp(op)
	}
	f := qeval.Filter{Clause: "where", Column: x.colText(l), Operator: negateOp(op, neg)}
	if x.isConstant(r) {
		f.Value = x.format(r)
	}
	x.sh.Filters = append(x.sh.Filters, f)
}

// colText is the text of a filtered column or expression.
func (x *shaper) colText(e Expr) string {
	if id, ok := e.(*Ident); ok {
		return id.Name
	}
	return x.format(e)
}

// flipOp returns the operator with its sides swapped (a < b ⇔ b > a).
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

var negations = map[string]string{
	"==": "!=", "=~": "!~", "<": ">=", ">": "<=", "<=": ">", ">=": "<",
	"isempty": "isnotempty", "isnull": "isnotnull", "in~": "!in~", "between": "!between",
}

// negateOp returns the operator that means not(a op b) when neg is set.
func negateOp(op string, neg bool) string {
	if !neg {
		return op
	}
	for k, v := range negations {
		if op == k {
			return v
		}
		if op == v {
			return k
		}
	}
	if strings.HasPrefix(op, "!") {
		return op[1:]
	}
	if stringOps[op] || setOps[op] {
		return "!" + op
	}
	return "not " + op
}

// isConstant reports whether e has no column references: literals, let-bound
// constants, and calls and arithmetic over them (ago(1h), now(), -1, 2*1d).
func (x *shaper) isConstant(e Expr) bool {
	switch e := e.(type) {
	case *Literal, *DynamicLit, *TypeOf:
		return true
	case *Paren:
		return x.isConstant(e.X)
	case *Unary:
		return x.isConstant(e.X)
	case *Binary:
		switch e.Op {
		case "+", "-", "*", "/", "%":
			return x.isConstant(e.Left) && x.isConstant(e.Right)
		}
	case *Ident:
		b, ok := x.scope.lookup(e.Name)
		return ok && b.kind == bindScalar && b.value != ""
	case *Call:
		if _, ok := e.Func.(*Ident); !ok {
			return false
		}
		return x.allConstant(e.Args)
	}
	return false
}

func (x *shaper) allConstant(list []Expr) bool {
	for _, e := range list {
		if !x.isConstant(e) {
			return false
		}
	}
	return true
}

// format prints e canonically with let-bound constants replaced by their values.
func (x *shaper) format(e Expr) string {
	f := formatter{fold: true, subst: func(id *Ident) string {
		if b, ok := x.scope.lookup(id.Name); ok && b.kind == bindScalar {
			return b.value
		}
		return ""
	}}
	f.expr(e)
	return f.b.String()
}

func (x *shaper) formatList(list []Expr) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = x.format(e)
	}
	return strings.Join(parts, ", ")
}
