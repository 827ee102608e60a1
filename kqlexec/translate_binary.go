package kqlexec

import (
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/kql"
)

func (t *translator) boolExpr(x kql.Expr, sc *scope) (expr, error) {
	e, err := t.expr(x, sc)
	if err != nil {
		return expr{}, err
	}
	return coerce(e, TBool), nil
}

func (t *translator) binary(b *kql.Binary, sc *scope) (expr, error) {
	op := strings.ToLower(b.Op)
	if alias, ok := opAliases[op]; ok {
		op = alias
	}
	switch op {
	case "and", "or":
		l, err := t.boolExpr(b.Left, sc)
		if err != nil {
			return expr{}, err
		}
		r, err := t.boolExpr(b.Right, sc)
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "(" + l.sql + " " + strings.ToUpper(op) + " " + r.sql + ")", t: TBool}, nil
	case ":":
		return expr{}, t.unsupported(b, "the : search operator")
	}
	if _, star := b.Left.(*kql.Star); star {
		return t.starPredicate(b, op, sc)
	}
	l, err := t.expr(b.Left, sc)
	if err != nil {
		return expr{}, err
	}
	r, err := t.expr(b.Right, sc)
	if err != nil {
		return expr{}, err
	}
	switch op {
	case "==", "!=", "<>", "<", "<=", ">", ">=":
		return t.compare(b, op, l, r)
	case "+", "-", "*", "/", "%":
		return t.arith(b, op, l, r)
	}
	if _, ok := stringOps[op]; ok {
		if l.t != TString {
			l = coerce(l, TString)
		}
		if r.t != TString {
			r = coerce(r, TString)
		}
		switch op {
		case "==":
		case "contains_cs":
			return expr{sql: "(instr(" + l.sql + ", " + r.sql + ") > 0)", t: TBool}, nil
		case "!contains_cs":
			return expr{sql: "(instr(" + l.sql + ", " + r.sql + ") = 0)", t: TBool}, nil
		}
		return call("op:"+op, TBool, l, r), nil
	}
	return expr{}, t.unsupported(b, "operator "+b.Op)
}

func (t *translator) compare(b *kql.Binary, op string, l, r expr) (expr, error) {
	if op == "<>" {
		op = "!="
	}
	if l.t == TDynamic && r.t == TDynamic && (op == "==" || op == "!=") {
		return call("op:dyn"+op, TBool, l, r), nil
	}
	l, r = unify(l, r)
	if (op == "==" || op == "!=") && l.t != TString && r.t != TString {
		if (l.t == TReal || l.t == TDecimal) && !(l.isLit && !isNaNLit(l)) && !(r.isLit && !isNaNLit(r)) {
			// NaN equals nothing, itself included (IEEE 754, as .NET compares). The
			// stored text 'NaN' is already unequal to a number, so only a comparison
			// of two values that may both be NaN needs the guard (it reads a computed
			// column twice)
			conds, opaque := nanConds(l, r)
			if opaque {
				return call("op:r"+op, TBool, coerce(l, TReal), coerce(r, TReal)), nil
			}
			if len(conds) > 0 {
				eq := nullEquality(op, l, r)
				eq.sql = "CASE WHEN " + strings.Join(conds, " OR ") + " THEN " + strconv.Itoa(b2i(op == "!=")) + " ELSE " + eq.sql + " END"
				return eq, nil
			}
		}
		return nullEquality(op, l, r), nil
	}
	if op == "==" {
		op = "="
	}
	sql := "(" + l.sql + " " + op + " " + r.sql + ")"
	if l.t == TReal || l.t == TDecimal {
		// NaN is ordered with nothing: every comparison with it is false
		if _, opaque := nanConds(l, r); opaque {
			return call("op:r"+op, TBool, coerce(l, TReal), coerce(r, TReal)), nil
		}
		sql = nanGuard(sql, "0", l, r)
	}
	return expr{sql: sql, t: TBool}, nil
}

// colRefRE matches the SQL of a plain column reference (t.c3).
var colRefRE = lazyregexp.New(`^(?:[a-z]\w*\.)?c\d+$`)

// nanGuard makes sql, an SQL operation on reals, give nan when an operand is a stored
// NaN (the text 'NaN', which SQLite arithmetic would read as 0). The operands must not
// be opaque (see nanConds): a column is read twice, which costs nothing, and an
// operation already guarded brings its own conditions.
func nanGuard(sql, nan string, ops ...expr) string {
	conds, _ := nanConds(ops...)
	if len(conds) == 0 {
		return sql
	}
	return "CASE WHEN " + strings.Join(conds, " OR ") + " THEN " + nan + " ELSE " + sql + " END"
}

// isNaNLit reports whether x is the constant NaN.
func isNaNLit(x expr) bool {
	f, ok := x.lit.(float64)
	return x.isLit && ok && math.IsNaN(f)
}

// nanConds lists the SQL conditions under which a real operand is NaN: a column
// holding the text 'NaN', or the conditions of a guarded operation on columns.
// opaque is true when an operand is the constant NaN: the operation goes through Go,
// which computes it while translating (fold). The NaN a Go function returns inside an
// expression is not seen: SQL arithmetic reads it as 0. Sending every operation on a
// Go function's result through Go to see it cost three to four times the query's
// time (a chain like todouble(x) * 2.0 + 1 on a million rows: 7 s, 25 s).
func nanConds(ops ...expr) (conds []string, opaque bool) {
	for _, x := range ops {
		if x.t != TReal && x.t != TDecimal {
			continue
		}
		switch {
		case x.isLit:
			if f, ok := x.lit.(float64); ok && math.IsNaN(f) {
				opaque = true
			}
		case colRefRE.MatchString(x.sql):
			conds = append(conds, "typeof("+x.sql+") = 'text'")
		case x.nan != nil:
			conds = append(conds, x.nan...)
		}
	}
	return conds, opaque
}

// nullEquality is Kusto's == and != (its null-values page): a null and a non-null
// value are unequal (false, true), two nulls compare to null, other values as SQL.
// Strings are never null in Kusto and keep SQL's comparison.
func nullEquality(op string, l, r expr) expr {
	sqlOp, unequal := "=", "0"
	if op == "!=" {
		sqlOp, unequal = "!=", "1"
	}
	notNull := func(e expr) bool { return e.isLit && e.lit != nil }
	if notNull(l) || notNull(r) {
		// one side is never null: a null on the other is unequal
		return expr{sql: "coalesce(" + l.sql + " " + sqlOp + " " + r.sql + ", " + unequal + ")", t: TBool}
	}
	// coalesce stops at the comparison when both sides have values: each is read once
	return expr{sql: "coalesce(" + l.sql + " " + sqlOp + " " + r.sql + ", CASE WHEN " + l.sql + " IS NULL AND " + r.sql +
		" IS NULL THEN NULL ELSE " + unequal + " END)", t: TBool}
}

func (t *translator) arith(b *kql.Binary, op string, l, r expr) (expr, error) {
	if l.t == TDynamic && r.t != TDynamic {
		l = coerce(l, arithPeer(r.t))
	}
	if r.t == TDynamic && l.t != TDynamic {
		r = coerce(r, arithPeer(l.t))
	}
	if l.t == TDynamic && r.t == TDynamic {
		l, r = coerce(l, TReal), coerce(r, TReal)
	}
	if l.t == TBool {
		l = coerce(l, TLong)
	}
	if r.t == TBool {
		r = coerce(r, TLong)
	}
	bin := func(ty Type) (expr, error) {
		x := expr{sql: "(" + l.sql + " " + op + " " + r.sql + ")", t: ty}
		if ty == TReal || ty == TDecimal {
			conds, opaque := nanConds(l, r)
			if opaque {
				return call("op:r"+op, ty, coerce(l, TReal), coerce(r, TReal)), nil
			}
			if len(conds) > 0 {
				x.sql = "CASE WHEN " + strings.Join(conds, " OR ") + " THEN " + quote(nanText) + " ELSE " + x.sql + " END"
				x.nan = conds
			}
		}
		return x, nil
	}
	lt, rt := l.t, r.t
	switch {
	case lt.numeric() && rt.numeric():
		ty := promote(lt, rt)
		switch op {
		case "/":
			if ty == TReal || ty == TDecimal {
				return call("op:/", ty, coerce(l, TReal), coerce(r, TReal)), nil
			}
			return call("op:idiv", ty, l, r), nil
		case "%":
			if ty == TReal || ty == TDecimal {
				return call("op:fmod", TReal, coerce(l, TReal), coerce(r, TReal)), nil
			}
			return call("op:imod", ty, l, r), nil
		}
		return bin(ty)
	case lt == TDatetime && rt == TTimespan && (op == "+" || op == "-"):
		return bin(TDatetime)
	case lt == TTimespan && rt == TDatetime && op == "+":
		return bin(TDatetime)
	case lt == TDatetime && rt == TDatetime && op == "-":
		return bin(TTimespan)
	case lt == TTimespan && rt == TTimespan:
		switch op {
		case "+", "-":
			return bin(TTimespan)
		case "/":
			return call("op:/", TReal, coerce(l, TReal), coerce(r, TReal)), nil
		case "%":
			return call("op:imod", TTimespan, l, r), nil
		}
	case lt == TTimespan && rt.numeric() && (op == "*" || op == "/"):
		return call("op:span"+op, TTimespan, l, coerce(r, TReal)), nil
	case lt.numeric() && rt == TTimespan && op == "*":
		return call("op:span*", TTimespan, r, coerce(l, TReal)), nil
	case lt == TDatetime && rt.numeric() && (op == "+" || op == "-"):
		return bin(TDatetime)
	case lt == TString || rt == TString:
		return expr{}, t.errAt(b, "operator %s cannot be applied to string operands; use strcat() to join strings", b.Op)
	}
	return expr{}, t.errAt(b, "operator %s cannot be applied to %s and %s", b.Op, lt, rt)
}

func arithPeer(t Type) Type {
	switch t {
	case TLong, TInt:
		return TReal
	case TDatetime:
		return TTimespan
	case TTimespan:
		return TTimespan
	}
	return TReal
}

// in translates in, !in, in~, !in~, has_any and has_all.
func (t *translator) in(x *kql.InExpr, sc *scope) (expr, error) {
	op := strings.ToLower(x.Op)
	left, err := t.expr(x.Left, sc)
	if err != nil {
		return expr{}, err
	}
	neg := strings.HasPrefix(op, "!")
	base := strings.TrimPrefix(op, "!")
	ci := base == "in~"
	var scalars []expr
	var arrays []expr
	var subs []*rel
	for _, el := range x.List {
		if isTabular(el, sc.env, t) {
			r, err := t.tabular(el, sc.env)
			if err != nil {
				return expr{}, err
			}
			subs = append(subs, r)
			continue
		}
		e, err := t.expr(el, sc)
		if err != nil {
			return expr{}, err
		}
		if e.t == TDynamic {
			arrays = append(arrays, e)
		} else {
			scalars = append(scalars, e)
		}
	}
	if base == "has_any" || base == "has_all" {
		if left.t != TString {
			left = coerce(left, TString)
		}
		var parts []string
		all := make([]expr, 0, len(scalars)+len(arrays)+1)
		all = append(all, left)
		for _, s := range scalars {
			all = append(all, coerce(s, TString))
		}
		all = append(all, arrays...)
		if len(subs) > 0 {
			if base == "has_all" {
				return expr{}, t.unsupported(x, "has_all with a subquery")
			}
			for _, r := range subs {
				parts = append(parts, "EXISTS (SELECT 1 FROM "+r.from+" WHERE "+call("op:has", TBool, left, coerce(expr{sql: r.from + ".c0", t: r.cols[0].Type}, TString)).sql+")")
			}
		}
		if len(all) > 1 || len(parts) == 0 {
			parts = append(parts, call("op:"+base, TBool, all...).sql)
		}
		return expr{sql: "(" + strings.Join(parts, " OR ") + ")", t: TBool}, nil
	}
	if left.t == TDynamic {
		t2 := TString
		if len(scalars) > 0 {
			t2 = scalars[0].t
		} else if len(subs) > 0 && len(subs[0].cols) > 0 {
			t2 = subs[0].cols[0].Type
		}
		left = coerce(left, t2)
	}
	lower := func(e expr) expr {
		if !ci {
			return e
		}
		return call("tolower", TString, coerce(e, TString))
	}
	l := lower(left)
	var parts []string
	if len(scalars) > 0 {
		vals := make([]string, len(scalars))
		for i, s := range scalars {
			_, s2 := unify(left, s)
			vals[i] = lower(s2).sql
		}
		parts = append(parts, l.sql+" IN ("+strings.Join(vals, ", ")+")")
	}
	for _, r := range subs {
		if len(r.cols) == 0 {
			continue
		}
		c := expr{sql: "c0", t: r.cols[0].Type}
		_, c = unify(left, c)
		parts = append(parts, l.sql+" IN (SELECT "+lower(c).sql+" FROM "+r.from+")")
	}
	for _, a := range arrays {
		name := "op:in_dyn"
		if ci {
			name = "op:in_dyn~"
		}
		parts = append(parts, call(name, TBool, left, a).sql)
	}
	if len(parts) == 0 {
		parts = []string{"0"}
	}
	s := "(" + strings.Join(parts, " OR ") + ")"
	if neg {
		s = "(NOT " + s + ")"
	}
	return expr{sql: s, t: TBool}, nil
}

func (t *translator) member(m *kql.Member, sc *scope) (expr, error) {
	if id, ok := m.X.(*kql.Ident); ok && (id.Name == "$left" || id.Name == "$right") {
		side := sc.left
		if id.Name == "$right" {
			side = sc.right
		}
		if side == nil {
			return expr{}, t.errAt(m, "%s is only allowed in a join's on clause", id.Name)
		}
		x, ok := side.column(m.Name.Name)
		if !ok {
			return expr{}, t.errAt(m.Name, "unknown column %q on the %s side", m.Name.Name, strings.TrimPrefix(id.Name, "$"))
		}
		return x, nil
	}
	x, err := t.expr(m.X, sc)
	if err != nil {
		return expr{}, err
	}
	if x.t != TDynamic {
		x = coerce(x, TDynamic)
	}
	return call("getprop", TDynamic, x, lit(m.Name.Name, TString)), nil
}

func (t *translator) index(ix *kql.Index, sc *scope) (expr, error) {
	if m := outputAt(ix); m != nil {
		return t.expr(m, sc)
	}
	x, err := t.expr(ix.X, sc)
	if err != nil {
		return expr{}, err
	}
	i, err := t.expr(ix.Index, sc)
	if err != nil {
		return expr{}, err
	}
	if x.t != TDynamic {
		x = coerce(x, TDynamic)
	}
	return call("getindex", TDynamic, x, i), nil
}

// starPredicate is * op "x" (where * has "x"): the string operator on any column.
func (t *translator) starPredicate(b *kql.Binary, op string, sc *scope) (expr, error) {
	if _, ok := stringOps[op]; !ok && op != "==" {
		return expr{}, t.unsupported(b, "* "+b.Op)
	}
	r, err := t.expr(b.Right, sc)
	if err != nil {
		return expr{}, err
	}
	var parts []string
	for i, c := range sc.cols {
		x := coerce(expr{sql: sc.ref(i), t: c.Type}, TString)
		if op == "==" {
			// any column whose text is the value, case and all
			parts = append(parts, "coalesce("+x.sql+" = "+coerce(r, TString).sql+", 0)")
			continue
		}
		parts = append(parts, call("op:"+op, TBool, x, coerce(r, TString)).sql)
	}
	if len(parts) == 0 {
		parts = []string{"0"}
	}
	return expr{sql: "(" + strings.Join(parts, " OR ") + ")", t: TBool}, nil
}

// opAliases are legacy spellings of operators.
var opAliases = map[string]string{"notcontains": "!contains", "notcontains_cs": "!contains_cs", "containscs": "contains_cs",
	"notcontainscs": "!contains_cs", "nothas": "!has"}

// outputAt reads f(...)[k] of a function with several outputs (array_sort_asc over
// several arrays, series_fit_line, …) as its k-th output: f(...).key.
func outputAt(ix *kql.Index) kql.Expr {
	c, ok := ix.X.(*kql.Call)
	idx, sign := ix.Index, ""
	if u, neg := idx.(*kql.Unary); neg && u.Op == "-" {
		idx, sign = u.X, "-"
	}
	lit, ok2 := idx.(*kql.Literal)
	if !ok || !ok2 || lit.Null || (lit.Kind != kql.LitLong && lit.Kind != kql.LitInt) {
		return nil
	}
	d := funcs()[c.Name()]
	if d == nil {
		return nil
	}
	outputs := d.outputs
	if d.outputsOf != nil {
		outputs = d.outputsOf(c)
	}
	k, err := strconv.Atoi(sign + lit.Value)
	if err != nil || len(outputs) < 2 {
		return nil
	}
	if k < 0 {
		k += len(outputs)
	}
	if k < 0 || k >= len(outputs) {
		return nil
	}
	return &kql.Member{Span: ix.Span, X: c, Name: &kql.Ident{Span: ix.Span, Name: outputs[k].key}}
}
