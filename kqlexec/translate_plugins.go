package kqlexec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// bagUnpack translates evaluate bag_unpack(Col [, Prefix] [, columnsConflict] [,
// ignoredProperties]): one column per property found in the data (sorted by name),
// typed by the JSON values it holds. The properties are read from the data while
// translating (a probe query over the stages so far).
func (t *translator) bagUnpack(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	if len(args) == 0 {
		return nil, t.errAt(o, "bag_unpack() needs a dynamic column")
	}
	sc := inScope(in, e)
	prefix, conflict := "", "error"
	var ignored map[string]bool
	var colArg kql.Expr
	pos := 0
	for _, a := range args {
		if n, ok := a.(*kql.NamedExpr); ok && len(n.Names) == 1 {
			x, err := t.expr(n.Value, sc)
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(n.Names[0].Name) {
			case "column_prefix", "outputcolumnprefix":
				prefix = toString(x.lit)
			case "columnsconflict":
				conflict = toString(x.lit)
			case "ignoredproperties":
				ignored = stringSet(x.lit)
			default:
				return nil, t.unsupported(a, "bag_unpack parameter "+n.Names[0].Name)
			}
			continue
		}
		switch pos {
		case 0:
			colArg = a
		case 1, 2, 3:
			x, err := t.expr(a, sc)
			if err != nil {
				return nil, err
			}
			switch pos {
			case 1:
				prefix = toString(x.lit)
			case 2:
				conflict = toString(x.lit)
			case 3:
				ignored = stringSet(x.lit)
			}
		}
		pos++
	}
	id, ok := colArg.(*kql.Ident)
	if !ok || in.index(id.Name) < 0 {
		return nil, t.errAt(colArg, "bag_unpack() needs a dynamic column of the input")
	}
	ci := in.index(id.Name)
	if o.Schema != nil {
		return t.bagUnpackSchema(in, o, ci, prefix)
	}
	if t.probe == nil {
		return nil, t.unsupported(o, "bag_unpack without an engine")
	}
	// SQLite's json_each gives each property's key and JSON type.
	q := "SELECT j.key, group_concat(DISTINCT j.type) FROM " + in.from + " t, json_each(t." + colName(ci) + ") j " +
		"WHERE json_type(t." + colName(ci) + ") = 'object' GROUP BY j.key"
	if len(t.ctes) > 0 {
		q = "WITH RECURSIVE " + strings.Join(t.ctes, ",\n") + "\n" + q
	}
	rows, err := t.probe(q)
	if err != nil {
		return nil, err
	}
	type prop struct {
		key string
		ty  Type
	}
	var props []prop
	for _, r := range rows {
		k := toString(decode(r[0], TString))
		if ignored[k] {
			continue
		}
		props = append(props, prop{k, jsonTypesToKQL(toString(decode(r[1], TString)))})
	}
	sort.Slice(props, func(i, j int) bool { return props[i].key < props[j].key })
	var cols []column
	var sqls []string
	for i, c := range in.cols {
		if i == ci {
			continue
		}
		cols = append(cols, c)
		sqls = append(sqls, "t."+colName(i))
	}
	for _, p := range props {
		name := prefix + p.key
		v := coerce(call("getprop", TDynamic, expr{sql: "t." + colName(ci), t: TDynamic}, lit(p.key, TString)), p.ty)
		if hasCol(cols, name) {
			switch strings.ToLower(conflict) {
			case "replace_source":
				cols, sqls = setCol(cols, sqls, column{name, p.ty}, v.sql)
				continue
			case "keep_source":
				continue
			}
			return nil, t.errAt(o, "bag_unpack: property %q clashes with a column (use columnsConflict)", name)
		}
		cols = append(cols, column{name, p.ty})
		sqls = append(sqls, v.sql)
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

// bagUnpackSchema is bag_unpack with an output schema: the columns it names, each read
// from its property (the name without the prefix) as its type, after the input's
// other columns when the schema starts with *; no data is read to find them.
func (t *translator) bagUnpackSchema(in *rel, o *kql.EvaluateOp, ci int, prefix string) (*rel, error) {
	var cols []column
	var sqls []string
	if o.Schema.Star {
		for i, c := range in.cols {
			if i != ci {
				cols = append(cols, c)
				sqls = append(sqls, "t."+colName(i))
			}
		}
	}
	for _, d := range o.Schema.Columns {
		ty, err := t.declType(d, d.Type, TDynamic)
		if err != nil {
			return nil, err
		}
		key := strings.TrimPrefix(d.Name.Name, prefix)
		v := coerce(call("getprop", TDynamic, expr{sql: "t." + colName(ci), t: TDynamic}, lit(key, TString)), ty)
		cols, sqls = setCol(cols, sqls, column{d.Name.Name, ty}, v.sql)
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

// jsonTypesToKQL maps the JSON types a property holds (SQLite's json_type names,
// comma-separated) to one KQL type.
func jsonTypesToKQL(ts string) Type {
	var out Type
	for _, s := range strings.Split(ts, ",") {
		var ty Type
		switch s {
		case "null":
			continue
		case "integer":
			ty = TLong
		case "real":
			ty = TReal
		case "text":
			ty = TString
		case "true", "false":
			ty = TBool
		default:
			ty = TDynamic
		}
		switch {
		case out == "" || out == ty:
			out = ty
		case (out == TLong && ty == TReal) || (out == TReal && ty == TLong):
			out = TReal
		default:
			out = TDynamic
		}
	}
	if out == "" {
		return TDynamic
	}
	return out
}

func stringSet(v any) map[string]bool {
	m := map[string]bool{}
	if xs, ok := arr(v); ok {
		for _, x := range xs {
			m[toString(Dyn{x})] = true
		}
	}
	return m
}

// makeSeries translates make-series: one row per by-group with each aggregate as an
// array over the bins from..to (to exclusive) of width step, missing bins holding the
// default (0 unless given), and the bins' start values as the axis column.
func (t *translator) makeSeries(in *rel, o *kql.MakeSeriesOp, e *env) (*rel, error) {
	row := inScope(in, e)
	env := &scope{env: e}
	on, err := t.expr(o.On, row)
	if err != nil {
		return nil, err
	}
	if !(on.t.numeric() || on.t.ticky()) {
		return nil, t.errAt(o.On, "make-series needs a datetime, timespan or number axis, not %s", on.t)
	}
	if o.Step == nil {
		return nil, t.errAt(o, "make-series needs a step")
	}
	step, err := t.expr(o.Step, env)
	if err != nil {
		return nil, err
	}
	spanT := on.t
	if on.t == TDatetime {
		spanT = TTimespan
	}
	step = coerce(step, spanT)
	bound := func(x kql.Expr, agg string) (expr, error) {
		if x != nil {
			b, err := t.expr(x, env)
			if err != nil {
				return expr{}, err
			}
			return coerce(b, on.t), nil
		}
		// the data's own range: the first bin holds the smallest value, the last the largest
		q := "(SELECT " + agg + "(" + strings.ReplaceAll(on.sql, "t.", "u.") + ") FROM " + in.from + " u)"
		if agg == "min" {
			return call("bin", on.t, expr{sql: q, t: on.t}, step), nil
		}
		return expr{sql: "(" + call("bin", on.t, expr{sql: q, t: on.t}, step).sql + " + " + step.sql + ")", t: on.t}, nil
	}
	from, err := bound(o.From, "min")
	if err != nil {
		return nil, err
	}
	to, err := bound(o.To, "max")
	if err != nil {
		return nil, err
	}
	nbins := call("series_nbins", TLong, from, to, step)
	k := call("series_k", TLong, on, from, step)
	var byCols []column
	var bySQL []string
	for _, it := range o.By {
		names, val := itemParts(it)
		x, err := t.expr(val, row)
		if err != nil {
			return nil, err
		}
		name := autoName(val)
		if len(names) > 0 {
			name = names[0]
		}
		byCols = append(byCols, column{name, x.t})
		bySQL = append(bySQL, x.sql)
	}
	aggScope := &scope{env: e, agg: &aggCollector{row: row}}
	var aggCols []column
	var aggSQL, defaults []string
	for _, a := range o.Aggs {
		names, val := itemParts(a.X)
		x, err := t.expr(val, aggScope)
		if err != nil {
			return nil, err
		}
		name := aggName(val)
		if len(names) > 0 {
			name = names[0]
		}
		def := lit(int64(0), TLong)
		if a.Default != nil {
			if def, err = t.expr(a.Default, env); err != nil {
				return nil, err
			}
		}
		aggCols = append(aggCols, column{name, x.t})
		aggSQL = append(aggSQL, x.sql)
		defaults = append(defaults, coerce(def, TDynamic).sql)
	}
	// stage A: one row per group and bin
	var colsA []column
	colsA = append(colsA, byCols...)
	colsA = append(colsA, column{"\x00k", TLong})
	colsA = append(colsA, aggCols...)
	selA := "SELECT " + strings.Join(append(append(append(append([]string{}, bySQL...), k.sql), aggSQL...), "min(t._o)"), ", ") +
		" FROM " + in.from + " t WHERE " + on.sql + " >= " + from.sql + " AND " + on.sql + " < " + to.sql +
		" GROUP BY " + strings.Join(append(append([]string{}, bySQL...), k.sql), ", ")
	a := t.stage(colsA, selA)
	// stage B: one row per group, the bins folded into arrays
	var cols []column
	var sqls, groups []string
	for i, c := range byCols {
		cols = append(cols, c)
		sqls = append(sqls, "t."+colName(i))
		groups = append(groups, "t."+colName(i))
	}
	kRef := expr{sql: "t." + colName(len(byCols)), t: TLong}
	for i, c := range aggCols {
		v := expr{sql: "t." + colName(len(byCols)+1+i), t: c.Type}
		built := aggCall("series_build", TDynamic, kRef, v, nbins, expr{sql: defaults[i], t: TDynamic})
		empty := call("series_const", TDynamic, nbins, expr{sql: defaults[i], t: TDynamic})
		cols = append(cols, column{c.Name, TDynamic})
		sqls = append(sqls, "coalesce("+built.sql+", "+empty.sql+")")
	}
	cols = append(cols, column{autoName(o.On), TDynamic})
	sqls = append(sqls, call("series_axis", TDynamic, from, step, nbins).sql)
	selB := "SELECT " + strings.Join(append(sqls, "min(t._o)"), ", ") + " FROM " + a.from + " t"
	if len(groups) > 0 {
		selB += " GROUP BY " + strings.Join(groups, ", ")
	} else if k, ok := o.Param("kind").(*kql.Ident); !ok || !strings.EqualFold(k.Name, "nonempty") {
		selB += " HAVING count(*) > 0"
	}
	return t.stage(uniqueNames(cols), selB), nil
}

// ipLookup translates evaluate ipv4_lookup / ipv6_lookup(Lookup, SourceIP, Range
// [, ExtraKey ...] [, return_unmatched]): each row joined with the lookup rows whose
// range holds its address and whose extra key columns equal its own (the columns are
// named alike on both sides and appear once, the input's).
func (t *translator) ipLookup(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	name := o.Plugin.Name()
	usage := t.errAt(o, "%s(LookupTable, SourceIPColumn, IPRangeColumn [, ExtraKey ...] [, return_unmatched])", name)
	if len(args) < 3 {
		return nil, usage
	}
	lk, err := t.tabular(args[0], e)
	if err != nil {
		return nil, err
	}
	src, ok1 := args[1].(*kql.Ident)
	rng, ok2 := args[2].(*kql.Ident)
	if !ok1 || !ok2 || in.index(src.Name) < 0 || lk.index(rng.Name) < 0 {
		return nil, t.errAt(o, "%s: the address column must be the input's and the range column the lookup table's", name)
	}
	unmatched := false
	var extra []string
	for i, a := range args[3:] {
		if id, ok := a.(*kql.Ident); ok && in.index(id.Name) >= 0 {
			if lk.index(id.Name) < 0 {
				return nil, t.errAt(a, "%s: the extra key %s is not a column of the lookup table", name, id.Name)
			}
			extra = append(extra, id.Name)
			continue
		}
		if i != len(args)-4 {
			return nil, usage
		}
		x, err := t.expr(valueOf(a), &scope{env: e})
		if err != nil {
			return nil, err
		}
		if unmatched, ok1 = x.lit.(bool); !ok1 || !x.isLit {
			return nil, t.errAt(a, "%s: return_unmatched must be a constant bool", name)
		}
	}
	fn := "ipv4_is_in_range"
	if name == "ipv6_lookup" {
		fn = "ipv6_is_in_range"
	}
	cond := call(fn, TBool, coerce(expr{sql: "l." + colName(in.index(src.Name)), t: in.cols[in.index(src.Name)].Type}, TString),
		coerce(expr{sql: "r." + colName(lk.index(rng.Name)), t: lk.cols[lk.index(rng.Name)].Type}, TString)).sql
	isKey := map[string]bool{}
	for _, k := range extra {
		isKey[k] = true
		cond += " AND l." + colName(in.index(k)) + " = r." + colName(lk.index(k))
	}
	var lsel []string
	for i := range in.cols {
		lsel = append(lsel, "l."+colName(i))
	}
	var rcols []column
	var rsel []string
	for i, c := range lk.cols {
		if !isKey[c.Name] {
			rcols = append(rcols, c)
			rsel = append(rsel, nullSafe("r."+colName(i), c.Type, unmatched))
		}
	}
	cols := joinCols(in.cols, rcols)
	sqls := append(lsel, rsel...)
	if name == "ipv6_lookup" {
		// Kusto puts the lookup table's columns first here
		cols = joinCols(rcols, in.cols)
		sqls = append(rsel, lsel...)
	}
	j := "JOIN"
	if unmatched {
		j = "LEFT JOIN"
	}
	sel := "SELECT " + strings.Join(append(sqls, "row_number() OVER (ORDER BY l._o, r._o)"), ", ") +
		" FROM " + in.from + " l " + j + " " + lk.from + " r ON " + cond
	return t.stage(cols, sel), nil
}

// constLong reads a plugin argument that must be a non-negative whole constant.
func (t *translator) constLong(x kql.Expr, e *env, what string) (int64, error) {
	v, err := t.expr(x, &scope{env: e})
	if err != nil {
		return 0, err
	}
	n, ok := toLong(v.lit)
	if !v.isLit || !ok || n < 0 {
		return 0, t.errAt(x, "%s must be a constant whole number ≥ 0", what)
	}
	return n, nil
}

// rowsNear is evaluate rows_near(Condition, NumRows [, RowsAfter]): the rows within
// NumRows before (and RowsAfter after) a row where Condition holds, in input order.
func (t *translator) rowsNear(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	if len(args) < 2 || len(args) > 3 {
		return nil, t.errAt(o, "rows_near(Condition, NumRows [, RowsAfter]) takes 2 or 3 arguments")
	}
	cond, err := t.boolExpr(args[0], inScope(in, e))
	if err != nil {
		return nil, err
	}
	before, err := t.constLong(args[1], e, "rows_near's NumRows")
	if err != nil {
		return nil, err
	}
	after := before
	if len(args) == 3 {
		if after, err = t.constLong(args[2], e, "rows_near's RowsAfter"); err != nil {
			return nil, err
		}
	}
	n := len(in.cols)
	flagged := t.stage(append(append([]column(nil), in.cols...), column{"\x00flag", TLong}),
		"SELECT "+strings.Join(append(selectCols(in), "CASE WHEN "+cond.sql+" THEN 1 ELSE 0 END", "t._o"), ", ")+" FROM "+in.from+" t")
	// a row is kept when a flagged row is at most `before` rows after it or `after` rows before it
	near := t.stage(append(append([]column(nil), in.cols...), column{"\x00near", TLong}),
		"SELECT "+strings.Join(append(selectCols(in), "max(t."+colName(n)+") OVER (ORDER BY t._o ROWS BETWEEN "+
			strconv.FormatInt(after, 10)+" PRECEDING AND "+strconv.FormatInt(before, 10)+" FOLLOWING)", "t._o"), ", ")+" FROM "+flagged.from+" t")
	return t.stage(in.cols, "SELECT "+strings.Join(append(selectCols(in), "t._o"), ", ")+" FROM "+near.from+" t WHERE t."+colName(n)+" = 1"), nil
}

// dcountIntersect is evaluate dcount_intersect(hll_1, …, hll_n): each row gains s0 …
// s(n-1), the distinct counts of S1, S1∩S2, …, S1∩…∩Sn (the engine's hll values are
// exact sets).
func (t *translator) dcountIntersect(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	if len(args) < 2 {
		return nil, t.errAt(o, "dcount_intersect() takes two hll values or more")
	}
	sc := inScope(in, e)
	var hs []expr
	for _, a := range args {
		x, err := t.expr(a, sc)
		if err != nil {
			return nil, err
		}
		hs = append(hs, coerce(x, TDynamic))
	}
	counts := call("_dcount_intersect", TDynamic, hs...)
	cols := append([]column(nil), in.cols...)
	sqls := selectCols(in)
	for i := range hs {
		v := coerce(expr{sql: "json_extract(" + counts.sql + ", '$[" + strconv.Itoa(i) + "]')", t: TLong}, TLong)
		cols, sqls = setCol(cols, sqls, column{"s" + strconv.Itoa(i), TLong}, v.sql)
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

// rollingPercentile is evaluate rolling_percentile(Value, Pct, Index, BinSize,
// BinsPerWindow [, dims…]): for each bin of Index (and dimensions), the percentile of
// the values in the window of BinsPerWindow bins ending at it, written as KQL.
func (t *translator) rollingPercentile(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	if len(args) < 5 {
		return nil, t.errAt(o, "rolling_percentile(Value, Percentile, Index, BinSize, BinsPerWindow [, dims…]) takes 5 arguments or more")
	}
	cols, err := t.columnArgs(in, "rolling_percentile's value and index", args[0], args[2])
	if err != nil {
		return nil, err
	}
	val, idx := cols[0], cols[1]
	dims, err := t.columnArgs(in, "rolling_percentile's dimensions", args[5:]...)
	if err != nil {
		return nil, err
	}
	w, err := t.constLong(args[4], e, "rolling_percentile's BinsPerWindow")
	if err != nil {
		return nil, err
	}
	if w < 1 {
		return nil, t.errAt(args[4], "rolling_percentile's BinsPerWindow is at least 1")
	}
	pct, size := kql.Format(args[1]), kql.Format(args[3])
	out := "rolling_" + strconv.FormatInt(w, 10) + "_percentile_" + args[0].(*kql.Ident).Name + "_" + strings.ReplaceAll(pct, ".", "_")
	keys := append([]string{"__k"}, dims...)
	src := "let B = __input | extend __k = 1, __b = bin(" + idx + ", " + size + ");\n" +
		"B | summarize by __b, " + strings.Join(keys, ", ") +
		" | join kind=inner (B | project __k, __v = " + val + ", __vb = __b" + joinDims(dims) + ") on " + strings.Join(keys, ", ") +
		" | where __vb > __b - " + strconv.FormatInt(w, 10) + " * (" + size + ") and __vb <= __b" +
		" | summarize " + quoteName(out) + " = percentile(__v, " + pct + ") by " + idx + " = __b" + joinDims(dims)
	return t.viaKQL(o, in, e, src)
}

// quoteName writes a column name as a KQL bracketed name (['name']) for the
// operators written as KQL.
func quoteName(s string) string { return "['" + strings.ReplaceAll(s, "'", `\'`) + "']" }

// columnArgs reads plugin arguments that must each name a column of the input and
// returns the names quoted (quoteName); what names the arguments in the error.
func (t *translator) columnArgs(in *rel, what string, xs ...kql.Expr) ([]string, error) {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		id, ok := x.(*kql.Ident)
		if !ok || in.index(id.Name) < 0 {
			return nil, t.errAt(x, "%s: %s is not a column of the input", what, kql.Format(x))
		}
		out = append(out, quoteName(id.Name))
	}
	return out, nil
}

func joinDims(dims []string) string {
	if len(dims) == 0 {
		return ""
	}
	return ", " + strings.Join(dims, ", ")
}

// activityCountsMetrics is evaluate activity_counts_metrics(Id, Time, Start, End,
// Window [, dims…]): for each window from Start to End (and dimensions), the rows
// (count), the distinct ids (dcount), the ids seen for the first time (new_dcount) and
// the distinct ids so far (aggregated_dcount), written as KQL. Counts are exact.
func (t *translator) activityCountsMetrics(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 5, "activity_counts_metrics(IdColumn, TimelineColumn, Start, End, Window [, dims…]) takes 5 arguments or more")
	if err != nil {
		return nil, err
	}
	dims, err := t.columnArgs(in, "activity_counts_metrics dimensions", args[5:]...)
	if err != nil {
		return nil, err
	}
	start, end, window := "("+kql.Format(args[2])+")", "("+kql.Format(args[3])+")", "("+kql.Format(args[4])+")"
	by := "__w" + joinDims(dims)
	restart := ""
	if len(dims) > 0 {
		restart = ", __d != prev(__d)"
	}
	src := "let B = __input | extend __w = bin_at(" + tl + ", " + window + ", " + start + ") | where __w >= " + start + " and __w <= " + end + ";\n" +
		"let N = B | summarize __first = min(__w) by " + id + joinDims(dims) + " | summarize __new = count() by __w = __first" + joinDims(dims) + ";\n" +
		"B | summarize __count = count(), __dcount = dcount(" + id + ") by " + by +
		" | join kind=leftouter N on " + by +
		" | extend __new = coalesce(__new, 0), __d = tostring(pack_array(" + strings.Join(append([]string{"0"}, dims...), ", ") + "))" +
		" | sort by __d asc, __w asc" +
		" | extend __agg = row_cumsum(__new" + restart + ")" +
		" | project " + tl + " = __w" + joinDims(dims) + ", ['count'] = __count, ['dcount'] = __dcount, new_dcount = __new, aggregated_dcount = __agg"
	return t.viaKQL(o, in, e, src)
}

// activityMetrics is evaluate activity_metrics(Id, Time, [Start, End,] Window
// [, dims…]): for each window (and dimensions) the distinct ids, those not in the
// window before (dcount_newvalues), and of the ids of the window before, the share
// seen again (retention_rate) or not (churn_rate). Written as KQL; counts exact. A
// first window has no window before: Kusto's NaN rates are null here.
func (t *translator) activityMetrics(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 3, "activity_metrics(IdColumn, TimelineColumn, [Start, End,] Window [, dims…]) takes 3 arguments or more")
	if err != nil {
		return nil, err
	}
	p := argText(args)
	third, err := t.expr(args[2], &scope{env: e})
	if err != nil {
		return nil, err
	}
	bounds, window, rest := "", p(2), 3
	start := "toscalar(__input | summarize min(" + tl + "))"
	if third.t == TDatetime {
		if len(args) < 5 {
			return nil, t.errAt(o, "activity_metrics with Start and End needs the Window after them")
		}
		start, window, rest = p(2), p(4), 5
		bounds = " | where " + tl + " >= " + p(2) + " and " + tl + " <= " + p(3)
	}
	if err := t.calendarWindow(args[rest-1], "activity_metrics"); err != nil {
		return nil, err
	}
	dims, err := t.columnArgs(in, "activity_metrics dimensions", args[rest:]...)
	if err != nil {
		return nil, err
	}
	by := "__w" + joinDims(dims)
	src := "let B = __input" + bounds + " | summarize by __id = " + id + ", __w = bin_at(" + tl + ", " + window + ", " + start + ")" + joinDims(dims) + ";\n" +
		// the ids of each window, moved to the window after it
		"let P = B | extend __w = __w + " + window + ";\n" +
		"let R = B | join kind=inner P on __id, " + by + " | summarize __returned = count() by " + by + ";\n" +
		"B | summarize dcount_values = count() by " + by +
		" | join kind=leftouter (P | summarize __prev = count() by " + by + ") on " + by +
		" | join kind=leftouter R on " + by +
		" | extend __returned = coalesce(__returned, 0)" +
		" | project " + tl + " = __w, dcount_values, dcount_newvalues = dcount_values - __returned," +
		" retention_rate = iff(isnull(__prev), real(nan), todouble(__returned) / __prev), churn_rate = iff(isnull(__prev), real(nan), 1.0 - todouble(__returned) / __prev)" + joinDims(dims) +
		" | sort by " + tl + " asc"
	return t.viaKQL(o, in, e, src)
}

// newActivityMetrics is evaluate new_activity_metrics(Id, Time, Start, End, Window
// [, Cohort] [, dims…]): for each cohort window (the ids first seen in it) and each
// window from it on, the ids of the later window not seen up to the cohort's
// (dcount_new_values; the cohort itself in its own window), the cohort's ids seen
// again (retained) or not (churn), and their shares. Written as KQL; counts exact;
// an empty cohort's rates are null where Kusto gives NaN. A Lookback table's ids
// are new in no cohort.
func (t *translator) newActivityMetrics(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 5, "new_activity_metrics(IdColumn, TimelineColumn, Start, End, Window [, Cohort] [, dims…]) takes 5 arguments or more")
	if err != nil {
		return nil, err
	}
	p := argText(args)
	if err := t.calendarWindow(args[4], "new_activity_metrics"); err != nil {
		return nil, err
	}
	start, end, window := p(2), p(3), p(4)
	rest, cohort := 5, ""
	if len(args) > 5 {
		if x, err := t.expr(args[5], &scope{env: e}); err == nil && x.t == TDatetime {
			rest, cohort = 6, " | where __from == "+p(5)
		}
	}
	// a last argument that is not a column of the input is the Lookback table: the ids
	// of its column named as IdColumn were seen before Start, so they are new in no
	// cohort and count in no window's new values
	var lookback *rel
	if n := len(args); n > rest {
		if x, ok := args[n-1].(*kql.Ident); !ok || in.index(x.Name) < 0 {
			if lookback, err = t.tabular(args[n-1], e); err != nil {
				return nil, err
			}
			if lookback.index(args[0].(*kql.Ident).Name) < 0 {
				return nil, t.errAt(args[n-1], "new_activity_metrics: the Lookback table has no column %s (the IdColumn)", kql.Format(args[0]))
			}
			args = args[:n-1]
		}
	}
	dims, err := t.columnArgs(in, "new_activity_metrics dimensions", args[rest:]...)
	if err != nil {
		return nil, err
	}
	d := joinDims(dims)
	first := "let F = B | summarize __first = min(__w) by __id" + d + ";\n"
	if lookback != nil {
		first = "let L = __lookback | summarize by __id = " + id + ";\n" +
			"let F = B | summarize __first = min(__w) by __id" + d + " | join kind=leftanti L on __id;\n"
	}
	bare := strings.TrimSuffix(strings.TrimPrefix(tl, "['"), "']")
	from, to := "['from_"+bare+"']", "['to_"+bare+"']"
	pairs := "let P = W | project __from = __w, __k = 1 | join kind=inner (W | project __to = __w, __k = 1) on __k | where __to >= __from" + cohort + " | project __from, __to;\n"
	if len(dims) > 0 {
		pairs = "let P = W | project __from = __w, __k = 1 | join kind=inner (W | project __to = __w, __k = 1) on __k | where __to >= __from" + cohort +
			" | join kind=inner (B | summarize by " + strings.Join(dims, ", ") + " | extend __k = 1) on __k | project __from, __to" + d + ";\n"
	}
	src := "let B = __input | where " + tl + " >= " + start + " and " + tl + " <= " + end +
		" | summarize by __id = " + id + ", __w = bin_at(" + tl + ", " + window + ", " + start + ")" + d + ";\n" +
		"let W = range __w from " + start + " to " + end + " step " + window + ";\n" +
		pairs +
		first +
		"let C = F | summarize __cohort = count() by __from = __first" + d + ";\n" +
		"let R = F | join kind=inner B on __id" + d + " | summarize __retained = count() by __from = __first, __to = __w" + d + ";\n" +
		// the ids of each window by the window they were first seen in
		"let G = B | join kind=inner F on __id" + d + " | summarize __g = count() by __to = __w, __f = __first" + d + ";\n" +
		"let N = P | join kind=inner G on __to" + d + " | where __f > __from | summarize __new = sum(__g) by __from, __to" + d + ";\n" +
		"P | join kind=leftouter C on __from" + d + " | join kind=leftouter R on __from, __to" + d + " | join kind=leftouter N on __from, __to" + d +
		" | extend __cohort = coalesce(__cohort, 0), __retained = coalesce(__retained, 0)" +
		" | extend __new = iff(__to == __from, __cohort, coalesce(__new, 0))" +
		" | project " + from + " = __from, " + to + " = __to, dcount_new_values = __new, dcount_retained_values = __retained," +
		" dcount_churn_values = todouble(__cohort - __retained), retention_rate = iff(__cohort == 0, real(nan), todouble(__retained) / __cohort)," +
		" churn_rate = iff(__cohort == 0, real(nan), todouble(__cohort - __retained) / __cohort)" + d +
		" | sort by " + from + " asc, " + to + " asc"
	if lookback != nil {
		return t.viaKQLBinds(o, e, src, map[string]*rel{"__input": in, "__lookback": lookback})
	}
	return t.viaKQL(o, in, e, src)
}

// slidingWindowCounts is evaluate sliding_window_counts(Id, Time, Start, End,
// Lookback, Bin [, dims…]): for each bin from Start to End (and dimensions), the rows
// and distinct ids of the Lookback period ending with the bin, written as KQL. The page
// rounds a Lookback that is not a multiple of Bin down to one, and its example names
// the columns Count and dcount.
func (t *translator) slidingWindowCounts(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 6, "sliding_window_counts(IdColumn, TimelineColumn, Start, End, LookbackWindow, Bin [, dims…]) takes 6 arguments or more")
	if err != nil {
		return nil, err
	}
	if err := t.calendarWindow(args[5], "sliding_window_counts"); err != nil {
		return nil, err
	}
	dims, err := t.columnArgs(in, "sliding_window_counts dimensions", args[6:]...)
	if err != nil {
		return nil, err
	}
	start, end, look, bin := "("+kql.Format(args[2])+")", "("+kql.Format(args[3])+")", "("+kql.Format(args[4])+")", "("+kql.Format(args[5])+")"
	src := "let B = __input | project __k = 1, __vb = bin_at(" + tl + ", " + bin + ", " + start + "), __id = " + id + joinDims(dims) + ";\n" +
		"range __b from " + start + " to " + end + " step " + bin + " | extend __k = 1" +
		" | join kind=inner (B) on __k" +
		" | where __vb > __b - bin(" + look + ", " + bin + ") and __vb <= __b" +
		" | summarize Count = count(), ['dcount'] = dcount(__id) by " + tl + " = __b" + joinDims(dims)
	return t.viaKQL(o, in, e, src)
}

// activeUsersCount is evaluate active_users_count(Id, Time, Start, End, Lookback,
// Period, ActivePeriods, Bin [, dims…]): for each bin from Start to End (and
// dimensions), the distinct ids seen in it that, at that appearance, had appeared in
// at least ActivePeriods distinct Periods of the Lookback window ending there (its
// start excluded). Bins without active ids are left out. Written as KQL; counts exact.
func (t *translator) activeUsersCount(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 8, "active_users_count(IdColumn, TimelineColumn, Start, End, LookbackWindow, Period, ActivePeriodsCount, Bin [, dims…]) takes 8 arguments or more")
	if err != nil {
		return nil, err
	}
	if err := t.calendarWindow(args[7], "active_users_count"); err != nil {
		return nil, err
	}
	dims, err := t.columnArgs(in, "active_users_count dimensions", args[8:]...)
	if err != nil {
		return nil, err
	}
	p := argText(args)
	start, end, look, period, n, bin := p(2), p(3), p(4), p(5), p(6), p(7)
	keys := append([]string{"__id"}, dims...)
	src := "let B = __input | project __id = " + id + ", __t = " + tl + joinDims(dims) + ";\n" +
		"B | extend __b = bin_at(__t, " + bin + ", " + start + ") | where __b >= " + start + " and __b <= " + end +
		" | join kind=inner (B | project __t2 = __t, " + strings.Join(keys, ", ") + ") on " + strings.Join(keys, ", ") +
		" | where __t2 > __t - " + look + " and __t2 <= __t" +
		" | summarize __periods = dcount(bin(__t2, " + period + ")) by " + strings.Join(keys, ", ") + ", __t, __b" +
		" | where __periods >= " + n +
		" | summarize ['dcount'] = dcount(__id) by " + tl + " = __b" + joinDims(dims)
	return t.viaKQL(o, in, e, src)
}

// activityEngagement is evaluate activity_engagement(Id, Time, [Start, End,] Inner,
// Outer [, dims…]): for each Inner window (and dimensions), the distinct ids in it, in
// the Outer window that ends with it, and their ratio. Written as KQL; counts exact.
func (t *translator) activityEngagement(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 4, "activity_engagement(IdColumn, TimelineColumn, [Start, End,] InnerActivityWindow, OuterActivityWindow [, dims…]) takes 4 arguments or more")
	if err != nil {
		return nil, err
	}
	p := argText(args)
	// Start and End are there when the third argument is a datetime
	third, err := t.expr(args[2], &scope{env: e})
	if err != nil {
		return nil, err
	}
	rest := 4
	start, end := "toscalar(B | summarize min(__t))", "toscalar(B | summarize max(__t))"
	inner, outer := p(2), p(3)
	if third.t == TDatetime {
		if len(args) < 6 {
			return nil, t.errAt(o, "activity_engagement with Start and End needs InnerActivityWindow and OuterActivityWindow after them")
		}
		start, end, inner, outer, rest = p(2), p(3), p(4), p(5), 6
	}
	dims, err := t.columnArgs(in, "activity_engagement dimensions", args[rest:]...)
	if err != nil {
		return nil, err
	}
	d := joinDims(dims)
	dk := "tostring(pack_array(" + strings.Join(append([]string{"0"}, dims...), ", ") + "))"
	src := "let B = __input | project __id = " + id + ", __t = " + tl + d + ";\n" +
		"let S = " + start + ";\n" +
		"let W = B | extend __vb = bin_at(__t, " + inner + ", S) | where __vb >= S and __vb <= " + end + ";\n" +
		"let I = W | summarize __inner = dcount(__id) by __b = __vb" + d + ";\n" +
		// an id seen in inner window vb counts in the outer windows b with vb <= b <
		// vb + Outer: each id's windows, in order, make runs whose spans overlap; a
		// run adds the id from its first window to the first window past its last
		// window + Outer, so a running sum of those steps, read at each inner window,
		// is the outer count (no row per id and outer window)
		"let D = W | summarize by __id, __vb" + d + " | extend __dk = " + dk + " | sort by __dk asc, __id asc, __vb asc" +
		" | extend __new = iff(__dk != prev(__dk) or __id != prev(__id) or __vb >= prev(__vb) + " + outer + ", 1, 0) | extend __run = row_cumsum(__new);\n" +
		"let R = D | summarize __s = min(__vb), __l = max(__vb) by __run, __dk" + d + ";\n" +
		"let E = union (R | project __b = __s, __d = 1, __dk" + d + "), (R | project __b = bin_at(__l + " + outer + " - 1tick, " + inner + ", S) + " + inner + ", __d = -1, __dk" + d + ")" +
		" | summarize __d = sum(__d) by __b, __dk" + d + ";\n" +
		"union (E | extend __i = 0), (I | extend __dk = " + dk + ", __d = 0, __i = 1)" +
		" | sort by __dk asc, __b asc, __i asc | extend __outer = row_cumsum(__d, __dk != prev(__dk)) | where __i == 1" +
		" | project " + tl + " = __b, dcount_activities_inner = __inner, dcount_activities_outer = __outer, activity_ratio = todouble(__inner) / __outer" + d +
		" | sort by " + tl + " asc"
	return t.viaKQL(o, in, e, src)
}

// activityPrologue reads what the activity plugins share: at least min arguments
// (usage says which), the first two the id and timeline columns.
func (t *translator) activityPrologue(in *rel, o *kql.EvaluateOp, min int, usage string) (args []kql.Expr, id, tl string, err error) {
	args = o.Plugin.Args
	if len(args) < min {
		return nil, "", "", t.errAt(o, "%s", usage)
	}
	cols, err := t.columnArgs(in, o.Plugin.Name()+" id and timeline", args[0], args[1])
	if err != nil {
		return nil, "", "", err
	}
	return args, cols[0], cols[1], nil
}

// calendarWindow refuses a calendar window (week, month, year) given as a string.
func (t *translator) calendarWindow(x kql.Expr, plugin string) error {
	if l, ok := x.(*kql.Literal); ok && l.Kind == kql.LitString {
		return t.unsupported(x, plugin+" with a calendar window ("+l.Value+")")
	}
	return nil
}

// argText writes plugin argument i as KQL text in parentheses.
func argText(args []kql.Expr) func(int) string {
	return func(i int) string { return "(" + kql.Format(args[i]) + ")" }
}
