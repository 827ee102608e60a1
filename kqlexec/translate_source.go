package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// tabular translates a tabular expression.
func (t *translator) tabular(x kql.Expr, e *env) (*rel, error) {
	t.depth++
	t.tabDepth++
	defer func() { t.depth--; t.tabDepth-- }()
	if t.depth > 100 {
		return nil, t.errAt(x, "query nesting too deep")
	}
	switch v := x.(type) {
	case *kql.Paren:
		return t.tabular(v.X, e)
	case *kql.PipeExpr:
		if v.Source == nil {
			return nil, t.unsupported(v, "a pipeline without a source here")
		}
		r, err := t.tabular(v.Source, e)
		if err != nil {
			return nil, err
		}
		t.sorted = false
		for i, op := range v.Ops {
			if j, ok := op.(*kql.JoinOp); ok {
				// Kusto pushes the filters that follow an innerunique join and read only
				// left columns into the left side, before its keys are made unique (the
				// join-innerunique page): the rows they keep are the ones deduplicated
				if r, err = t.pushLeftFilters(r, j, v.Ops[i+1:], e); err != nil {
					return nil, err
				}
			}
			name := r.name
			r, err = t.op(r, op, e)
			if err != nil {
				return nil, err
			}
			if r.name == "" && name != "" {
				// the rows of T | where ... still come from T for union withsource=
				r = r.named(name)
			}
		}
		return r, nil
	case *kql.Ident:
		return t.tableRef(v, e)
	case *kql.Member:
		// cluster("c").database("d").T and database("d").T read the local table T
		if c, ok := v.X.(*kql.Call); ok && (c.Name() == "database" || c.Name() == "cluster") {
			return t.tableRef(v.Name, e)
		}
		if b, c, path := patternCall(v, e); b != nil {
			return t.invokePattern(b, c, path, e)
		}
	case *kql.DatatableExpr:
		return t.datatable(v, e)
	case *kql.PrintOp:
		return t.print(v, e)
	case *kql.RangeOp:
		return t.rangeOp(v, e)
	case *kql.UnionOp:
		return t.union(nil, v, e)
	case *kql.Call:
		return t.tabularCall(v, e)
	case *kql.EvaluateOp:
		return nil, t.unsupported(v, "evaluate "+v.Plugin.Name())
	case *kql.SearchOp:
		return t.search(nil, v, e)
	case *kql.FindOp:
		return t.find(v, e)
	case *kql.ExternalDataExpr:
		return nil, t.unsupported(v, "externaldata")
	}
	return nil, t.errAt(x, "expected a tabular expression, found %s", kql.Format(x))
}

func (t *translator) tableRef(id *kql.Ident, e *env) (*rel, error) {
	if b := e.lookup(id.Name); b != nil {
		switch {
		case b.rel != nil:
			return b.rel.named(id.Name), nil
		case b.tab != nil:
			r, err := t.tabular(b.tab, b.tabEnv)
			if err != nil {
				return nil, err
			}
			b.rel = r
			return r.named(id.Name), nil
		case b.fn != nil:
			r, err := t.callTabularFunc(id, b, nil, e)
			if err != nil {
				return nil, err
			}
			return r.named(id.Name), nil
		}
		return nil, t.errAt(id, "%s is a scalar, not a table", id.Name)
	}
	if t.tables != nil {
		if r, ok := t.tables(id.Name); ok {
			return r.named(id.Name), nil
		}
	}
	return nil, t.errAt(id, "unknown table %q", id.Name)
}

func (t *translator) tabularCall(c *kql.Call, e *env) (*rel, error) {
	name := c.Name()
	switch name {
	case "materialize", "view":
		if len(c.Args) != 1 {
			return nil, t.errAt(c, "%s() takes one argument", name)
		}
		return t.tabular(c.Args[0], e)
	case "table":
		if len(c.Args) < 1 {
			return nil, t.errAt(c, "table() takes a table name")
		}
		if l, ok := c.Args[0].(*kql.Literal); ok && l.Kind == kql.LitString {
			return t.tableRef(&kql.Ident{Span: l.Span, Name: l.Value}, e)
		}
		// a name known when the query is translated: a function's string argument, a let
		if x, err := t.expr(c.Args[0], &scope{env: e}); err == nil && x.isLit {
			if name, ok := x.lit.(string); ok {
				return t.tableRef(&kql.Ident{Span: c.Span, Name: name}, e)
			}
		}
		return nil, t.unsupported(c, "table() with a computed name (a constant, a let or a function argument is read)")
	}
	if id, ok := c.Func.(*kql.Ident); ok {
		if b := e.lookup(id.Name); b != nil && b.fn != nil {
			return t.callTabularFunc(c, b, c.Args, e)
		}
	}
	if b, pc, _ := patternCall(c, e); b != nil {
		return t.invokePattern(b, pc, nil, e)
	}
	return nil, t.unsupported(c, "tabular function "+name+"()")
}

// callTabularFunc expands a user function whose body is tabular.
func (t *translator) callTabularFunc(at kql.Node, b *binding, args []kql.Expr, caller *env) (*rel, error) {
	inner, err := t.bindParams(at, b, args, &scope{env: caller})
	if err != nil {
		return nil, err
	}
	last, err := t.blockQuery(b.fn.Body, inner)
	if err != nil {
		return nil, err
	}
	if last == nil {
		return nil, t.errAt(at, "function has no result")
	}
	return t.tabularOrScalar(last, inner)
}

// blockQuery binds a block's let statements in e and returns its (last) query
// expression, nil when it has none.
func (t *translator) blockQuery(b *kql.Block, e *env) (kql.Expr, error) {
	var last kql.Expr
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *kql.LetStmt:
			if err := t.let(s, e); err != nil {
				return nil, err
			}
		case *kql.QueryStmt:
			last = s.Query
		}
	}
	return last, nil
}

// bindParams binds a user function's parameters to the call's arguments.
func (t *translator) bindParams(at kql.Node, b *binding, args []kql.Expr, sc *scope) (*env, error) {
	inner := b.fnEnv.child()
	params := b.fn.Params
	// named arguments (f(len=3, x)) bind by name, the others by position
	pos := 0
	assigned := map[string]bool{}
	for _, a := range args {
		if n, ok := a.(*kql.NamedExpr); ok && len(n.Names) == 1 {
			if err := t.bindParam(inner, params, n.Names[0].Name, n.Value, sc); err != nil {
				return nil, err
			}
			assigned[n.Names[0].Name] = true
			continue
		}
		for pos < len(params) && assigned[params[pos].Name.Name] {
			pos++
		}
		if pos >= len(params) {
			return nil, t.errAt(at, "too many arguments")
		}
		if err := t.bindParam(inner, params, params[pos].Name.Name, a, sc); err != nil {
			return nil, err
		}
		assigned[params[pos].Name.Name] = true
		pos++
	}
	for _, p := range params {
		if assigned[p.Name.Name] {
			continue
		}
		if p.Default == nil {
			if p.Type != nil && p.Type.Tabular {
				return nil, t.errAt(at, "missing tabular argument %s", p.Name.Name)
			}
			return nil, t.errAt(at, "missing argument %s", p.Name.Name)
		}
		x, err := t.expr(p.Default, &scope{env: b.fnEnv})
		if err != nil {
			return nil, err
		}
		inner.binds[p.Name.Name] = &binding{scalar: &x}
	}
	return inner, nil
}

func (t *translator) bindParam(inner *env, params []*kql.Param, name string, arg kql.Expr, sc *scope) error {
	var p *kql.Param
	for _, q := range params {
		if q.Name.Name == name {
			p = q
		}
	}
	if p == nil {
		return t.errAt(arg, "unknown parameter %s", name)
	}
	if p.Type != nil && p.Type.Tabular {
		r, err := t.tabular(arg, sc.env)
		if err != nil {
			return err
		}
		inner.binds[name] = &binding{rel: r}
		return nil
	}
	x, err := t.expr(arg, sc)
	if err != nil {
		return err
	}
	if p.Type != nil {
		if ty, ok := ParseType(p.Type.Name); ok && ty != x.t {
			x = coerce(x, ty)
		}
	}
	b := &binding{scalar: &x}
	if readsRow(arg, sc) {
		b.rowDepth = t.tabDepth + 1
	}
	inner.binds[name] = b
	return nil
}

// readsRow reports whether x reads a column of the scope's row.
func readsRow(x kql.Expr, sc *scope) bool {
	if len(sc.cols) == 0 {
		return false
	}
	found := false
	kql.Inspect(x, func(n kql.Node) bool {
		if id, ok := n.(*kql.Ident); ok {
			if _, isCol := sc.column(id.Name); isCol {
				found = true
			}
		}
		return !found
	})
	return found
}

func (t *translator) datatable(d *kql.DatatableExpr, e *env) (*rel, error) {
	cols := make([]column, len(d.Columns))
	for i, c := range d.Columns {
		ty, err := t.declType(c, c.Type, TString)
		if err != nil {
			return nil, err
		}
		cols[i] = column{c.Name.Name, ty}
	}
	if len(cols) == 0 {
		return nil, t.errAt(d, "datatable has no columns")
	}
	if len(d.Values)%len(cols) != 0 {
		return nil, t.errAt(d, "datatable has %d values, not a multiple of its %d columns", len(d.Values), len(cols))
	}
	sc := &scope{env: e}
	var b strings.Builder
	rows := len(d.Values) / len(cols)
	if rows == 0 {
		b.WriteString("SELECT ")
		for range cols {
			b.WriteString("NULL, ")
		}
		b.WriteString("0 WHERE 0")
		return t.stage(cols, b.String()), nil
	}
	b.WriteString("VALUES ")
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, c := range cols {
			x, err := t.expr(d.Values[r*len(cols)+i], sc)
			if err != nil {
				return nil, err
			}
			x = coerce(x, c.Type)
			b.WriteString(x.sql)
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(r))
		b.WriteByte(')')
	}
	return t.stage(cols, b.String()), nil
}

func (t *translator) print(p *kql.PrintOp, e *env) (*rel, error) {
	sc := &scope{env: e}
	var cols []column
	var sqls []string
	for i, it := range expandOutputs(p.Items, false) {
		names, val := itemParts(it)
		x, err := t.expr(val, sc)
		if err != nil {
			return nil, err
		}
		name := "print_" + strconv.Itoa(i)
		if len(names) > 0 {
			name = names[0]
		}
		cols = append(cols, column{name, x.t})
		sqls = append(sqls, x.sql)
	}
	cols = uniqueNames(cols)
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "0"), ", ")), nil
}

func (t *translator) rangeOp(r *kql.RangeOp, e *env) (*rel, error) {
	sc := &scope{env: e}
	from, err := t.expr(r.From, sc)
	if err != nil {
		return nil, err
	}
	to, err := t.expr(r.To, sc)
	if err != nil {
		return nil, err
	}
	step, err := t.expr(r.Step, sc)
	if err != nil {
		return nil, err
	}
	ty := from.t
	switch {
	case ty == TDatetime || ty == TTimespan:
		to = coerce(to, ty)
		step = coerce(step, TTimespan)
	case ty.numeric() || to.t.numeric() || step.t.numeric():
		ty = promote(promote(from.t, to.t), step.t)
		if ty == TInt {
			ty = TLong
		}
		from, to, step = coerce(from, ty), coerce(to, ty), coerce(step, ty)
	default:
		return nil, t.errAt(r, "range needs numbers, datetimes or timespans")
	}
	t.n++
	name := "s" + strconv.Itoa(t.n)
	// The recursion stops at the bound in either direction. A range longer than
	// maxRangeRows fails the query (rangeTooLong) rather than being cut short: a
	// truncated range would be a wrong answer, not a slow one.
	sel := "SELECT " + from.sql + ", 0 WHERE " + from.sql + " IS NOT NULL AND " + step.sql + " != 0 AND ((" + step.sql + " > 0 AND " + from.sql + " <= " + to.sql + ") OR (" + step.sql + " < 0 AND " + from.sql + " >= " + to.sql + "))" +
		" UNION ALL SELECT c0 + " + step.sql + ", _o + 1 FROM " + name +
		" WHERE ((" + step.sql + " > 0 AND c0 + " + step.sql + " <= " + to.sql + ") OR (" + step.sql + " < 0 AND c0 + " + step.sql + " >= " + to.sql + "))" +
		" AND (_o < " + strconv.Itoa(maxRangeRows-1) + " OR kf('" + rangeTooLong + "', 'b'))"
	t.ctes = append(t.ctes, name+"(c0,_o) AS ("+sel+")")
	return &rel{from: name, cols: []column{{r.Column.Name, ty}}}, nil
}

// itemParts splits a list item into its assigned names and value.
func itemParts(it kql.Expr) ([]string, kql.Expr) {
	if n, ok := it.(*kql.NamedExpr); ok {
		names := make([]string, len(n.Names))
		for i, id := range n.Names {
			names[i] = id.Name
		}
		return names, n.Value
	}
	return nil, it
}
