package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// topNested translates top-nested by writing it as KQL the translator already knows:
// level k summarizes its aggregate by the keys of levels 1..k, keeps the rows whose
// keys 1..k-1 survived level k-1 (a join), and the top N of each parent (partition).
//
//	T | top-nested 2 of State by sum(x), top-nested 1 of Type by count()
//
// becomes, with T bound as the input,
//
//	let L1 = T | summarize A1 = sum(x) by C1 = State | top 2 by A1 desc;
//	let L2 = T | summarize A2 = count() by C1 = State, C2 = Type
//	    | join kind=inner (L1) on C1 | extend P = tostring(pack_array(C1))
//	    | partition by P (top 1 by A2 desc) | project-away P;
//	L2 | project State = C1, aggregated_State = A1, Type = C2, aggregated_Type = A2
//
// "with others" on the last level adds, under each parent, a row with the others
// value and the aggregate of the rows outside its top N (on other levels it is not
// translated).
func (t *translator) topNested(in *rel, o *kql.TopNestedOp, e *env) (*rel, error) {
	const input = "__input"
	var b strings.Builder
	var keys, outs []string
	others := ""
	for i, lv := range o.Levels {
		if lv.Others != nil && i < len(o.Levels)-1 {
			return nil, t.unsupported(lv, "top-nested with others before the last level")
		}
		n := strconv.Itoa(i + 1)
		ofName, of := "", lv.Of
		if ne, ok := of.(*kql.NamedExpr); ok && len(ne.Names) == 1 {
			ofName, of = ne.Names[0].Name, ne.Value
		}
		if ofName == "" {
			ofName = autoName(of)
		}
		if ofName == "" {
			ofName = "Column" + n
		}
		aggName, agg := "", lv.By
		if ne, ok := agg.(*kql.NamedExpr); ok && len(ne.Names) == 1 {
			aggName, agg = ne.Names[0].Name, ne.Value
		}
		if aggName == "" {
			aggName = "aggregated_" + ofName
		}
		order := "desc"
		if strings.EqualFold(lv.Order, "asc") {
			order = "asc"
		}
		keys = append(keys, "C"+n+" = "+kql.Format(of))
		fmt := func(format string, args ...string) {
			s := format
			for _, a := range args {
				s = strings.Replace(s, "%s", a, 1)
			}
			b.WriteString(s)
		}
		fmt("let L%s = %s | summarize A%s = %s by %s", n, input, n, kql.Format(agg), strings.Join(keys, ", "))
		if i > 0 {
			var on, parents []string
			for j := 1; j <= i; j++ {
				on = append(on, "C"+strconv.Itoa(j))
				parents = append(parents, "C"+strconv.Itoa(j))
			}
			var keep []string
			for j := 1; j <= i; j++ {
				keep = append(keep, "C"+strconv.Itoa(j), "A"+strconv.Itoa(j))
			}
			fmt(" | join kind=inner (L%s | project %s) on %s", strconv.Itoa(i), strings.Join(keep, ", "), strings.Join(on, ", "))
			if lv.Count != nil {
				fmt(" | extend P = tostring(pack_array(%s)) | partition by P (top %s by A%s %s) | project-away P", strings.Join(parents, ", "), kql.Format(lv.Count), n, order)
			}
		} else if lv.Count != nil {
			fmt(" | top %s by A%s %s", kql.Format(lv.Count), n, order)
		}
		b.WriteString(";\n")
		outs = append(outs, quoteName(ofName)+" = C"+n, quoteName(aggName)+" = A"+n)
		if lv.Others != nil {
			// the rows of each parent outside its top N, aggregated under the others value
			var parents, keep []string
			for j := 1; j <= i; j++ {
				parents = append(parents, "C"+strconv.Itoa(j))
				keep = append(keep, "C"+strconv.Itoa(j), "A"+strconv.Itoa(j))
			}
			all := append(append([]string(nil), parents...), "C"+n)
			fmt("let O = %s | extend %s | join kind=leftanti (L%s | project %s) on %s | summarize A%s = %s",
				input, strings.Join(keys, ", "), n, strings.Join(all, ", "), strings.Join(all, ", "), n, kql.Format(agg))
			if len(parents) > 0 {
				fmt(" by %s | join kind=inner (L%s | project %s) on %s", strings.Join(parents, ", "), strconv.Itoa(i), strings.Join(keep, ", "), strings.Join(parents, ", "))
			}
			fmt(" | extend C%s = %s;\n", n, kql.Format(lv.Others))
			others = "union (L" + n + "), (O)"
		}
	}
	last := "L" + strconv.Itoa(len(o.Levels))
	if others != "" {
		last = others
	}
	b.WriteString(last + " | project " + strings.Join(outs, ", "))
	return t.viaKQL(o, in, e, b.String())
}

// viaKQL translates an operator written as KQL the translator knows: src is a script
// (lets, then one query) that reads the operator's input as __input.
func (t *translator) viaKQL(o kql.Node, in *rel, e *env, src string) (*rel, error) {
	return t.viaKQLBinds(o, e, src, map[string]*rel{"__input": in})
}

// viaKQLBinds is viaKQL with the tables src names given by binds.
func (t *translator) viaKQLBinds(o kql.Node, e *env, src string, binds map[string]*rel) (*rel, error) {
	script, err := kql.Parse(src)
	if err != nil {
		return nil, t.unsupported(o, "this "+strings.SplitN(kql.Format(o), " ", 2)[0]+" ("+err.Error()+")")
	}
	inner := e.child()
	for name, r := range binds {
		inner.binds[name] = &binding{rel: r}
	}
	var last *rel
	for _, s := range script.Stmts {
		switch s := s.(type) {
		case *kql.LetStmt:
			if err := t.let(s, inner); err != nil {
				return nil, err
			}
		case *kql.QueryStmt:
			if last, err = t.tabular(s.Query, inner); err != nil {
				return nil, err
			}
		}
	}
	if last == nil {
		return nil, t.unsupported(o, "this operator")
	}
	return last, nil
}

// topHitters is top-hitters N of Value [by Sum], computed exactly: the N values with
// the most rows (or the largest sum), as approximate_count_Value (approximate_sum_Value).
func (t *translator) topHitters(in *rel, o *kql.TopHittersOp, e *env) (*rel, error) {
	name := autoName(o.Of)
	if name == "" {
		name = "Column1"
	}
	q := quoteName(name)
	agg, col := "count()", quoteName("approximate_count_"+name)
	if o.By != nil {
		agg, col = "sum("+kql.Format(o.By)+")", quoteName("approximate_sum_"+name)
	}
	return t.viaKQL(o, in, e, "__input | summarize "+col+" = "+agg+" by "+q+" = "+kql.Format(o.Of)+" | top "+kql.Format(o.Count)+" by "+col+" desc")
}

// facet answers its first table, the primary result (Kusto returns one per column and
// one for with): the with subquery's rows when there is one, else the counts of the
// first column's values (count_Column).
func (t *translator) facet(in *rel, o *kql.FacetOp, e *env) (*rel, error) {
	if len(o.By) == 0 {
		return nil, t.errAt(o, "facet by needs a column")
	}
	if o.With != nil {
		r := in
		for _, op := range o.With.Ops {
			var err error
			if r, err = t.op(r, op, e); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	id, ok := o.By[0].(*kql.Ident)
	if !ok || in.index(id.Name) < 0 {
		return nil, t.errAt(o.By[0], "facet by takes columns of the input")
	}
	return t.viaKQL(o, in, e, "__input | summarize "+quoteName("count_"+id.Name)+" = count() by "+quoteName(id.Name))
}
