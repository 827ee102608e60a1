package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// mv-expand, mv-apply and parse.

func (t *translator) mvExpand(in *rel, o *kql.MvExpandOp, e *env) (*rel, error) {
	sc := inScope(in, e)
	kind := "bag"
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
	}
	if k, ok := o.Param("bagexpansion").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
	}
	cols := append([]column(nil), in.cols...)
	sqls := selectCols(in)
	var arrays []expr
	single := len(o.Items) == 1
	for _, it := range o.Items {
		names, val := itemParts(it.X)
		x, err := t.expr(val, sc)
		if err != nil {
			return nil, err
		}
		if x.t != TDynamic {
			x = coerce(x, TDynamic)
		}
		arrays = append(arrays, x)
		elem := call("mvx_at", TDynamic, x, expr{sql: "j.value", t: TLong}, lit(kind, TString))
		if single {
			elem = jsonEachElem(kind)
		}
		ty := TDynamic
		if it.To != nil {
			var ok bool
			if ty, ok = ParseType(it.To.Name); !ok {
				return nil, t.errAt(it.To, "unknown type %q", it.To.Name)
			}
			elem = expandedAs(elem, ty, single)
		}
		name := ""
		if len(names) > 0 {
			name = names[0]
		} else if name = autoName(val); name == "" {
			name = "Column1"
		}
		cols, sqls = setCol(cols, sqls, column{name, ty}, elem.sql)
	}
	pos := "j.value"
	from := "json_each(" + call("mvx_idx", TDynamic, arrays...).sql + ")"
	if single {
		// one column: SQLite walks the array itself (no per-element decoding)
		pos = "j.rowid"
		from = "json_each(CASE json_type(" + arrays[0].sql + ") WHEN 'array' THEN " + arrays[0].sql + " WHEN 'object' THEN " + arrays[0].sql + " ELSE json_array(json(" + arrays[0].sql + ")) END)"
	}
	if ix, ok := o.Param("with_itemindex").(*kql.Ident); ok {
		cols, sqls = setCol(cols, sqls, column{ix.Name, TLong}, pos)
	}
	t.materialize(in)
	sel := "SELECT " + strings.Join(append(sqls, "row_number() OVER (ORDER BY t._o, j.id)"), ", ") + " FROM " + in.from + " t JOIN " + from + " j"
	if o.Limit != nil {
		n, err := t.countExpr(o.Limit, e)
		if err != nil {
			return nil, err
		}
		sel += " WHERE " + pos + " < " + n
	}
	return t.stage(cols, sel), nil
}

// expandedAs converts an expanded element to type ty. An array's string element
// (json_each's text) is converted from the text itself, not from its JSON: the
// same value, without quoting and parsing it again.
func expandedAs(elem expr, ty Type, single bool) expr {
	conv := coerce(elem, ty)
	switch ty {
	case TString, TDynamic:
		return conv
	}
	if !single {
		return conv
	}
	return expr{sql: "(CASE WHEN j.type = 'text' AND typeof(j.key) != 'text' THEN " + goCall("_cvt", ty, expr{sql: "j.value", t: TString}).sql +
		" ELSE " + conv.sql + " END)", t: ty}
}

// jsonEachElem is the element of json_each row j as stored dynamic JSON text; the
// members of a property bag become one-key bags (or [key, value] for kind=array).
func jsonEachElem(kind string) expr {
	v := "CASE j.type WHEN 'null' THEN NULL WHEN 'text' THEN json_quote(j.value) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' " +
		"WHEN 'integer' THEN CAST(j.value AS TEXT) WHEN 'real' THEN " + call("_cvt", TDynamic, expr{sql: "j.value", t: TReal}).sql + " ELSE j.value END"
	bag := "json_object(j.key, json(coalesce(" + v + ", 'null')))"
	if kind == "array" {
		bag = "json_array(j.key, json(coalesce(" + v + ", 'null')))"
	}
	return expr{sql: "(CASE WHEN typeof(j.key) = 'text' THEN " + bag + " ELSE " + v + " END)", t: TDynamic}
}

// mvApply translates mv-apply: the arrays of each row are expanded into a small table,
// the subquery runs on each row's table separately (a hidden group column keeps the
// rows apart), and each row is joined with its subquery's result.
func (t *translator) mvApply(in *rel, o *kql.MvApplyOp, e *env) (*rel, error) {
	if t.part != "" {
		return nil, t.unsupported(o, "mv-apply inside mv-apply")
	}
	if o.Body == nil || o.Body.Source != nil {
		return nil, t.errAt(o, "mv-apply needs a subquery in parentheses")
	}
	const part = "\x00mvapply"
	gcols := append(append([]column(nil), in.cols...), column{part, TLong})
	g := t.stage(gcols, "SELECT "+strings.Join(append(selectCols(in), "row_number() OVER (ORDER BY t._o)", "t._o"), ", ")+" FROM "+in.from+" t")
	exp, err := t.mvExpand(g, &kql.MvExpandOp{OpBase: o.OpBase, Items: o.Items, Limit: o.Limit}, e)
	if err != nil {
		return nil, err
	}
	t.part = part
	r := exp
	for _, op := range o.Body.Ops {
		if r, err = t.op(r, op, e); err != nil {
			t.part = ""
			return nil, err
		}
	}
	t.part = ""
	gi, ri := g.index(part), r.index(part)
	if ri < 0 {
		return nil, t.unsupported(o, "this mv-apply subquery")
	}
	// A column expanded under its own name leaves the input row (its reference
	// page): only the subquery's output can bring it back.
	expanded := map[string]bool{}
	for _, it := range o.Items {
		if names, val := itemParts(it.X); len(names) == 0 {
			if id, ok := val.(*kql.Ident); ok {
				expanded[id.Name] = true
			}
		}
	}
	var cols []column
	var sqls []string
	for i, c := range in.cols {
		if j := r.index(c.Name); j >= 0 {
			cols = append(cols, r.cols[j])
			sqls = append(sqls, "r."+colName(j))
			continue
		}
		if expanded[c.Name] {
			continue
		}
		cols = append(cols, c)
		sqls = append(sqls, "l."+colName(i))
	}
	for j, c := range r.cols {
		if c.Name == part || hasCol(cols, c.Name) {
			continue
		}
		cols = append(cols, c)
		sqls = append(sqls, "r."+colName(j))
	}
	sel := "SELECT " + strings.Join(append(sqls, "row_number() OVER (ORDER BY l._o, r._o)"), ", ") +
		" FROM " + g.from + " l JOIN " + r.from + " r ON l." + colName(gi) + " = r." + colName(ri)
	return t.stage(cols, sel), nil
}
