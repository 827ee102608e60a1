package kqlexec

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// expr is a translated scalar expression: its SQL and KQL type. lit holds the
// run-time value when the expression is a constant.
type expr struct {
	sql   string
	t     Type
	lit   any
	isLit bool
	// nan, for a real computed by guarded SQL arithmetic on columns, lists the
	// conditions under which it is NaN (see nanConds).
	nan []string
}

// scope is what names mean inside an expression.
type scope struct {
	env   *env
	cols  []column
	alias string
	vars  map[string]expr
	// left and right are the sides of a join's on clause ($left.X, $right.Y).
	left, right *scope
	// agg collects aggregate calls inside summarize; nil elsewhere.
	agg *aggCollector
	// row is the scope's row for row_number-like functions (the _o column).
	rowOrder string
	// pre collects the helper columns a projection computes before its select
	// (translate_window.go); nil where there is no projection to stage them.
	pre *helpers
	// steps are the states of a scan's steps by name (Step.Field), or the variables of
	// a graph-match pattern (Variable.Property); nil elsewhere.
	steps map[string]map[string]expr
	// graph is set in graph-match's where and project (node_degree_in/out).
	graph *graphScope
}

func (s *scope) ref(i int) string {
	if s.alias == "" {
		return colName(i)
	}
	return s.alias + "." + colName(i)
}

func (s *scope) column(name string) (expr, bool) {
	if x, ok := s.vars[name]; ok {
		return x, true
	}
	for i := len(s.cols) - 1; i >= 0; i-- {
		if s.cols[i].Name == name {
			return expr{sql: s.ref(i), t: s.cols[i].Type}, true
		}
	}
	return expr{}, false
}

// lit returns the SQL constant for a run-time value of type ty.
func lit(v any, ty Type) expr {
	st := encode(v, ty)
	return expr{sql: sqlValue(st), t: ty, lit: decode(st, ty), isLit: true}
}

// sqlValue writes a stored value as a SQL literal.
func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return quote(nanText)
		case math.IsInf(x, 1):
			return "9e999"
		case math.IsInf(x, -1):
			return "-9e999"
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case string:
		return quote(x)
	}
	return "NULL"
}

func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// coerce converts an expression to another type.
func coerce(x expr, to Type) expr {
	if x.t == to {
		return x
	}
	if x.isLit {
		return lit(x.lit, to)
	}
	if x.sql == "NULL" {
		return expr{sql: "NULL", t: to}
	}
	switch {
	case x.t.integer() && to.integer() && to == TLong:
		return expr{sql: x.sql, t: to}
	case x.t.integer() && (to == TReal || to == TDecimal):
		return expr{sql: "CAST(" + x.sql + " AS REAL)", t: to}
	case (x.t == TReal || x.t == TDecimal) && (to == TReal || to == TDecimal):
		return expr{sql: x.sql, t: to}
	case x.t == TBool && to.integer():
		return expr{sql: x.sql, t: to}
	}
	return call("_cvt", to, x)
}

// call builds a call of a run-time Go function on translated arguments: computed
// now when its arguments are constants, written as SQL when it can be (see
// translate_native.go).
func call(name string, ret Type, args ...expr) expr {
	if x, ok := fold(name, ret, args); ok {
		return x
	}
	if x, ok := native(name, ret, args); ok {
		return x
	}
	return goCall(name, ret, args...)
}

// goCall builds a call of a run-time Go function, always.
func goCall(name string, ret Type, args ...expr) expr {
	var b strings.Builder
	fn := "kf"
	if isVolatile(name) {
		fn = "kfv"
	}
	b.WriteString(fn)
	b.WriteString("('")
	b.WriteString(name)
	b.WriteString("','")
	for _, a := range args {
		b.WriteByte(typeCode[a.t])
	}
	b.WriteByte(typeCode[ret])
	b.WriteByte('\'')
	for _, a := range args {
		b.WriteString(", ")
		b.WriteString(a.sql)
	}
	b.WriteByte(')')
	return expr{sql: b.String(), t: ret}
}

var typeCode = map[Type]byte{
	TString: 's', TLong: 'l', TInt: 'i', TReal: 'r', TBool: 'b', TDatetime: 'd',
	TTimespan: 't', TDynamic: 'y', TGuid: 'g', TDecimal: 'm',
}

var codeType = map[byte]Type{
	's': TString, 'l': TLong, 'i': TInt, 'r': TReal, 'b': TBool, 'd': TDatetime,
	't': TTimespan, 'y': TDynamic, 'g': TGuid, 'm': TDecimal,
}

// expr translates a scalar expression.
func (t *translator) expr(x kql.Expr, sc *scope) (expr, error) {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > 200 {
		return expr{}, t.errAt(x, "expression nesting too deep")
	}
	switch v := x.(type) {
	case *kql.Literal:
		return t.literal(v)
	case *kql.DynamicLit:
		j, err := t.jsonValue(v.Value, sc)
		if err != nil {
			return expr{}, err
		}
		return lit(Dyn{j}, TDynamic), nil
	case *kql.Paren:
		if isTabular(v.X, sc.env, t) {
			return t.scalarSubquery(v.X, sc)
		}
		x, err := t.expr(v.X, sc)
		if err != nil {
			return expr{}, err
		}
		if !x.isLit {
			x.sql = "(" + x.sql + ")"
		}
		return x, nil
	case *kql.Ident:
		return t.ident(v, sc)
	case *kql.Unary:
		return t.unary(v, sc)
	case *kql.Binary:
		return t.binary(v, sc)
	case *kql.InExpr:
		return t.in(v, sc)
	case *kql.BetweenExpr:
		return t.between(v, sc)
	case *kql.Call:
		return t.call(v, sc)
	case *kql.Member:
		if id, ok := v.X.(*kql.Ident); ok && sc.steps != nil {
			if state, ok := sc.steps[id.Name]; ok {
				if x, ok := state[v.Name.Name]; ok {
					return x, nil
				}
				return expr{}, t.errAt(v, "%s has no column, variable or property %q", id.Name, v.Name.Name)
			}
		}
		return t.member(v, sc)
	case *kql.Index:
		return t.index(v, sc)
	case *kql.PipeExpr:
		return t.scalarSubquery(v, sc)
	case *kql.NamedExpr:
		return expr{}, t.errAt(v, "an assignment is not allowed here")
	case *kql.Star:
		return expr{}, t.errAt(v, "* is not allowed here")
	case *kql.TypeOf:
		return expr{}, t.errAt(v, "typeof(...) is not allowed here")
	}
	return expr{}, t.unsupported(x, "expression "+kql.Format(x))
}

func (t *translator) literal(l *kql.Literal) (expr, error) {
	ty := map[kql.LitKind]Type{
		kql.LitString: TString, kql.LitLong: TLong, kql.LitInt: TInt, kql.LitReal: TReal,
		kql.LitDecimal: TDecimal, kql.LitBool: TBool, kql.LitDatetime: TDatetime,
		kql.LitTimespan: TTimespan, kql.LitGuid: TGuid, kql.LitNull: TDynamic,
	}[l.Kind]
	if l.Null || l.Kind == kql.LitNull {
		return expr{sql: "NULL", t: ty, isLit: true}, nil
	}
	v := strings.TrimSpace(l.Value)
	switch l.Kind {
	case kql.LitString:
		return lit(l.Value, TString), nil
	case kql.LitLong, kql.LitInt:
		n, err := parseIntLit(v)
		if err != nil {
			if f, ferr := strconv.ParseFloat(v, 64); ferr == nil {
				return lit(int64(f), ty), nil
			}
			return expr{}, t.errAt(l, "bad number %q", l.Raw)
		}
		return lit(n, ty), nil
	case kql.LitReal, kql.LitDecimal:
		f, ok := toReal(v)
		if !ok {
			return expr{}, t.errAt(l, "bad number %q", l.Raw)
		}
		return lit(f, ty), nil
	case kql.LitBool:
		b, ok := toBool(v)
		if !ok {
			return expr{}, t.errAt(l, "bad bool %q", l.Raw)
		}
		return lit(b, TBool), nil
	case kql.LitDatetime:
		d, ok := parseDatetime(strings.Trim(v, "\"'"))
		if !ok {
			return expr{}, t.errAt(l, "bad datetime %q", l.Raw)
		}
		return lit(d, TDatetime), nil
	case kql.LitTimespan:
		s, ok := parseTimespan(strings.Trim(v, "\"'"))
		if !ok {
			return expr{}, t.errAt(l, "bad timespan %q", l.Raw)
		}
		return lit(s, TTimespan), nil
	case kql.LitGuid:
		g, ok := parseGuid(strings.Trim(v, "\"'"))
		if !ok {
			return expr{}, t.errAt(l, "bad guid %q", l.Raw)
		}
		return lit(g, TGuid), nil
	}
	return expr{}, t.unsupported(l, "literal "+l.Raw)
}

func parseIntLit(v string) (int64, error) {
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		u, err := strconv.ParseUint(v[2:], 16, 64)
		return int64(u), err
	}
	return strconv.ParseInt(v, 10, 64)
}

// jsonValue evaluates the inside of dynamic(...).
func (t *translator) jsonValue(x kql.Expr, sc *scope) (any, error) {
	switch v := x.(type) {
	case *kql.ArrayLit:
		out := make([]any, 0, len(v.Elems))
		for _, e := range v.Elems {
			j, err := t.jsonValue(e, sc)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case *kql.ObjectLit:
		out := map[string]any{}
		for i, k := range v.Keys {
			j, err := t.jsonValue(v.Values[i], sc)
			if err != nil {
				return nil, err
			}
			out[k] = j
		}
		return out, nil
	case *kql.DynamicLit:
		return t.jsonValue(v.Value, sc)
	case *kql.Literal:
		if v.Kind == kql.LitLong || v.Kind == kql.LitInt {
			if n, err := parseIntLit(strings.TrimSpace(v.Value)); err == nil {
				return json.Number(strconv.FormatInt(n, 10)), nil
			}
		}
		if v.Kind == kql.LitReal {
			if f, ok := toReal(strings.TrimSpace(v.Value)); ok {
				return toJSONValue(f), nil
			}
		}
	case *kql.Unary:
		if l, ok := v.X.(*kql.Literal); ok && v.Op == "-" {
			j, err := t.jsonValue(l, sc)
			if err != nil {
				return nil, err
			}
			if n, ok := j.(json.Number); ok {
				return json.Number("-" + string(n)), nil
			}
		}
	}
	e, err := t.expr(x, sc)
	if err != nil {
		return nil, err
	}
	if !e.isLit {
		return nil, t.errAt(x, "dynamic(...) needs constant values")
	}
	return toJSONValue(e.lit), nil
}

func (t *translator) ident(id *kql.Ident, sc *scope) (expr, error) {
	if x, ok := sc.column(id.Name); ok {
		return x, nil
	}
	if b := sc.env.lookup(id.Name); b != nil {
		switch {
		case b.scalar != nil:
			if b.rowDepth > 0 && t.tabDepth+1 > b.rowDepth {
				// Kusto evaluates a subquery once, not per row (the toscalar page)
				return expr{}, t.errAt(id, "can't use %q as it is defined outside its row-context scope", id.Name)
			}
			return *b.scalar, nil
		case b.fn != nil && len(b.fn.Params) == 0 && !funcIsTabular(b.fn, b.fnEnv, t):
			return t.callScalarFunc(id, b, nil, sc)
		case b.tab != nil || b.rel != nil || b.fn != nil:
			return t.scalarSubquery(id, sc)
		}
	}
	switch id.Name {
	case "true", "false":
		return lit(id.Name == "true", TBool), nil
	}
	if t.tables != nil {
		if _, ok := t.tables(id.Name); ok {
			return t.scalarSubquery(id, sc)
		}
	}
	return expr{}, t.errAt(id, "unknown name %q: no such column, variable or function", id.Name)
}

// scalarSubquery is a tabular expression in scalar position: its first column of its
// first row (toscalar semantics).
func (t *translator) scalarSubquery(x kql.Expr, sc *scope) (expr, error) {
	r, err := t.tabular(x, sc.env)
	if err != nil {
		return expr{}, err
	}
	if len(r.cols) == 0 {
		return expr{}, t.errAt(x, "the table has no columns")
	}
	return expr{sql: "(SELECT c0 FROM " + r.from + " ORDER BY _o LIMIT 1)", t: r.cols[0].Type}, nil
}

func (t *translator) unary(u *kql.Unary, sc *scope) (expr, error) {
	x, err := t.expr(u.X, sc)
	if err != nil {
		return expr{}, err
	}
	if u.Op == "+" {
		return x, nil
	}
	if x.t == TDynamic {
		x = coerce(x, TReal)
	}
	if x.isLit && x.lit != nil {
		switch v := x.lit.(type) {
		case int64:
			return lit(-v, x.t), nil
		case float64:
			return lit(-v, x.t), nil
		case Timespan:
			return lit(-v, x.t), nil
		}
	}
	if x.t == TReal || x.t == TDecimal {
		conds, opaque := nanConds(x)
		if opaque {
			return call("op:rneg", x.t, x), nil
		}
		if len(conds) > 0 {
			return expr{sql: "CASE WHEN " + strings.Join(conds, " OR ") + " THEN " + quote(nanText) + " ELSE (-" + x.sql + ") END", t: x.t, nan: conds}, nil
		}
	}
	return expr{sql: "(-" + x.sql + ")", t: x.t}, nil
}

func (t *translator) between(b *kql.BetweenExpr, sc *scope) (expr, error) {
	x, err := t.expr(b.Left, sc)
	if err != nil {
		return expr{}, err
	}
	lo, err := t.expr(b.Low, sc)
	if err != nil {
		return expr{}, err
	}
	hi, err := t.expr(b.High, sc)
	if err != nil {
		return expr{}, err
	}
	if x.t == TDatetime && hi.t == TTimespan {
		lo = coerce(lo, TDatetime)
		hi = expr{sql: "(" + lo.sql + " + " + hi.sql + ")", t: TDatetime}
	}
	x, lo = unify(x, lo)
	x, hi = unify(x, hi)
	op := " BETWEEN "
	if b.Not {
		op = " NOT BETWEEN "
	}
	return expr{sql: "(" + x.sql + op + lo.sql + " AND " + hi.sql + ")", t: TBool}, nil
}

// unify converts two operands of a comparison to a common type.
func unify(a, b expr) (expr, expr) {
	switch {
	case a.t == b.t:
		return a, b
	case a.t == TDynamic && b.t != TDynamic:
		return coerce(a, b.t), b
	case b.t == TDynamic && a.t != TDynamic:
		return a, coerce(b, a.t)
	case a.t.numeric() && b.t.numeric():
		return a, b
	case a.t == TGuid && b.t == TString:
		return coerce(a, TString), b
	case a.t == TString && b.t == TGuid:
		return a, coerce(b, TString)
	case a.t == TString && b.isLit:
		return a, coerce(b, TString)
	case b.t == TString && a.isLit:
		return coerce(a, TString), b
	case a.t == TBool && b.t.integer(), a.t.integer() && b.t == TBool:
		return a, b
	}
	return a, coerce(b, a.t)
}
