package kqlexec

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
)

// joinKeys reads a join's on clause as pairs of left and right column indexes.
func (t *translator) joinKeys(on []kql.Expr, l, r *rel) ([][2]int, error) {
	var keys [][2]int
	var add func(x kql.Expr) error
	add = func(x kql.Expr) error {
		switch v := x.(type) {
		case *kql.Paren:
			return add(v.X)
		case *kql.Ident:
			li, ri := l.index(v.Name), r.index(v.Name)
			if li < 0 || ri < 0 {
				return t.errAt(v, "join key %q must be a column of both sides", v.Name)
			}
			keys = append(keys, [2]int{li, ri})
			return nil
		case *kql.Binary:
			switch strings.ToLower(v.Op) {
			case "and":
				if err := add(v.Left); err != nil {
					return err
				}
				return add(v.Right)
			case "==":
				a, sa, err := t.sideCol(v.Left, l, r)
				if err != nil {
					return err
				}
				b, sb, err := t.sideCol(v.Right, l, r)
				if err != nil {
					return err
				}
				switch {
				case sa == "$left" && sb == "$right":
					keys = append(keys, [2]int{a, b})
				case sa == "$right" && sb == "$left":
					keys = append(keys, [2]int{b, a})
				default:
					return t.errAt(v, "a join condition compares $left.X with $right.Y")
				}
				return nil
			}
		}
		return t.unsupported(x, "join condition "+kql.Format(x))
	}
	for _, x := range on {
		if err := add(x); err != nil {
			return nil, err
		}
	}
	if len(keys) == 0 {
		return nil, t.errAt(nil, "join has no on clause")
	}
	return keys, nil
}

func (t *translator) sideCol(x kql.Expr, l, r *rel) (int, string, error) {
	m, ok := x.(*kql.Member)
	if !ok {
		return 0, "", t.unsupported(x, "join key "+kql.Format(x))
	}
	id, ok := m.X.(*kql.Ident)
	if !ok || (id.Name != "$left" && id.Name != "$right") {
		return 0, "", t.unsupported(x, "join key "+kql.Format(x))
	}
	side := l
	if id.Name == "$right" {
		side = r
	}
	i := side.index(m.Name.Name)
	if i < 0 {
		return 0, "", t.errAt(m, "unknown column %q on the %s side", m.Name.Name, strings.TrimPrefix(id.Name, "$"))
	}
	return i, id.Name, nil
}

// joinCols returns the output columns of left followed by right, right names that
// clash renamed with a number suffix, as Kusto does.
func joinCols(l, r []column) []column {
	out := append([]column(nil), l...)
	for _, c := range r {
		name := c.Name
		if hasCol(out, name) {
			for k := 1; ; k++ {
				n := name + strconv.Itoa(k)
				if !hasCol(out, n) {
					name = n
					break
				}
			}
		}
		out = append(out, column{name, c.Type})
	}
	return out
}

func (t *translator) join(in *rel, o *kql.JoinOp, e *env) (*rel, error) {
	kind := strings.ToLower(o.Kind())
	if kind == "" {
		kind = "innerunique"
	}
	right, err := t.tabular(o.Right, e)
	if err != nil {
		return nil, err
	}
	keys, err := t.joinKeys(o.On, in, right)
	if err != nil {
		return nil, err
	}
	// both sides computed once: SQLite would otherwise inline a side and, unable to
	// index a key it computes (x % 10 read through a function), compute that side
	// again for every row of the other (a join of two 1,000-row ranges took seconds)
	t.materialize(in)
	t.materialize(right)
	var conds []string
	for _, k := range keys {
		conds = append(conds, "l."+colName(k[0])+" = r."+colName(k[1]))
	}
	cond := strings.Join(conds, " AND ")
	lsel := func(nullable bool) []string {
		out := make([]string, len(in.cols))
		for i, c := range in.cols {
			out[i] = nullSafe("l."+colName(i), c.Type, nullable)
		}
		return out
	}
	rsel := func(nullable bool) []string {
		out := make([]string, len(right.cols))
		for i, c := range right.cols {
			out[i] = nullSafe("r."+colName(i), c.Type, nullable)
		}
		return out
	}
	left := in.from
	switch kind {
	case "innerunique":
		var part []string
		for _, k := range keys {
			part = append(part, colName(k[0]))
		}
		left = "(SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY " + strings.Join(part, ", ") + " ORDER BY _o) AS _k FROM " + in.from + ") WHERE _k = 1)"
		fallthrough
	case "inner":
		cols := joinCols(in.cols, right.cols)
		sel := "SELECT " + strings.Join(append(append(lsel(false), rsel(false)...), "row_number() OVER (ORDER BY l._o, r._o)"), ", ") +
			" FROM " + left + " l JOIN " + right.from + " r ON " + cond
		return t.stage(cols, sel), nil
	case "leftouter", "rightouter", "fullouter":
		cols := joinCols(in.cols, right.cols)
		j := map[string]string{"leftouter": "LEFT", "rightouter": "RIGHT", "fullouter": "FULL"}[kind]
		sel := "SELECT " + strings.Join(append(append(lsel(kind != "leftouter"), rsel(kind != "rightouter")...), "row_number() OVER (ORDER BY l._o NULLS LAST, r._o)"), ", ") +
			" FROM " + in.from + " l " + j + " JOIN " + right.from + " r ON " + cond
		return t.stage(cols, sel), nil
	case "leftsemi", "leftanti", "anti", "leftantisemi":
		not := ""
		if kind != "leftsemi" {
			not = "NOT "
		}
		sel := "SELECT " + strings.Join(append(lsel(false), "l._o"), ", ") + " FROM " + in.from + " l WHERE " + not + "EXISTS (SELECT 1 FROM " + right.from + " r WHERE " + cond + ")"
		return t.stage(in.cols, sel), nil
	case "rightsemi", "rightanti", "rightantisemi":
		not := ""
		if kind != "rightsemi" {
			not = "NOT "
		}
		sel := "SELECT " + strings.Join(append(rsel(false), "r._o"), ", ") + " FROM " + right.from + " r WHERE " + not + "EXISTS (SELECT 1 FROM " + in.from + " l WHERE " + cond + ")"
		return t.stage(right.cols, sel), nil
	}
	return nil, t.unsupported(o, "join kind="+kind)
}

// nullSafe keeps string columns non-null on the nullable side of an outer join.
func nullSafe(sql string, ty Type, nullable bool) string {
	if nullable && ty == TString {
		return "coalesce(" + sql + ", '')"
	}
	return sql
}

func (t *translator) lookup(in *rel, o *kql.LookupOp, e *env) (*rel, error) {
	kind := "leftouter"
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
	}
	right, err := t.tabular(o.Right, e)
	if err != nil {
		return nil, err
	}
	keys, err := t.joinKeys(o.On, in, right)
	if err != nil {
		return nil, err
	}
	var conds []string
	isKey := map[int]bool{}
	for _, k := range keys {
		conds = append(conds, "l."+colName(k[0])+" = r."+colName(k[1]))
		isKey[k[1]] = true
	}
	var rcols []column
	var sqls []string
	for i, c := range in.cols {
		sqls = append(sqls, "l."+colName(i))
		_ = c
	}
	for i, c := range right.cols {
		if isKey[i] {
			continue
		}
		rcols = append(rcols, c)
		sqls = append(sqls, nullSafe("r."+colName(i), c.Type, kind == "leftouter"))
	}
	cols := joinCols(in.cols, rcols)
	j := "LEFT JOIN"
	if kind == "inner" {
		j = "JOIN"
	}
	// computed once, as join's sides are
	t.materialize(in)
	t.materialize(right)
	sel := "SELECT " + strings.Join(append(sqls, "row_number() OVER (ORDER BY l._o, r._o)"), ", ") + " FROM " + in.from + " l " + j + " " + right.from + " r ON " + strings.Join(conds, " AND ")
	return t.stage(cols, sel), nil
}

// union combines tables by column name; a column whose type differs between the
// inputs becomes one column per type, named name_type, as in Kusto.
func (t *translator) union(in *rel, o *kql.UnionOp, e *env) (*rel, error) {
	var inputs []*rel
	var names []string
	if in != nil {
		inputs = append(inputs, in)
		names = append(names, in.name)
	}
	var tables []kql.Expr
	for _, x := range o.Tables {
		if id, ok := x.(*kql.Ident); ok && strings.ContainsRune(id.Name, '*') {
			matched := t.wildcardTables(id, e)
			if len(matched) == 0 && len(o.Tables) == 1 && in == nil {
				return nil, t.errAt(id, "no table or view matches %s", id.Name)
			}
			tables = append(tables, matched...)
			continue
		}
		tables = append(tables, x)
	}
	fuzzy := false
	if fz, ok := o.Param("isfuzzy").(*kql.Literal); ok && fz.Value == "true" {
		fuzzy = true
	}
	for _, x := range tables {
		r, err := t.tabular(x, e)
		if err != nil {
			// isfuzzy (the union page) leaves out the legs whose table does not
			// resolve; other failures of a leg are not suppressed
			if fuzzy && strings.HasPrefix(qeval.ErrorMessage(err), "unknown table") {
				continue
			}
			return nil, err
		}
		inputs = append(inputs, r)
		names = append(names, r.name)
	}
	if len(inputs) == 0 {
		return nil, t.errAt(o, "union: none of its tables could be resolved")
	}
	kind := "outer"
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
	}
	types := map[string][]Type{}
	var order []string
	for _, r := range inputs {
		for _, c := range r.cols {
			if _, ok := types[c.Name]; !ok {
				order = append(order, c.Name)
			}
			found := false
			for _, ty := range types[c.Name] {
				found = found || ty == c.Type
			}
			if !found {
				types[c.Name] = append(types[c.Name], c.Type)
			}
		}
	}
	var outs []unionCol
	hasOut := func(outs []unionCol, name string) bool {
		for _, o := range outs {
			if o.name == name {
				return true
			}
		}
		return false
	}
	for _, n := range order {
		ts := types[n]
		if kind == "inner" {
			inAll := true
			for _, r := range inputs {
				inAll = inAll && r.index(n) >= 0
			}
			if !inAll {
				continue
			}
		}
		if len(ts) == 1 {
			outs = append(outs, unionCol{n, n, ts[0]})
			continue
		}
		for _, ty := range ts {
			// a name made from the type that some input already has gets a number
			name := n + "_" + string(ty)
			if _, taken := types[name]; taken || hasOut(outs, name) {
				for k := 1; ; k++ {
					c := name + strconv.Itoa(k)
					if _, taken := types[c]; !taken && !hasOut(outs, c) {
						name = c
						break
					}
				}
			}
			outs = append(outs, unionCol{name, n, ty})
		}
	}
	var cols []column
	if ws, ok := o.Param("withsource").(*kql.Ident); ok {
		cols = append(cols, column{ws.Name, TString})
	}
	for _, oc := range outs {
		cols = append(cols, column{oc.name, oc.ty})
	}
	var parts []string
	for k, r := range inputs {
		var sel []string
		if len(cols) > len(outs) {
			name := names[k]
			if name == "" {
				// a leg with no table name is named by its place, as in Kusto
				name = "union_arg" + strconv.Itoa(k)
			}
			sel = append(sel, quote(name))
		}
		for _, oc := range outs {
			i := r.index(oc.src)
			switch {
			case i >= 0 && r.cols[i].Type == oc.ty:
				sel = append(sel, colName(i))
			case oc.ty == TString:
				sel = append(sel, "''")
			default:
				sel = append(sel, "NULL")
			}
		}
		for i := range sel {
			if k == 0 {
				sel[i] += " AS " + colName(i)
			}
		}
		parts = append(parts, "SELECT "+strings.Join(append(sel, strconv.Itoa(k)+" AS _src", "_o AS _o2"), ", ")+" FROM "+r.from)
	}
	var outSel []string
	for i := range cols {
		outSel = append(outSel, colName(i))
	}
	sel := "SELECT " + strings.Join(append(outSel, "row_number() OVER (ORDER BY _src, _o2)"), ", ") + " FROM (" + strings.Join(parts, " UNION ALL ") + ")"
	return t.stage(cols, sel), nil
}

// unionCol is an output column of union: its name, the input column it reads and its
// type.
type unionCol struct {
	name string
	src  string
	ty   Type
}

// wildcardTables are the tables and views (let v = view () {…}) whose names match a
// wildcard name (union T*, union *): views in the order they were declared, then
// tables in load order. Other let bindings are not tables, as in Kusto.
func (t *translator) wildcardTables(id *kql.Ident, e *env) []kql.Expr {
	re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(id.Name), `\*`, ".*") + "$")
	var out []kql.Expr
	seen := map[string]bool{}
	var views []string
	for s := e; s != nil; s = s.parent {
		for name, b := range s.binds {
			if b.fn != nil && b.fn.View && len(b.fn.Params) == 0 && re.MatchString(name) && !seen[name] {
				seen[name] = true
				views = append(views, name)
			}
		}
	}
	sort.Strings(views)
	for _, n := range views {
		out = append(out, &kql.Ident{Span: id.Span, Name: n})
	}
	if t.tableNames != nil {
		for _, n := range t.tableNames() {
			if re.MatchString(n) && !seen[n] {
				seen[n] = true
				out = append(out, &kql.Ident{Span: id.Span, Name: n})
			}
		}
	}
	return out
}

// pushLeftFilters applies to in, the left side of an innerunique join, the where
// operators that directly follow the join and read only columns of in (and let
// bindings) with functions that do not depend on row order; the filters still run
// after the join, where they then keep every row.
func (t *translator) pushLeftFilters(in *rel, j *kql.JoinOp, rest []kql.Operator, e *env) (*rel, error) {
	if k := strings.ToLower(j.Kind()); k != "" && k != "innerunique" {
		return in, nil
	}
	out := in
	for _, op := range rest {
		w, ok := op.(*kql.WhereOp)
		if !ok || !t.readsOnly(w.Pred, in, e) {
			break
		}
		r, err := t.op(out, w, e)
		if err != nil {
			return nil, err
		}
		out = r
	}
	return out, nil
}

// rowOrderFuncs read other rows or the row order: a filter that calls them cannot
// move before a join.
var rowOrderFuncs = map[string]bool{"row_number": true, "prev": true, "next": true, "row_cumsum": true,
	"row_rank_dense": true, "row_rank_min": true, "row_window_session": true, "toscalar": true}

// readsOnly reports whether x reads no column but those of r, no table, and calls no
// function that depends on the row order or draws random values.
func (t *translator) readsOnly(x kql.Expr, r *rel, e *env) bool {
	ok := true
	skip := map[kql.Node]bool{}
	kql.Inspect(x, func(n kql.Node) bool {
		if !ok || skip[n] {
			return false
		}
		switch v := n.(type) {
		case *kql.PipeExpr, kql.Operator, *kql.FuncDef:
			ok = false
		case *kql.Call:
			name := strings.ToLower(v.Name())
			if rowOrderFuncs[name] || isVolatile(name) {
				ok = false
			}
			if id, isID := v.Func.(*kql.Ident); isID {
				if b := e.lookup(id.Name); b != nil && b.fn != nil {
					ok = false // a user function may read anything
				}
			}
			skip[v.Func] = true
		case *kql.Member:
			skip[v.Name] = true
		case *kql.Ident:
			if r.index(v.Name) >= 0 {
				return true
			}
			if b := e.lookup(v.Name); b == nil || b.scalar == nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}
