package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// find translates find [withsource=Name] [in (T, …)] where Predicate [project-smart |
// project Col[:type], …[, pack_all()]] as a union of one pipeline per table, written
// as KQL the translator knows. The tables are those named (wildcards read the loaded
// tables and views), or all of them; a table with none of the columns the predicate
// reads is left out, and a column it lacks reads as null. A bare string searches
// every column (* has "term"). With project-smart (the default) the output is the
// source column, the predicate's columns, the columns every table has, and pack_ (a
// bag of each row's other columns); with project, the columns named (null where a
// table lacks one) and, for pack_all(), pack_ of the rest.
func (t *translator) find(o *kql.FindOp, e *env) (*rel, error) {
	source := "source_"
	if id, ok := o.Param("withsource").(*kql.Ident); ok {
		source = id.Name
	}
	var names []kql.Expr
	if len(o.Tables) == 0 {
		names = t.wildcardTables(&kql.Ident{Span: o.Span, Name: "*"}, e)
	}
	for _, x := range o.Tables {
		id, ok := x.(*kql.Ident)
		if !ok {
			return nil, t.unsupported(x, "find in a table given by an expression")
		}
		if strings.ContainsRune(id.Name, '*') {
			names = append(names, t.wildcardTables(id, e)...)
			continue
		}
		names = append(names, id)
	}
	type table struct {
		name string
		cols []column
	}
	var tables []table
	for _, n := range names {
		r, err := t.tabular(n, e)
		if err != nil {
			return nil, err
		}
		tables = append(tables, table{kql.Format(n), r.cols})
	}
	typeOf := map[string]Type{} // a column's type where a table first has it
	for _, tb := range tables {
		for _, c := range tb.cols {
			if _, ok := typeOf[c.Name]; !ok {
				typeOf[c.Name] = c.Type
			}
		}
	}
	pred := kql.Format(o.Pred)
	if l, ok := o.Pred.(*kql.Literal); ok && l.Kind == kql.LitString {
		pred = "* has " + pred
	}
	var predCols []string
	seen := map[string]bool{}
	kql.Inspect(o.Pred, func(n kql.Node) bool {
		if id, ok := n.(*kql.Ident); ok {
			if _, col := typeOf[id.Name]; col && !seen[id.Name] {
				seen[id.Name] = true
				predCols = append(predCols, id.Name)
			}
		}
		return true
	})
	has := func(tb table, name string) bool {
		for _, c := range tb.cols {
			if c.Name == name {
				return true
			}
		}
		return false
	}
	var kept []table
	for _, tb := range tables {
		use := len(predCols) == 0
		for _, c := range predCols {
			use = use || has(tb, c)
		}
		if use {
			kept = append(kept, tb)
		}
	}
	if len(kept) == 0 {
		return nil, t.errAt(o, "find: no table has a column the predicate reads")
	}
	// the output columns, and whether the rest of each row goes into pack_
	var out []string
	pack := false
	if len(o.Project) > 0 {
		for _, x := range o.Project {
			switch v := x.(type) {
			case *kql.Call:
				if !strings.EqualFold(v.Name(), "pack_all") {
					return nil, t.unsupported(x, "find project "+kql.Format(x))
				}
				pack = true
			case *kql.ColumnDecl:
				if v.Type != nil {
					ty, err := t.declType(v, v.Type, TDynamic)
					if err != nil {
						return nil, err
					}
					typeOf[v.Name.Name] = ty
				}
				out = append(out, v.Name.Name)
			case *kql.Ident:
				out = append(out, v.Name)
			default:
				return nil, t.unsupported(x, "find project "+kql.Format(x))
			}
		}
	} else {
		out = append(out, predCols...)
		for _, c := range kept[0].cols {
			common := !seen[c.Name]
			for _, tb := range kept[1:] {
				common = common && has(tb, c.Name)
			}
			if common {
				out = append(out, c.Name)
			}
		}
		for _, tb := range kept {
			pack = pack || len(tb.cols) > len(out)
		}
	}
	inOut := map[string]bool{}
	for _, c := range out {
		inOut[c] = true
	}
	var parts []string
	for _, tb := range kept {
		var b strings.Builder
		b.WriteString(tb.name)
		// a column the predicate or the output reads and the table lacks is null
		var missing []string
		added := map[string]bool{}
		for _, c := range append(append([]string(nil), predCols...), out...) {
			if !has(tb, c) && !added[c] {
				added[c] = true
				missing = append(missing, quoteName(c)+" = "+nullOf(typeOf[c]))
			}
		}
		if len(missing) > 0 {
			b.WriteString(" | extend " + strings.Join(missing, ", "))
		}
		b.WriteString(" | where " + pred)
		items := []string{quoteName(source) + " = " + kqlString(tb.name)}
		for _, c := range out {
			items = append(items, quoteName(c)+" = "+convertTo(typeOf[c], quoteName(c)))
		}
		if pack {
			var rest []string
			for _, c := range tb.cols {
				if !inOut[c.Name] {
					rest = append(rest, kqlString(c.Name), quoteName(c.Name))
				}
			}
			items = append(items, "pack_ = bag_pack("+strings.Join(rest, ", ")+")")
		}
		b.WriteString(" | project " + strings.Join(items, ", "))
		parts = append(parts, "("+b.String()+")")
	}
	return t.viaKQL(o, nil, e, "union "+strings.Join(parts, ", "))
}

// nullOf is the null of a type, as KQL writes it.
func nullOf(ty Type) string {
	switch ty {
	case "":
		ty = TDynamic
	case TString:
		return `""`
	}
	return string(ty) + "(null)"
}

// convertTo writes x converted to ty (tostring(x), todatetime(x), …).
func convertTo(ty Type, x string) string {
	if ty == "" {
		return x
	}
	return "to" + string(ty) + "(" + x + ")"
}

func kqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
