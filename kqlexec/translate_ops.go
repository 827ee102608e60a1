package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// inScope is the scope of a stage reading from r under the alias t.
func inScope(r *rel, e *env) *scope {
	return &scope{env: e, cols: r.cols, alias: "t", rowOrder: "t._o"}
}

// selectCols returns "t.c0, t.c1, ..." for every column of r.
func selectCols(r *rel) []string {
	out := make([]string, len(r.cols))
	for i := range r.cols {
		out[i] = "t." + colName(i)
	}
	return out
}

func (t *translator) op(in *rel, op kql.Operator, e *env) (*rel, error) {
	wasSorted := t.sorted
	t.sorted = false
	if in.graph != nil {
		switch o := op.(type) {
		case *kql.GraphToTableOp:
			return t.graphToTable(in, o, e)
		case *kql.SimpleOp:
			if o.Name == "graph-mark-components" {
				return t.graphMarkComponents(in, o)
			}
		case *kql.GraphMatchOp:
			return t.graphMatch(in, o, e)
		}
		return nil, t.errAt(op, "%s needs a table: a graph from make-graph goes to a graph operator (graph-to-table, graph-mark-components, graph-match)", op.OpName())
	}
	if t.part != "" {
		switch op.(type) {
		case *kql.WhereOp, *kql.ProjectOp, *kql.ExtendOp, *kql.ProjectAwayOp, *kql.ProjectRenameOp, *kql.SummarizeOp,
			*kql.CountOp, *kql.DistinctOp, *kql.SortOp, *kql.TopOp, *kql.TakeOp, *kql.MvExpandOp, *kql.ParseOp, *kql.SerializeOp,
			*kql.ScanOp:
		default:
			return nil, t.unsupported(op, op.OpName()+" inside mv-apply or partition")
		}
	}
	switch o := op.(type) {
	case *kql.MvApplyOp:
		return t.mvApply(in, o, e)
	case *kql.PartitionOp:
		return t.partition(in, o, e)
	case *kql.ScanOp:
		return t.scan(in, o, e)
	case *kql.TopNestedOp:
		return t.topNested(in, o, e)
	case *kql.TopHittersOp:
		return t.topHitters(in, o, e)
	case *kql.ReduceOp:
		return t.reduce(in, o, e)
	case *kql.ParseKvOp:
		return t.parseKv(in, o, e)
	case *kql.SearchOp:
		return t.search(in, o, e)
	case *kql.FacetOp:
		return t.facet(in, o, e)
	case *kql.ForkOp:
		// Kusto returns one table per branch; like a script of several statements, the
		// result here is the first, the primary one
		if len(o.Branches) == 0 || o.Branches[0].Body == nil {
			return nil, t.errAt(o, "fork needs a subquery in parentheses")
		}
		r := in
		for _, op := range o.Branches[0].Body.Ops {
			var err error
			if r, err = t.op(r, op, e); err != nil {
				return nil, err
			}
		}
		return r, nil
	case *kql.WhereOp:
		if o.Name != "where" && o.Name != "filter" {
			return nil, t.unsupported(o, o.Name)
		}
		t.sorted = wasSorted
		return t.where(in, o, e)
	case *kql.ProjectOp:
		if o.Name == "project-by-names" {
			t.sorted = wasSorted
			return t.projectByNames(in, o, e)
		}
		if o.Name != "project" {
			return nil, t.unsupported(o, o.Name)
		}
		t.sorted = wasSorted
		return t.project(in, o.Items, e, false)
	case *kql.ExtendOp:
		t.sorted = wasSorted
		return t.tabularExtend(in, o.Items, e)
	case *kql.ProjectAwayOp:
		t.sorted = wasSorted
		return t.projectAway(in, o)
	case *kql.ProjectRenameOp:
		t.sorted = wasSorted
		return t.projectRename(in, o)
	case *kql.ProjectReorderOp:
		t.sorted = wasSorted
		return t.projectReorder(in, o)
	case *kql.SummarizeOp:
		return t.summarize(in, o, e)
	case *kql.CountOp:
		name := "Count"
		if o.As != nil {
			name = o.As.Name
		}
		if t.part != "" {
			g := in.index(t.part)
			return t.stage([]column{in.cols[g], {name, TLong}}, "SELECT t."+colName(g)+", count(*), min(t._o) FROM "+in.from+" t GROUP BY t."+colName(g)), nil
		}
		return t.stage([]column{{name, TLong}}, "SELECT count(*), 0 FROM "+in.from), nil
	case *kql.DistinctOp:
		return t.distinct(in, o, e)
	case *kql.SortOp:
		r, err := t.sort(in, o.Terms, e, "")
		t.sorted = err == nil
		return r, err
	case *kql.TopOp:
		n, err := t.countExpr(o.Count, e)
		if err != nil {
			return nil, err
		}
		r, err := t.sort(in, o.Terms, e, n)
		t.sorted = err == nil
		return r, err
	case *kql.TakeOp:
		n, err := t.countExpr(o.Count, e)
		if err != nil {
			return nil, err
		}
		t.sorted = wasSorted
		if t.part != "" {
			return t.partLimit(in, "t._o", n), nil
		}
		return t.stage(in.cols, "SELECT "+strings.Join(append(selectCols(in), "t._o"), ", ")+" FROM "+in.from+" t ORDER BY t._o LIMIT "+n), nil
	case *kql.JoinOp:
		return t.join(in, o, e)
	case *kql.LookupOp:
		return t.lookup(in, o, e)
	case *kql.UnionOp:
		return t.union(in, o, e)
	case *kql.MvExpandOp:
		return t.mvExpand(in, o, e)
	case *kql.ParseOp:
		t.sorted = wasSorted
		return t.parse(in, o, e)
	case *kql.AsOp:
		in = in.named(o.Name.Name)
		e.binds[o.Name.Name] = &binding{rel: in}
		t.sorted = wasSorted
		return in, nil
	case *kql.RenderOp:
		t.sorted = wasSorted
		return in, nil
	case *kql.SerializeOp:
		t.sorted = wasSorted
		if len(o.Items) == 0 {
			return in, nil
		}
		return t.project(in, o.Items, e, true)
	case *kql.SimpleOp:
		switch o.Name {
		case "graph-mark-components":
			return nil, t.errAt(op, "graph-mark-components reads a graph: build one with make-graph first")
		case "getschema":
			return t.getschema(in)
		case "consume":
			return t.stage(nil, "SELECT 0 WHERE 0"), nil
		}
		return nil, t.unsupported(o, o.Name)
	case *kql.MakeSeriesOp:
		return t.makeSeries(in, o, e)
	case *kql.MakeGraphOp:
		return t.makeGraph(in, o, e)
	case *kql.GraphToTableOp, *kql.GraphMatchOp:
		return nil, t.errAt(op, "%s reads a graph: build one with make-graph first", op.OpName())
	case *kql.InvokeOp:
		return t.invoke(in, o, e)
	case *kql.SampleOp:
		return nil, t.unsupported(o, "sample (its rows are random)")
	case *kql.EvaluateOp:
		switch o.Plugin.Name() {
		case "bag_unpack":
			return t.bagUnpack(in, o, e)
		case "ipv4_lookup", "ipv6_lookup":
			return t.ipLookup(in, o, e)
		case "geo_polygon_lookup", "geo_line_lookup":
			return t.geoLookup(in, o, e)
		case "narrow":
			return t.narrow(in, o)
		case "rows_near":
			return t.rowsNear(in, o, e)
		case "dcount_intersect":
			return t.dcountIntersect(in, o, e)
		case "rolling_percentile":
			return t.rollingPercentile(in, o, e)
		case "activity_counts_metrics":
			return t.activityCountsMetrics(in, o, e)
		case "sliding_window_counts":
			return t.slidingWindowCounts(in, o, e)
		case "session_count":
			return t.sessionCount(in, o, e)
		case "active_users_count":
			return t.activeUsersCount(in, o, e)
		case "activity_engagement":
			return t.activityEngagement(in, o, e)
		case "activity_metrics":
			return t.activityMetrics(in, o, e)
		case "new_activity_metrics":
			return t.newActivityMetrics(in, o, e)
		case "pivot":
			return t.pivot(in, o, e)
		case "schema_merge":
			return t.schemaMerge(in, o, e)
		}
		return nil, t.unsupported(o, "evaluate "+o.Plugin.Name())
	}
	return nil, t.unsupported(op, op.OpName())
}

// countExpr translates the row count of take/top/limit to SQL.
func (t *translator) countExpr(x kql.Expr, e *env) (string, error) {
	c, err := t.expr(x, &scope{env: e})
	if err != nil {
		return "", err
	}
	return coerce(c, TLong).sql, nil
}

func (t *translator) where(in *rel, o *kql.WhereOp, e *env) (*rel, error) {
	sc := inScope(in, e)
	p, err := t.boolExpr(o.Pred, sc)
	if err != nil {
		return nil, err
	}
	return t.stage(in.cols, "SELECT "+strings.Join(append(selectCols(in), "t._o"), ", ")+" FROM "+in.from+" t WHERE "+p.sql), nil
}

// project translates project (extend=false) and extend (extend=true). Items may use
// the columns defined by the items before them.
func (t *translator) project(in *rel, items []kql.Expr, e *env, extend bool) (*rel, error) {
	sc := inScope(in, e)
	sc.vars = map[string]expr{}
	sc.pre = &helpers{}
	var cols []column
	var sqls []string
	if extend {
		cols = append(cols, in.cols...)
		sqls = selectCols(in)
	} else if t.part != "" {
		if g := in.index(t.part); g >= 0 {
			cols = append(cols, in.cols[g])
			sqls = append(sqls, sc.ref(g))
		}
	}
	auto := 0
	for _, it := range expandOutputs(items, extend) {
		names, val := itemParts(it)
		if len(names) > 1 {
			x, err := t.expr(val, sc)
			if err != nil {
				return nil, err
			}
			return nil, t.unsupported(it, "assigning several names from "+kql.Format(val)+" ("+string(x.t)+")")
		}
		if st, ok := val.(*kql.Star); ok && !extend {
			_ = st
			for i, c := range in.cols {
				cols, sqls = setCol(cols, sqls, c, sc.ref(i))
			}
			continue
		}
		if id, ok := val.(*kql.Ident); ok && !extend && len(names) == 0 && strings.ContainsRune(id.Name, '*') {
			for i, c := range in.cols {
				if nameMatch(id.Name, c.Name) {
					cols, sqls = setCol(cols, sqls, c, sc.ref(i))
				}
			}
			continue
		}
		x, err := t.expr(val, sc)
		if err != nil {
			return nil, err
		}
		name := ""
		if len(names) == 1 {
			name = names[0]
		} else if name = autoName(val); name == "" {
			auto++
			name = "Column" + strconv.Itoa(auto)
			for hasCol(cols, name) {
				auto++
				name = "Column" + strconv.Itoa(auto)
			}
		} else if !extend && hasCol(cols, name) {
			// project x, x or project round(y), sqrt(y): a name a column already has
			// gets a number (x1), where extend would replace the column
			for k := 1; ; k++ {
				if n := name + strconv.Itoa(k); !hasCol(cols, n) {
					name = n
					break
				}
			}
		}
		cols, sqls = setCol(cols, sqls, column{name, x.t}, x.sql)
		if len(names) == 1 {
			// a later item reads a name assigned here (extend a = 1, b = a + 1); a
			// name taken from the expression (round(y) is y) does not hide the column
			sc.vars[name] = expr{sql: "(" + x.sql + ")", t: x.t}
		}
	}
	from, r := t.staged(in, sc.pre)
	return t.stage(cols, r.Replace("SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+from.from+" t")), nil
}

func hasCol(cols []column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// setCol sets a named output column, replacing one of the same name in place.
func setCol(cols []column, sqls []string, c column, sql string) ([]column, []string) {
	for i := range cols {
		if cols[i].Name == c.Name {
			cols[i] = c
			sqls[i] = sql
			return cols, sqls
		}
	}
	return append(cols, c), append(sqls, sql)
}

func (t *translator) projectAway(in *rel, o *kql.ProjectAwayOp) (*rel, error) {
	keep := o.Name == "project-keep"
	var cols []column
	var sqls []string
	for i, c := range in.cols {
		m := false
		for _, p := range o.Columns {
			id, ok := p.(*kql.Ident)
			if !ok {
				return nil, t.unsupported(p, o.Name+" of an expression")
			}
			if nameMatch(id.Name, c.Name) {
				m = true
			}
		}
		if m == keep {
			cols = append(cols, c)
			sqls = append(sqls, "t."+colName(i))
		}
	}
	for _, p := range o.Columns {
		id := p.(*kql.Ident)
		if !strings.ContainsRune(id.Name, '*') && in.index(id.Name) < 0 {
			return nil, t.errAt(id, "unknown column %q", id.Name)
		}
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

func (t *translator) projectRename(in *rel, o *kql.ProjectRenameOp) (*rel, error) {
	cols := append([]column(nil), in.cols...)
	for _, it := range o.Items {
		id, ok := it.Value.(*kql.Ident)
		if !ok || len(it.Names) != 1 {
			return nil, t.errAt(it, "project-rename takes NewName = OldName")
		}
		i := in.index(id.Name)
		if i < 0 {
			return nil, t.errAt(id, "unknown column %q", id.Name)
		}
		cols[i].Name = it.Names[0].Name
	}
	return &rel{from: in.from, cols: cols}, nil
}

func (t *translator) projectReorder(in *rel, o *kql.ProjectReorderOp) (*rel, error) {
	used := make([]bool, len(in.cols))
	var cols []column
	var sqls []string
	for _, term := range o.Items {
		id, ok := term.X.(*kql.Ident)
		if !ok {
			return nil, t.errAt(term, "project-reorder takes column names")
		}
		var idx []int
		for i, c := range in.cols {
			if !used[i] && nameMatch(id.Name, c.Name) {
				idx = append(idx, i)
			}
		}
		if strings.HasPrefix(term.Order, "asc") || strings.HasPrefix(term.Order, "granny-asc") {
			sortIdx(idx, in.cols, false)
		} else if strings.HasPrefix(term.Order, "desc") || strings.HasPrefix(term.Order, "granny-desc") {
			sortIdx(idx, in.cols, true)
		}
		for _, i := range idx {
			used[i] = true
			cols = append(cols, in.cols[i])
			sqls = append(sqls, "t."+colName(i))
		}
	}
	for i, c := range in.cols {
		if !used[i] {
			cols = append(cols, c)
			sqls = append(sqls, "t."+colName(i))
		}
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

func sortIdx(idx []int, cols []column, desc bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0; j-- {
			a, b := cols[idx[j-1]].Name, cols[idx[j]].Name
			if (a > b) != desc && a != b {
				idx[j-1], idx[j] = idx[j], idx[j-1]
			}
		}
	}
}

func (t *translator) distinct(in *rel, o *kql.DistinctOp, e *env) (*rel, error) {
	if len(o.Items) == 1 {
		if _, ok := o.Items[0].(*kql.Star); ok {
			s := selectCols(in)
			if len(s) == 0 {
				return in, nil
			}
			return t.stage(in.cols, "SELECT "+strings.Join(s, ", ")+", min(t._o) FROM "+in.from+" t GROUP BY "+strings.Join(s, ", ")), nil
		}
	}
	return t.summarize(in, &kql.SummarizeOp{OpBase: o.OpBase, By: o.Items}, e)
}

// sort orders the rows; limit (SQL text) keeps only the first rows, for top.
func (t *translator) sort(in *rel, terms []*kql.SortTerm, e *env, limit string) (*rel, error) {
	sc := inScope(in, e)
	var keys []string
	for _, term := range terms {
		x, err := t.expr(term.X, sc)
		if err != nil {
			return nil, err
		}
		desc := !strings.EqualFold(term.Order, "asc")
		nullsFirst := !desc
		switch strings.ToLower(term.Nulls) {
		case "first":
			nullsFirst = true
		case "last":
			nullsFirst = false
		}
		if x.t == TReal && !x.isLit {
			// the sort page: null and NaN always sit together, NaN on the numbers'
			// side of null (a NaN is the text 'NaN', which SQLite puts after every
			// number ascending and before them descending)
			null, nan, num := "0", "1", "2"
			if !nullsFirst {
				null, num = "2", "0"
			}
			keys = append(keys, "CASE WHEN "+x.sql+" IS NULL THEN "+null+" WHEN typeof("+x.sql+") = 'text' THEN "+nan+" ELSE "+num+" END")
		}
		k := x.sql
		if desc {
			k += " DESC"
		} else {
			k += " ASC"
		}
		if nullsFirst {
			k += " NULLS FIRST"
		} else {
			k += " NULLS LAST"
		}
		keys = append(keys, k)
	}
	keys = append(keys, "t._o")
	if t.part != "" {
		if limit == "" {
			limit = "-1"
		}
		return t.partLimit(in, strings.Join(keys, ", "), limit), nil
	}
	sel := "SELECT " + strings.Join(append(selectCols(in), "row_number() OVER (ORDER BY "+strings.Join(keys, ", ")+") AS _rn"), ", ") + " FROM " + in.from + " t"
	if limit != "" {
		sel += " ORDER BY _rn LIMIT " + limit
	}
	return t.stage(in.cols, sel), nil
}

func (t *translator) getschema(in *rel) (*rel, error) {
	cols := []column{{"ColumnName", TString}, {"ColumnOrdinal", TInt}, {"DataType", TString}, {"ColumnType", TString}}
	if len(in.cols) == 0 {
		return t.stage(cols, "SELECT NULL, NULL, NULL, NULL, 0 WHERE 0"), nil
	}
	var rows []string
	for i, c := range in.cols {
		rows = append(rows, "("+quote(c.Name)+", "+strconv.Itoa(i)+", "+quote("System."+dotNetFull(c.Type))+", "+quote(string(c.Type))+", "+strconv.Itoa(i)+")")
	}
	return t.stage(cols, "VALUES "+strings.Join(rows, ", ")), nil
}

func dotNetFull(t Type) string {
	switch t {
	case TBool:
		return "Boolean"
	case TDecimal:
		return "Data.SqlTypes.SqlDecimal"
	}
	return DotNetName(t)
}

func (t *translator) invoke(in *rel, o *kql.InvokeOp, e *env) (*rel, error) {
	c, ok := o.Call.(*kql.Call)
	if !ok {
		return nil, t.errAt(o, "invoke takes a function call")
	}
	id, ok := c.Func.(*kql.Ident)
	if !ok {
		return nil, t.unsupported(o, "invoke of "+kql.Format(c.Func))
	}
	b := e.lookup(id.Name)
	if b == nil || b.fn == nil {
		return nil, t.errAt(id, "unknown function %q", id.Name)
	}
	if len(b.fn.Params) == 0 || b.fn.Params[0].Type == nil || !b.fn.Params[0].Type.Tabular {
		return nil, t.errAt(o, "function %s has no tabular first parameter", id.Name)
	}
	sub := e.child()
	sub.binds["__invoke_input"] = &binding{rel: in}
	args := append([]kql.Expr{&kql.Ident{Span: c.Span, Name: "__invoke_input"}}, c.Args...)
	return t.callTabularFunc(c, b, args, sub)
}

// partLimit keeps the first n rows (all when n is -1) of each mv-apply group in the
// given order.
func (t *translator) partLimit(in *rel, order, n string) *rel {
	g := "t." + colName(in.index(t.part))
	var inner, outer []string
	for i := range in.cols {
		inner = append(inner, "t."+colName(i)+" AS "+colName(i))
		outer = append(outer, colName(i))
	}
	sel := "SELECT " + strings.Join(append(outer, "row_number() OVER (ORDER BY _g, _rn)"), ", ") +
		" FROM (SELECT " + strings.Join(append(inner, g+" AS _g", "row_number() OVER (PARTITION BY "+g+" ORDER BY "+order+") AS _rn"), ", ") +
		" FROM " + in.from + " t)"
	if n != "-1" {
		sel += " WHERE _rn <= " + n
	}
	return t.stage(in.cols, sel)
}
