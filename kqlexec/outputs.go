package kqlexec

import "github.com/qeval/qeval/kql"

// Some KQL functions return several columns rather than one value: series_fit_line
// gives rsquare, slope, variance, …; series_stats gives min, min_idx, max, …. Such a
// function is defined here as a Go function returning a property bag with one key per
// output (fnDef.outputs, in Kusto's column order), and a project, extend or print item
// that calls it is rewritten into one item per output before translation:
//
//	extend (rs, sl) = series_fit_line(y)  →  rs = todouble(series_fit_line(y).rsquare), sl = …
//	extend series_fit_line(y)             →  series_fit_line_y_rsquare = …, series_fit_line_y_slope = …, …
//
// Named outputs take the names in order; extend keeps only the named ones, project and
// print add the rest under their default names (FUNC_ARG_OUTPUT), as Kusto does.

// output is one column of a function that returns several: the key of fn's bag and
// its type. name is the column's default name when outputsOf gives it (else the
// default is FUNC_ARG_KEY).
type output struct {
	key  string
	t    Type
	name string
}

// outs declares a function's outputs from name, type pairs.
func outs(pairs ...any) []output {
	o := make([]output, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		o = append(o, output{key: pairs[i].(string), t: pairs[i+1].(Type)})
	}
	return o
}

// expandOutputs rewrites the items that call a function with several outputs.
func expandOutputs(items []kql.Expr, extend bool) []kql.Expr {
	var out []kql.Expr
	for i, it := range items {
		names, val := itemParts(it)
		call, ok := val.(*kql.Call)
		var d *fnDef
		if ok {
			d = funcs()[call.Name()]
		}
		var outputs []output
		if d != nil {
			outputs = d.outputs
			if d.outputsOf != nil {
				outputs = d.outputsOf(call)
			}
		}
		if len(outputs) == 0 || len(names) > len(outputs) {
			if out != nil {
				out = append(out, it)
			}
			continue
		}
		if out == nil {
			out = append(make([]kql.Expr, 0, len(items)+len(outputs)), items[:i]...)
		}
		prefix := call.Name() + "_"
		if len(call.Args) > 0 {
			prefix += autoName(call.Args[0])
		}
		for j, o := range outputs {
			name := prefix + "_" + o.key
			if o.name != "" {
				name = o.name
			}
			if j < len(names) {
				name = names[j]
			} else if len(names) > 0 && extend {
				break
			}
			var v kql.Expr = &kql.Member{Span: call.Span, X: call, Name: &kql.Ident{Span: call.Span, Name: o.key}}
			switch o.t {
			case TReal:
				v = &kql.Call{Span: call.Span, Func: &kql.Ident{Span: call.Span, Name: "todouble"}, Args: []kql.Expr{v}}
			case TLong:
				v = &kql.Call{Span: call.Span, Func: &kql.Ident{Span: call.Span, Name: "tolong"}, Args: []kql.Expr{v}}
			}
			out = append(out, &kql.NamedExpr{Span: call.Span, Names: []*kql.Ident{{Span: call.Span, Name: name}}, Value: v})
		}
	}
	if out == nil {
		return items
	}
	return out
}
