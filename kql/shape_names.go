package kql

import (
	"path"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// aggregateFuncs are the aggregation functions of summarize and make-series.
var aggregateFuncs = map[string]bool{
	"count": true, "countif": true, "dcount": true, "dcountif": true, "sum": true, "sumif": true,
	"avg": true, "avgif": true, "min": true, "max": true, "minif": true, "maxif": true,
	"arg_min": true, "arg_max": true, "argmin": true, "argmax": true, "any": true, "anyif": true,
	"take_any": true, "take_anyif": true, "make_list": true, "make_list_if": true,
	"make_list_with_nulls": true, "make_set": true, "make_set_if": true, "make_bag": true,
	"make_bag_if": true, "makelist": true, "makeset": true, "percentile": true, "percentiles": true,
	"percentilew": true, "percentilesw": true, "percentiles_array": true, "percentilesw_array": true,
	"stdev": true, "stdevif": true, "stdevp": true, "variance": true, "varianceif": true,
	"variancep": true, "hll": true, "hll_if": true, "hll_merge": true, "tdigest": true,
	"tdigest_merge": true, "merge_tdigest": true, "buildschema": true, "binary_all_and": true,
	"binary_all_or": true, "binary_all_xor": true, "count_distinct": true, "count_distinctif": true,
	"dcount_hll": true, "avg_if": true, "covariance": true, "covariancep": true, "corr": true,
}

func (x *shaper) summarize(o *SummarizeOp, ctx *pipeCtx) {
	x.aggregates(o.Aggs, ctx)
	for _, b := range o.By {
		x.scalar(valueOf(b), ctx)
		x.sh.GroupBy = append(x.sh.GroupBy, x.format(valueOf(b)))
	}
	names := x.itemNames(o.By, ctx, "Column")
	aggs, ok := x.aggNames(o.Aggs, ctx)
	names = append(names, aggs...)
	for _, n := range names {
		ctx.derive(n)
	}
	if ok {
		x.setOut(ctx, names)
	} else {
		ctx.outOK = false
	}
	ctx.table = ""
}

// aggregates records the aggregate calls of aggregation items: the item's own call,
// or the known aggregate calls inside an expression (sum(a)/count()).
func (x *shaper) aggregates(items []Expr, ctx *pipeCtx) {
	for _, it := range items {
		v := valueOf(it)
		if v == nil {
			continue
		}
		if n, ok := it.(*NamedExpr); ok {
			for _, id := range n.Names {
				ctx.derive(id.Name)
			}
		}
		if c, ok := v.(*Call); ok {
			x.recordAgg(c, ctx)
			continue
		}
		Inspect(v, func(n Node) bool {
			if c, ok := n.(*Call); ok && aggregateFuncs[c.Name()] {
				x.recordAgg(c, ctx)
				return false
			}
			return true
		})
		x.scalar(v, ctx)
	}
}

func (x *shaper) recordAgg(c *Call, ctx *pipeCtx) {
	arg := "*"
	if len(c.Args) > 0 {
		arg = x.formatList(c.Args)
	}
	x.sh.Aggregates = append(x.sh.Aggregates, qeval.Aggregate{Func: c.Name(), Arg: arg})
	for _, a := range c.Args {
		x.scalar(valueOf(a), ctx)
	}
}

// firstArgNamed are the scalar functions whose result column takes the name of their
// first argument (project tostring(x) gives a column x), as in Kusto.
var firstArgNamed = map[string]bool{
	"tostring": true, "toint": true, "tolong": true, "toreal": true, "todouble": true,
	"todatetime": true, "totimespan": true, "totime": true, "tobool": true, "toboolean": true,
	"todynamic": true, "toobject": true, "todecimal": true, "toguid": true, "tohex": true,
	"parse_json": true, "parsejson": true, "parse_xml": true, "parse_csv": true, "split": true,
	"round": true, "ceiling": true, "log": true, "log10": true, "log2": true, "exp": true,
	"pow": true, "sqrt": true, "startofday": true, "format_datetime": true,
	"format_timespan": true, "format_bytes": true, "bin": true, "bin_at": true, "floor": true,
}

// resultName returns the column name Kusto gives an unnamed projected expression, or
// "" when it falls back to a generated ColumnN name.
func resultName(e Expr) string {
	switch v := e.(type) {
	case *Paren:
		return resultName(v.X)
	case *Ident:
		return v.Name
	case *Member:
		if r, ok := v.X.(*Ident); ok && (r.Name == "$left" || r.Name == "$right") {
			return v.Name.Name
		}
		if left := resultName(v.X); left != "" {
			return left + "_" + v.Name.Name
		}
		return v.Name.Name
	case *Index:
		l, ok := v.Index.(*Literal)
		if !ok || (l.Kind != LitString && l.Kind != LitLong && l.Kind != LitInt) {
			return ""
		}
		if left := resultName(v.X); left != "" {
			return left + "_" + l.Value
		}
		return l.Value
	case *Call:
		name := v.Name()
		first := ""
		if len(v.Args) > 0 {
			first = resultName(v.Args[0])
		}
		switch {
		case aggregateFuncs[name]:
			return name + "_" + first
		case firstArgNamed[name]:
			return first
		}
	}
	return ""
}

// aggNames returns the output names of aggregation items: the given name or Kusto's
// f_col (count() gives count_). ok is false when an item expands to columns that
// cannot be named from the text (arg_max(x, *), percentiles(...)).
func (x *shaper) aggNames(items []Expr, ctx *pipeCtx) (names []string, ok bool) {
	ok = true
	for _, it := range items {
		if n, named := it.(*NamedExpr); named {
			for _, id := range n.Names {
				names = append(names, id.Name)
			}
			if c, isCall := n.Value.(*Call); isCall && expands(c) && len(n.Names) < 2 {
				ok = false
			}
			continue
		}
		if c, isCall := it.(*Call); isCall && expands(c) {
			ok = false
		}
		if name := resultName(it); name != "" {
			names = append(names, name)
		} else {
			ctx.autoCol++
			names = append(names, "Column"+strconv.Itoa(ctx.autoCol))
		}
	}
	return names, ok
}

// expands reports whether an aggregate yields several columns.
func expands(c *Call) bool {
	switch c.Name() {
	case "arg_max", "arg_min", "argmax", "argmin":
		return len(c.Args) != 2 || isStar(c.Args[1])
	case "percentiles", "percentilesw", "series_stats", "series_fit_line":
		return true
	}
	return false
}

// itemNames returns the output column names of project/extend/print items.
func (x *shaper) itemNames(items []Expr, ctx *pipeCtx, auto string) []string {
	names := make([]string, 0, len(items))
	n := 0
	for _, it := range items {
		if v, ok := it.(*NamedExpr); ok {
			for _, id := range v.Names {
				names = append(names, id.Name)
			}
			continue
		}
		if name := resultName(it); name != "" {
			names = append(names, name)
			continue
		}
		if auto == "print_" {
			names = append(names, "print_"+strconv.Itoa(n))
		} else {
			ctx.autoCol++
			names = append(names, auto+strconv.Itoa(ctx.autoCol))
		}
		n++
	}
	return names
}

// keepNames applies project-away (keep=false) or project-keep patterns.
func keepNames(cols []string, pats []Expr, keep bool) []string {
	out := []string{}
	for _, c := range cols {
		m := false
		for _, p := range pats {
			if id, ok := p.(*Ident); ok && nameMatch(id.Name, c) {
				m = true
				break
			}
		}
		if m == keep {
			out = append(out, c)
		}
	}
	return out
}

func nameMatch(pattern, name string) bool {
	if !strings.ContainsRune(pattern, '*') {
		return pattern == name
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

func renameName(cols []string, old, new string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		if c == old {
			c = new
		}
		out[i] = c
	}
	return out
}

func reorderNames(cols []string, pats []Expr) []string {
	var out []string
	used := map[string]bool{}
	for _, p := range pats {
		id, ok := p.(*Ident)
		if !ok {
			continue
		}
		for _, c := range cols {
			if !used[c] && nameMatch(id.Name, c) {
				out = append(out, c)
				used[c] = true
			}
		}
	}
	for _, c := range cols {
		if !used[c] {
			out = append(out, c)
		}
	}
	return out
}

// maxOutput bounds output-column tracking, which is quadratic in the worst case.
const maxOutput = 2000

// mergeNames appends new names to cols, replacing those already present in place.
func mergeNames(cols, added []string) []string {
	if len(cols)+len(added) > maxOutput {
		return nil
	}
	out := append([]string(nil), cols...)
	for _, a := range added {
		found := false
		for i, c := range out {
			if c == a {
				out[i], found = a, true
				break
			}
		}
		if !found {
			out = append(out, a)
		}
	}
	return out
}

// mergeNamesOK is mergeNames that also reports whether the result is still tracked.
func mergeNamesOK(cols, added []string) ([]string, bool) {
	out := mergeNames(cols, added)
	return out, out != nil
}
