package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// aggCollector marks a scope in which aggregate calls are allowed (summarize items).
type aggCollector struct {
	row *scope // the scope of the input rows, for the aggregates' arguments
}

func (t *translator) summarize(in *rel, o *kql.SummarizeOp, e *env) (*rel, error) {
	row := inScope(in, e)
	var cols []column
	var sqls, groups []string
	auto := 0
	if t.part != "" {
		if i := in.index(t.part); i >= 0 {
			cols = append(cols, in.cols[i])
			sqls = append(sqls, row.ref(i))
			groups = append(groups, row.ref(i))
		}
	}
	for _, it := range o.By {
		names, val := itemParts(it)
		x, err := t.expr(val, row)
		if err != nil {
			return nil, err
		}
		name := ""
		if len(names) > 0 {
			name = names[0]
		} else if name = autoName(val); name == "" {
			auto++
			name = "Column" + strconv.Itoa(auto)
		}
		cols = append(cols, column{name, x.t})
		sqls = append(sqls, x.sql)
		groups = append(groups, x.sql)
	}
	byNames := map[string]bool{}
	for _, c := range cols {
		byNames[c.Name] = true
	}
	aggScope := &scope{env: e, agg: &aggCollector{row: row}}
	for _, it := range o.Aggs {
		names, val := itemParts(it)
		if c, ok := val.(*kql.Call); ok {
			switch c.Name() {
			case "arg_max", "arg_min", "argmax", "argmin":
				out, err := t.argExtreme(c, names, in, row, byNames)
				if err != nil {
					return nil, err
				}
				for _, o := range out {
					cols = append(cols, o.col)
					sqls = append(sqls, o.sql)
				}
				continue
			case "take_any", "any":
				if len(c.Args) == 1 {
					if _, star := c.Args[0].(*kql.Star); star {
						// one whole row: every column from the group's first row
						for i, col := range in.cols {
							if byNames[col.Name] {
								continue
							}
							v := expr{sql: row.ref(i), t: col.Type}
							cols = append(cols, col)
							sqls = append(sqls, aggCall("first", col.Type, v).sql)
						}
						continue
					}
				}
			case "percentiles", "percentilesw":
				out, err := t.percentiles(c, names, row)
				if err != nil {
					return nil, err
				}
				for _, o := range out {
					cols = append(cols, o.col)
					sqls = append(sqls, o.sql)
				}
				continue
			}
		}
		x, err := t.expr(val, aggScope)
		if err != nil {
			return nil, err
		}
		name := ""
		if len(names) > 0 {
			name = names[0]
		} else if name = aggName(val); name == "" {
			auto++
			name = "Column" + strconv.Itoa(auto)
		}
		cols = append(cols, column{name, x.t})
		sqls = append(sqls, x.sql)
	}
	cols = uniqueNames(cols)
	sel := "SELECT " + strings.Join(append(sqls, "min(t._o)"), ", ") + " FROM " + in.from + " t"
	if len(groups) > 0 {
		sel += " GROUP BY " + strings.Join(groups, ", ")
	}
	return t.stage(cols, sel), nil
}

// uniqueNames renames repeated column names as Kusto does (x, x1, x2 ...).
func uniqueNames(cols []column) []column {
	seen := map[string]bool{}
	for i := range cols {
		n := cols[i].Name
		if seen[n] {
			for k := 1; ; k++ {
				c := n + strconv.Itoa(k)
				if !seen[c] {
					n = c
					break
				}
			}
			cols[i].Name = n
		}
		seen[n] = true
	}
	return cols
}

// aggPrefix is the prefix of the default column name of each aggregate.
var aggPrefix = map[string]string{
	"make_list": "list", "makelist": "list", "make_list_if": "list", "make_list_with_nulls": "list",
	"make_set": "set", "makeset": "set", "make_set_if": "set", "make_bag": "bag", "make_bag_if": "bag",
	"take_any": "any", "any": "any", "anyif": "anyif",
	"count_distinct": "count_distinct", "count_distinctif": "count_distinctif",
	"percentiles_array": "percentiles", "percentilesw_array": "percentiles", "buildschema": "schema",
	// a weighted percentile is named as the unweighted one (the percentilesw page)
	"percentilew":   "percentile",
	"tdigest_merge": "merge_tdigests", "merge_tdigest": "merge_tdigests", "make_dictionary": "dictionary",
}

// aggName is the default column name of an aggregation item: count_, sum_X, ...
func aggName(e kql.Expr) string {
	if p, ok := e.(*kql.Paren); ok {
		return aggName(p.X)
	}
	c, ok := e.(*kql.Call)
	if !ok {
		return autoName(e)
	}
	name := strings.ToLower(c.Name())
	if !aggregates[name] && !aggregates[funcAliases[name]] {
		// an aggregate's other name (makelist, any, count_distinct, ...) is named by
		// its own prefix below, as Kusto.Language's Aggregates.cs names it
		return autoName(e)
	}
	prefix := name
	if p, ok := aggPrefix[name]; ok {
		prefix = p
	}
	var parts []string
	switch name {
	case "take_anyif", "binary_all_and", "binary_all_or", "binary_all_xor":
		// named after their first argument (Kusto.Language's Aggregates.cs)
		if len(c.Args) > 0 {
			return autoName(c.Args[0])
		}
	case "countif":
		return prefix + "_"
	case "count":
		if len(c.Args) == 1 {
			if _, star := c.Args[0].(*kql.Star); !star {
				return "count_" + autoName(c.Args[0])
			}
		}
		return "count_"
	case "covariance", "covariancep", "covarianceif", "covariancepif", "corr":
		for _, a := range c.Args[:min(2, len(c.Args))] {
			parts = append(parts, autoName(a))
		}
		return prefix + "_" + strings.Join(parts, "_")
	case "percentile", "percentilew":
		if len(c.Args) >= 2 {
			p := c.Args[len(c.Args)-1]
			return prefix + "_" + autoName(c.Args[0]) + "_" + strings.ReplaceAll(kql.Format(p), ".", "_")
		}
	}
	first := ""
	if len(c.Args) > 0 {
		first = autoName(c.Args[0])
	}
	return prefix + "_" + first
}

type outCol struct {
	col column
	sql string
}

// argExtreme expands arg_max/arg_min(X, cols...|*) into one column per output.
func (t *translator) argExtreme(c *kql.Call, names []string, in *rel, row *scope, by map[string]bool) ([]outCol, error) {
	if len(c.Args) < 1 {
		return nil, t.errAt(c, "%s() needs an expression to maximize", c.Name())
	}
	fn := "arg_max"
	if strings.Contains(c.Name(), "min") {
		fn = "arg_min"
	}
	x, err := t.expr(valueOf(c.Args[0]), row)
	if err != nil {
		return nil, err
	}
	key := x
	if key.t == TDynamic {
		key = coerce(key, TReal)
	}
	firstName := autoName(valueOf(c.Args[0]))
	if n, ok := c.Args[0].(*kql.NamedExpr); ok {
		firstName = n.Names[0].Name
	}
	if firstName == "" {
		firstName = strings.TrimPrefix(fn, "arg_") + "_"
	}
	var out []outCol
	add := func(name string, v expr) {
		out = append(out, outCol{column{name, v.t}, aggCall(fn, v.t, key, v).sql})
	}
	add(firstName, x)
	for _, a := range c.Args[1:] {
		if _, star := a.(*kql.Star); star {
			for i, col := range in.cols {
				if by[col.Name] || col.Name == firstName {
					continue
				}
				add(col.Name, expr{sql: row.ref(i), t: col.Type})
			}
			continue
		}
		v, err := t.expr(valueOf(a), row)
		if err != nil {
			return nil, err
		}
		name := autoName(valueOf(a))
		if n, ok := a.(*kql.NamedExpr); ok {
			name = n.Names[0].Name
		}
		if name == "" {
			name = "Column" + strconv.Itoa(len(out))
		}
		add(name, v)
	}
	for i := range out {
		if i < len(names) {
			out[i].col.Name = names[i]
		}
	}
	return out, nil
}

func valueOf(e kql.Expr) kql.Expr {
	if n, ok := e.(*kql.NamedExpr); ok {
		return n.Value
	}
	return e
}

// percentiles expands percentiles(X, p1, p2, ...) into one column per percentile.
func (t *translator) percentiles(c *kql.Call, names []string, row *scope) ([]outCol, error) {
	weighted := c.Name() == "percentilesw"
	min := 2
	if weighted {
		min = 3
	}
	if len(c.Args) < min {
		return nil, t.errAt(c, "%s() needs a value and percentiles", c.Name())
	}
	x, err := t.expr(c.Args[0], row)
	if err != nil {
		return nil, err
	}
	args := []expr{x}
	ps := c.Args[1:]
	if weighted {
		w, err := t.expr(c.Args[1], row)
		if err != nil {
			return nil, err
		}
		args = append(args, coerce(w, TLong))
		ps = c.Args[2:]
	}
	var out []outCol
	for i, p := range ps {
		pe, err := t.expr(p, row)
		if err != nil {
			return nil, err
		}
		// weighted or not, the columns are named percentile_X_P (the percentilesw page)
		name := "percentile_" + autoName(c.Args[0]) + "_" + strings.ReplaceAll(kql.Format(p), ".", "_")
		if i < len(names) {
			name = names[i]
		}
		fn := "percentile"
		if weighted {
			fn = "percentilew"
		}
		ret := percentileType(x.t)
		out = append(out, outCol{column{name, ret}, aggCall(fn, ret, append(args, coerce(pe, TReal))...).sql})
	}
	return out, nil
}

func percentileType(t Type) Type {
	switch t {
	case TInt:
		return TLong
	case TLong, TDatetime, TTimespan, TReal, TDecimal:
		return t
	}
	return TReal
}

// aggCall builds a call of a Go aggregate.
func aggCall(name string, ret Type, args ...expr) expr {
	x := call(name, ret, args...)
	x.sql = "ka" + strings.TrimPrefix(strings.TrimPrefix(x.sql, "kfv"), "kf")
	return x
}
