package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// narrow turns each cell into a row: Row (the row's 0-based position), Column (its
// name) and Value (as text).
func (t *translator) narrow(in *rel, o *kql.EvaluateOp) (*rel, error) {
	if len(o.Plugin.Args) > 0 {
		return nil, t.errAt(o, "narrow() takes no arguments")
	}
	n := len(in.cols)
	num := t.stage(append(append([]column(nil), in.cols...), column{"\x00row", TLong}),
		"SELECT "+strings.Join(append(selectCols(in), "row_number() OVER (ORDER BY t._o) - 1", "t._o"), ", ")+" FROM "+in.from+" t")
	var parts []string
	for i, c := range in.cols {
		v := coerce(expr{sql: "t." + colName(i), t: c.Type}, TString)
		parts = append(parts, "SELECT t."+colName(n)+", "+lit(c.Name, TString).sql+", "+v.sql+", t."+colName(n)+" * "+strconv.Itoa(n)+" + "+strconv.Itoa(i)+" FROM "+num.from+" t")
	}
	if len(parts) == 0 {
		return t.stage([]column{{"Row", TLong}, {"Column", TString}, {"Value", TString}}, "SELECT NULL, NULL, NULL, NULL WHERE 0"), nil
	}
	return t.stage([]column{{"Row", TLong}, {"Column", TString}, {"Value", TString}}, strings.Join(parts, " UNION ALL ")), nil
}

// pivotAggs are the aggregations pivot takes, each with its conditional form.
var pivotAggs = map[string]string{"count": "countif", "sum": "sumif", "min": "minif", "max": "maxif", "avg": "avgif",
	"dcount": "dcountif", "take_any": "take_anyif", "stdev": "stdevif", "variance": "varianceif",
	"make_list": "make_list_if", "make_bag": "make_bag_if", "make_set": "make_set_if"}

// pivot rotates a column's values into columns: the distinct values of the pivot
// column (read with a probe, in the order they first appear) become columns holding the aggregation of their
// rows, by the other columns (or those named). It is written as KQL the translator
// knows: summarize [v] = aggif(x, tostring(col) == "v"), … by others.
func (t *translator) pivot(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args := o.Plugin.Args
	if len(args) == 0 {
		return nil, t.errAt(o, "pivot() needs the column to rotate")
	}
	col, ok := args[0].(*kql.Ident)
	if !ok || in.index(col.Name) < 0 {
		return nil, t.errAt(args[0], "pivot() rotates a column of the input")
	}
	agg, aggArgs := "count", []kql.Expr{}
	used := map[string]bool{col.Name: true}
	rest := args[1:]
	if len(rest) > 0 {
		if c, ok := rest[0].(*kql.Call); ok {
			agg, aggArgs, rest = strings.ToLower(c.Name()), c.Args, rest[1:]
			if _, ok := pivotAggs[agg]; !ok {
				return nil, t.unsupported(c, "pivot with "+agg+"()")
			}
			for _, a := range aggArgs {
				kql.Inspect(a, func(n kql.Node) bool {
					if id, ok := n.(*kql.Ident); ok {
						used[id.Name] = true
					}
					return true
				})
			}
		}
	}
	var by []string
	for _, r := range rest {
		id, ok := r.(*kql.Ident)
		if !ok || in.index(id.Name) < 0 {
			return nil, t.errAt(r, "pivot() groups by columns of the input")
		}
		by = append(by, id.Name)
	}
	if len(rest) == 0 {
		for _, c := range in.cols {
			if !used[c.Name] {
				by = append(by, c.Name)
			}
		}
	}
	var values []string // in the order they first appear, as Kusto's columns are
	if o.Schema != nil {
		// an output schema names the columns: its names beyond the group columns are the
		// values, and no data is read to find them
		isBy := map[string]bool{}
		for _, b := range by {
			isBy[b] = true
		}
		for _, d := range o.Schema.Columns {
			if !isBy[d.Name.Name] {
				values = append(values, d.Name.Name)
			}
		}
	} else {
		if t.probe == nil {
			return nil, t.unsupported(o, "pivot without an engine")
		}
		ci := in.index(col.Name)
		key := coerce(expr{sql: "t." + colName(ci), t: in.cols[ci].Type}, TString).sql
		q := "SELECT " + key + " FROM " + in.from + " t WHERE t." + colName(ci) + " IS NOT NULL GROUP BY 1 ORDER BY min(t._o)"
		if len(t.ctes) > 0 {
			q = "WITH RECURSIVE " + strings.Join(t.ctes, ",\n") + "\n" + q
		}
		rows, err := t.probe(q)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			values = append(values, toString(decode(r[0], TString)))
		}
	}
	const input = "__input"
	var items []string
	for _, v := range values {
		a := make([]string, 0, len(aggArgs)+1)
		for _, x := range aggArgs {
			a = append(a, kql.Format(x))
		}
		a = append(a, "tostring("+quoteName(col.Name)+") == "+kqlString(v))
		cell := pivotAggs[agg] + "(" + strings.Join(a, ", ") + ")"
		if agg == "sum" {
			cell = "coalesce(" + cell + ", 0)" // a cell without rows is 0, as in Kusto's output
		}
		items = append(items, quoteName(v)+" = "+cell)
	}
	if len(items) == 0 {
		items = append(items, "__none = count()")
	}
	src := input + " | summarize " + strings.Join(items, ", ")
	if len(by) > 0 {
		q := make([]string, len(by))
		for i, b := range by {
			q[i] = quoteName(b)
		}
		src += " by " + strings.Join(q, ", ")
	}
	if len(values) == 0 {
		src += " | project-away __none"
	}
	if o.Schema != nil {
		// the schema's order and types
		var cols []string
		for _, d := range o.Schema.Columns {
			c := quoteName(d.Name.Name)
			if d.Type != nil {
				c += " = to" + strings.ToLower(d.Type.Name) + "(" + quoteName(d.Name.Name) + ")"
			}
			cols = append(cols, c)
		}
		src += " | project " + strings.Join(cols, ", ")
	}
	return t.viaKQL(o, in, e, src)
}

// projectByNames keeps the columns named by constant strings, dynamic arrays of
// strings or wildcard patterns, in the order they are named or matched; names that
// match nothing are ignored.
func (t *translator) projectByNames(in *rel, o *kql.ProjectOp, e *env) (*rel, error) {
	var patterns []string
	for _, it := range o.Items {
		v, err := t.expr(it, &scope{env: e})
		if err != nil {
			return nil, err
		}
		if !v.isLit {
			return nil, t.errAt(it, "project-by-names takes constant column names (strings, a dynamic array of them, or patterns with *)")
		}
		if xs, ok := arr(v.lit); ok {
			for _, x := range xs {
				patterns = append(patterns, toString(Dyn{x}))
			}
			continue
		}
		patterns = append(patterns, toString(v.lit))
	}
	var cols []column
	var sqls []string
	taken := map[int]bool{}
	for _, p := range patterns {
		for i, c := range in.cols {
			if !taken[i] && nameMatch(p, c.Name) {
				taken[i] = true
				cols = append(cols, c)
				sqls = append(sqls, "t."+colName(i))
			}
		}
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}
