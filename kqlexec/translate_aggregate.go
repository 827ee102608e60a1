package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// aggregates are the aggregation functions, with the Go aggregate that computes those
// not written in SQL.
var aggregates = map[string]bool{
	"count": true, "countif": true, "sum": true, "sumif": true, "avg": true, "avgif": true,
	"min": true, "max": true, "minif": true, "maxif": true, "dcount": true, "dcountif": true,
	"make_list": true, "make_list_if": true, "make_list_with_nulls": true, "make_set": true,
	"make_set_if": true, "make_bag": true, "make_bag_if": true, "take_any": true,
	"take_anyif": true, "arg_max": true, "arg_min": true, "percentile": true, "percentiles": true,
	"percentilew": true, "percentilesw": true, "percentiles_array": true, "percentilesw_array": true,
	"stdev": true, "stdevif": true, "stdevp": true, "stdevpif": true, "variance": true, "varianceif": true,
	"variancep": true, "variancepif": true, "covariance": true, "covarianceif": true,
	"covariancep": true, "covariancepif": true, "corr": true, "binary_all_and": true, "binary_all_or": true,
	"binary_all_xor": true, "hll": true, "hll_if": true, "hll_merge": true, "tdigest": true,
	"tdigest_merge": true, "merge_tdigest": true, "buildschema": true,
}

// aggregate translates one aggregate call; its arguments are read in the row scope.
func (t *translator) aggregate(c *kql.Call, name string, row *scope) (expr, error) {
	if name == "count" && len(c.Args) == 1 {
		if _, ok := c.Args[0].(*kql.Star); ok {
			c = &kql.Call{Span: c.Span, Func: c.Func}
		}
	}
	a, err := t.args(c, row)
	if err != nil {
		return expr{}, err
	}
	need := func(min, max int) error {
		if len(a) < min || (max >= 0 && len(a) > max) {
			return t.errAt(c, "%s(): wrong number of arguments (%d)", c.Name(), len(a))
		}
		return nil
	}
	cond := func(i int) string { return coerce(a[i], TBool).sql }
	num := func(x expr) expr {
		if x.t == TDynamic || x.t == TBool {
			return coerce(x, TReal)
		}
		return x
	}
	switch name {
	case "count":
		if err := need(0, 1); err != nil {
			return expr{}, err
		}
		return expr{sql: "count(*)", t: TLong}, nil
	case "countif":
		if err := need(1, 1); err != nil {
			return expr{}, err
		}
		return expr{sql: "count(CASE WHEN " + cond(0) + " THEN 1 END)", t: TLong}, nil
	case "sum", "sumif":
		if err := need(1+b2i(name == "sumif"), 1+b2i(name == "sumif")); err != nil {
			return expr{}, err
		}
		x := num(a[0])
		ty := x.t
		if ty == TInt || ty == TBool {
			ty = TLong
		}
		v := x.sql
		if name == "sumif" {
			v = "CASE WHEN " + cond(1) + " THEN " + v + " END"
		}
		// the sum of no values is 0 (the summarize page's default values)
		zero := "0"
		if ty == TReal || ty == TDecimal {
			// a NaN among the values (stored as text, which SQLite's sum reads as 0)
			// makes the sum NaN, as .NET adds. (Infinities of both signs sum to
			// SQLite's NaN, NULL, read as 0 here: telling it from no values would cost
			// a third evaluation of the values.)
			return expr{sql: "CASE WHEN max(typeof(" + v + ") = 'text') THEN " + quote(nanText) + " ELSE coalesce(sum(" + v + "), 0.0) END", t: ty}, nil
		}
		return expr{sql: "coalesce(sum(" + v + "), " + zero + ")", t: ty}, nil
	case "avg", "avgif":
		if err := need(1+b2i(name == "avgif"), 1+b2i(name == "avgif")); err != nil {
			return expr{}, err
		}
		x := num(a[0])
		v := x.sql
		if name == "avgif" {
			v = "CASE WHEN " + cond(1) + " THEN " + v + " END"
		}
		if x.t.ticky() {
			return expr{sql: "CAST(avg(" + v + ") AS INTEGER)", t: x.t}, nil
		}
		// the average of no values is 0/0, NaN (the summarize page)
		if x.t == TReal || x.t == TDecimal {
			// a NaN among the values makes the average NaN, as it does the sum
			return expr{sql: "CASE WHEN count(" + v + ") = 0 OR max(typeof(" + v + ") = 'text') THEN " + quote(nanText) + " ELSE coalesce(avg(" + v + "), " + quote(nanText) + ") END", t: TReal}, nil
		}
		return expr{sql: "CASE WHEN count(" + v + ") = 0 THEN " + quote(nanText) + " ELSE avg(" + v + ") END", t: TReal}, nil
	case "min", "max", "minif", "maxif":
		iff := strings.HasSuffix(name, "if")
		if err := need(1+b2i(iff), 1+b2i(iff)); err != nil {
			return expr{}, err
		}
		x := a[0]
		if x.t == TDynamic {
			x = coerce(x, TReal)
		}
		v := x.sql
		if iff {
			v = "CASE WHEN " + cond(1) + " THEN " + v + " END"
		}
		return expr{sql: name[:3] + "(" + v + ")", t: x.t}, nil
	case "dcount", "dcountif":
		iff := name == "dcountif"
		if err := need(1+b2i(iff), 2+b2i(iff)); err != nil {
			return expr{}, err
		}
		v := a[0].sql
		if iff {
			v = "CASE WHEN " + cond(1) + " THEN " + v + " END"
		}
		return expr{sql: "count(DISTINCT " + v + ")", t: TLong}, nil
	case "make_list", "make_set", "make_list_with_nulls", "make_bag":
		if err := need(1, 2); err != nil {
			return expr{}, err
		}
		args := []expr{a[0]}
		if len(a) == 2 {
			args = append(args, coerce(a[1], TLong))
		}
		empty := "'[]'"
		if name == "make_bag" {
			empty = "'{}'"
		}
		x := aggCall(name, TDynamic, args...)
		return expr{sql: "coalesce(" + x.sql + ", " + empty + ")", t: TDynamic}, nil
	case "buildschema":
		if err := need(1, 1); err != nil {
			return expr{}, err
		}
		return aggCall(name, TDynamic, coerce(a[0], TDynamic)), nil
	case "make_list_if", "make_set_if", "make_bag_if":
		if err := need(2, 3); err != nil {
			return expr{}, err
		}
		args := []expr{a[0], coerce(a[1], TBool)}
		if len(a) == 3 {
			args = append(args, coerce(a[2], TLong))
		}
		empty := "'[]'"
		if name == "make_bag_if" {
			empty = "'{}'"
		}
		x := aggCall(name, TDynamic, args...)
		return expr{sql: "coalesce(" + x.sql + ", " + empty + ")", t: TDynamic}, nil
	case "take_any", "take_anyif":
		if name == "take_anyif" {
			if err := need(2, 2); err != nil {
				return expr{}, err
			}
			return aggCall("take_anyif", a[0].t, a[0], coerce(a[1], TBool)), nil
		}
		if err := need(1, 1); err != nil {
			return expr{}, err
		}
		return aggCall("take_any", a[0].t, a[0]), nil
	case "percentile", "percentilew":
		w := b2i(name == "percentilew")
		if err := need(2+w, 2+w); err != nil {
			return expr{}, err
		}
		ret := percentileType(a[0].t)
		args := []expr{a[0]}
		if w == 1 {
			args = append(args, coerce(a[1], TLong))
		}
		args = append(args, coerce(a[1+w], TReal))
		return aggCall(name, ret, args...), nil
	case "percentiles_array", "percentilesw_array":
		w := b2i(name == "percentilesw_array")
		if err := need(2+w, -1); err != nil {
			return expr{}, err
		}
		args := []expr{a[0]}
		if w == 1 {
			args = append(args, coerce(a[1], TLong))
		}
		for _, p := range a[1+w:] {
			if p.t == TDynamic {
				args = append(args, p)
			} else {
				args = append(args, coerce(p, TReal))
			}
		}
		return aggCall(name, TDynamic, args...), nil
	case "stdev", "stdevp", "variance", "variancep", "stdevif", "stdevpif", "varianceif", "variancepif":
		iff := strings.HasSuffix(name, "if")
		if err := need(1+b2i(iff), 1+b2i(iff)); err != nil {
			return expr{}, err
		}
		x := coerce(a[0], TReal)
		if iff {
			x = expr{sql: "CASE WHEN " + cond(1) + " THEN " + x.sql + " END", t: TReal}
		}
		agg := aggCall(strings.TrimSuffix(name, "if"), TReal, x)
		if !strings.Contains(name, "p") {
			// stdev, variance and their if forms of no values are 0 (the summarize
			// page's default values); the population forms stay null
			agg.sql = "coalesce(" + agg.sql + ", 0.0)"
		}
		return agg, nil
	case "covariance", "covariancep", "corr", "covarianceif", "covariancepif":
		iff := strings.HasSuffix(name, "if")
		if err := need(2+b2i(iff), 2+b2i(iff)); err != nil {
			return expr{}, err
		}
		x, y := coerce(a[0], TReal), coerce(a[1], TReal)
		if iff {
			x = expr{sql: "CASE WHEN " + cond(2) + " THEN " + x.sql + " END", t: TReal}
			y = expr{sql: "CASE WHEN " + cond(2) + " THEN " + y.sql + " END", t: TReal}
		}
		return aggCall(strings.TrimSuffix(name, "if"), TReal, x, y), nil
	case "binary_all_and", "binary_all_or", "binary_all_xor":
		if err := need(1, 1); err != nil {
			return expr{}, err
		}
		return aggCall(name, TLong, coerce(a[0], TLong)), nil
	case "tdigest", "hll":
		if err := need(1, 2); err != nil {
			return expr{}, err
		}
		if name == "hll" {
			return aggCall("make_set", TDynamic, a[0]), nil
		}
		// the local engine's digest is exact: the values, each repeated by its weight
		w := lit(int64(1), TLong)
		if len(a) == 2 {
			w = coerce(a[1], TLong)
		}
		return aggCall("weighted_list", TDynamic, a[0], w), nil
	case "hll_if":
		// the engine's hll is the exact set of values (as hll's); the accuracy is moot
		if err := need(2, 3); err != nil {
			return expr{}, err
		}
		x := aggCall("make_set_if", TDynamic, a[0], coerce(a[1], TBool))
		return expr{sql: "coalesce(" + x.sql + ", '[]')", t: TDynamic}, nil
	case "tdigest_merge", "merge_tdigest", "hll_merge":
		if err := need(1, -1); err != nil {
			return expr{}, err
		}
		return aggCall("merge_lists", TDynamic, a[0]), nil
	case "arg_max", "arg_min":
		return expr{}, t.unsupported(c, name+"() inside an expression")
	}
	return expr{}, t.unsupported(c, "aggregate "+name+"()")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
