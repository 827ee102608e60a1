package equiv

import (
	"strconv"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval/z3"
)

// env is what an expression sees: the columns of the row being evaluated, the
// enclosing query's (for correlated subqueries), the result aliases, and, in a grouped
// SELECT, its group.
type env struct {
	cols    []colInfo
	vals    []val
	parent  *env
	group   *group
	aliases map[string]rq.Expr
	// outer, on the scope a subquery's own scopes end at, is set when the subquery
	// reads a name from beyond it (it is correlated)
	outer *bool
}

// group is one group of a grouped SELECT: the rows grouped, which of them are its
// members, and which columns the GROUP BY names (a bare column must be one of them, or
// be the same for every member: an obligation checked apart).
type group struct {
	in      *relation
	member  []z3.Term
	rep     int // the input row standing for the group; -1: the whole input
	grouped map[int]bool
}

// column resolves a column name (qualifier optional) through the scopes.
func (e *enc) column(qual, name string, en *env) (val, bool) {
	qual, name = strings.ToLower(qual), strings.ToLower(name)
	var crossed []*bool
	for s := en; s != nil; s = s.parent {
		if s.outer != nil {
			crossed = append(crossed, s.outer)
		}
		for i, c := range s.cols {
			if c.name == name && (qual == "" || c.qual == qual) {
				for _, o := range crossed {
					*o = true
				}
				if s.group != nil && !s.group.grouped[i] {
					e.bare(s, i)
				}
				if s.vals == nil {
					fail("column %s beside an aggregate without GROUP BY", name)
				}
				if s.vals[i].bad != "" {
					fail("%s", s.vals[i].bad)
				}
				return s.vals[i], true
			}
		}
	}
	return val{}, false
}

// bare records that a grouped SELECT reads a column it neither groups nor aggregates:
// the model takes the representative row's value, which is right only if every
// member of the group has the same; that is an obligation.
func (e *enc) bare(s *env, i int) {
	g := s.group
	if g.rep < 0 {
		fail("a column (%s) beside an aggregate without GROUP BY", s.cols[i].name)
	}
	ctx := e.m.ctx
	r := g.in.rows[g.rep].vals[i]
	for j, m := range g.member {
		o := g.in.rows[j].vals[i]
		e.obligations = append(e.obligations, obligation{"column " + s.cols[i].name + " is neither grouped nor aggregated and can differ within a group",
			ctx.And(g.in.rows[g.rep].exists, m).Implies(ctx.And(r.null.Iff(o.null), ctx.Or(r.null, r.v.Eq(o.v))))})
	}
}

// expr evaluates a value expression.
func (e *enc) expr(x rq.Expr, en *env) val {
	m := e.m
	switch x := x.(type) {
	case *rq.ParenExpr:
		return e.expr(x.X, en)
	case *rq.NumberLit:
		v := m.num(x.Value)
		v.lit = x.Value
		return v
	case *rq.StringLit:
		v := m.textVal(x.Value)
		v.lit, v.isText = x.Value, true
		return v
	case *rq.NullLit:
		return m.nullVal()
	case *rq.BoolLit:
		if x.Value {
			return m.num("1")
		}
		return m.num("0")
	case *rq.Ident:
		if v, ok := e.column("", x.Name, en); ok {
			return v
		}
		if a := e.alias(x.Name, en); a != nil {
			return e.expr(a, en)
		}
		if x.Quoted {
			// SQLite reads a double-quoted name that names no column as a string
			v := m.textVal(x.Name)
			v.lit, v.isText = x.Name, true
			return v
		}
		fail("no such column %s", x.Name)
	case *rq.QualifiedRef:
		if x.Star.IsValid() || x.Column == nil || x.Table == nil {
			fail("%s in an expression", x.String())
		}
		if v, ok := e.column(x.Table.Name, x.Column.Name, en); ok {
			return v
		}
		fail("no such column %s", x.String())
	case *rq.UnaryExpr:
		switch x.Op {
		case rq.MINUS:
			v := e.expr(x.X, en)
			if v.kind == kText {
				fail("minus of a text")
			}
			out := val{null: v.null, v: v.v.Neg(), kind: v.kind, isInt: v.isInt}
			if v.lit != "" {
				out.lit = "-" + v.lit
			}
			return out
		case rq.PLUS:
			return e.expr(x.X, en)
		case rq.NOT:
			return boolVal(m, e.cond(x, en))
		}
		fail("operator %s", x.Op)
	case *rq.BinaryExpr:
		switch x.Op {
		case rq.PLUS, rq.MINUS, rq.STAR, rq.SLASH:
			return e.arith(x, en)
		}
		return boolVal(m, e.cond(x, en))
	case *rq.Call:
		return e.call(x, en)
	case rq.SelectExpr:
		return e.scalar(x.SelectStatement, en)
	case *rq.Exists, *rq.Null:
		return boolVal(m, e.cond(x, en))
	}
	fail("expression %s", exprText(x))
	return val{}
}

func exprText(x rq.Expr) string {
	if x == nil {
		return "(none)"
	}
	s := x.String()
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// boolVal is a condition as a value: 1, 0 or NULL.
func boolVal(m *model, p pred) val {
	return val{null: m.ctx.And(p.t.Not(), p.f.Not()), v: p.t.Ite(m.one, m.zero), kind: kNum, isInt: true}
}

// alias finds a result column alias visible to the expression.
func (e *enc) alias(name string, en *env) rq.Expr {
	var crossed []*bool
	for s := en; s != nil; s = s.parent {
		if s.outer != nil {
			crossed = append(crossed, s.outer)
		}
		if a, ok := s.aliases[strings.ToLower(name)]; ok {
			for _, o := range crossed {
				*o = true
			}
			return a
		}
	}
	return nil
}

// subquery encodes a subquery of an expression. One that reads nothing of the
// enclosing query is encoded once and shared by every row that evaluates it: SQLite
// runs it once, so the rows it returns (and the one it picks, the order it leaves) are
// the same for all.
func (e *enc) subquery(s *rq.SelectStatement, en *env) *relation {
	if rel, ok := e.uncorrelated[s]; ok {
		return rel
	}
	correlated := false
	rel := e.query(s, &env{parent: en, outer: &correlated})
	if !correlated {
		if e.uncorrelated == nil {
			e.uncorrelated = map[*rq.SelectStatement]*relation{}
		}
		e.uncorrelated[s] = rel
	}
	return rel
}

// arith is + - * / of numbers; NULL when an operand is NULL, and for / when the
// divisor is 0. Integer division is not modelled.
func (e *enc) arith(x *rq.BinaryExpr, en *env) val {
	m := e.m
	ctx := m.ctx
	a, b := e.expr(x.X, en), e.expr(x.Y, en)
	if a.kind == kText || b.kind == kText {
		fail("arithmetic on text")
	}
	null := ctx.Or(a.null, b.null)
	out := val{kind: kNum, isInt: a.isInt && b.isInt}
	switch x.Op {
	case rq.PLUS:
		out.v = a.v.Add(b.v)
	case rq.MINUS:
		out.v = a.v.Sub(b.v)
	case rq.STAR:
		out.v = a.v.Mul(b.v)
	case rq.SLASH:
		if a.isInt && b.isInt {
			fail("integer division")
		}
		zero := b.v.Eq(m.zero)
		null = ctx.Or(null, zero)
		out.v = zero.Ite(m.zero, a.v.Div(b.v))
	}
	out.null = null
	return out
}

// cond evaluates a condition in three-valued logic.
func (e *enc) cond(x rq.Expr, en *env) pred {
	switch x := x.(type) {
	case *rq.ParenExpr:
		return e.cond(x.X, en)
	case *rq.UnaryExpr:
		if x.Op == rq.NOT {
			p := e.cond(x.X, en)
			return pred{p.f, p.t}
		}
	case *rq.Null:
		a := e.expr(x.X, en)
		if x.Op == rq.NOTNULL {
			return pred{a.null.Not(), a.null}
		}
		return pred{a.null, a.null.Not()}
	case *rq.Exists:
		return e.existsCond(x, en)
	case *rq.BinaryExpr:
		if p, ok := e.binaryCond(x, en); ok {
			return p
		}
	}
	return e.valueCond(x, en)
}

// existsCond evaluates EXISTS (or NOT EXISTS) of a subquery: true when one of its
// rows is present, never NULL.
func (e *enc) existsCond(x *rq.Exists, en *env) pred {
	sub := e.subquery(x.Select, en)
	var any []z3.Term
	for _, r := range sub.rows {
		any = append(any, r.exists)
	}
	t := e.m.ctx.Or(any...)
	if x.Not.IsValid() {
		return pred{t.Not(), t}
	}
	return pred{t, t.Not()}
}

// binaryCond evaluates a binary operator that makes a condition: AND, OR, the
// comparisons, IS, ISNULL, BETWEEN, IN and LIKE, and their negations. ok is false for
// any other operator, whose value cond then takes as the condition.
func (e *enc) binaryCond(x *rq.BinaryExpr, en *env) (p pred, ok bool) {
	ctx := e.m.ctx
	switch x.Op {
	case rq.AND:
		a, b := e.cond(x.X, en), e.cond(x.Y, en)
		return pred{ctx.And(a.t, b.t), ctx.Or(a.f, b.f)}, true
	case rq.OR:
		a, b := e.cond(x.X, en), e.cond(x.Y, en)
		return pred{ctx.Or(a.t, b.t), ctx.And(a.f, b.f)}, true
	case rq.EQ, rq.NE, rq.LT, rq.LE, rq.GT, rq.GE:
		return e.compare(x.Op, e.expr(x.X, en), e.expr(x.Y, en)), true
	case rq.IS, rq.ISNOT:
		a, b := e.expr(x.X, en), e.expr(x.Y, en)
		same := e.nullSafeEq(a, b)
		if x.Op == rq.ISNOT {
			return pred{same.Not(), same}, true
		}
		return pred{same, same.Not()}, true
	case rq.ISNULL, rq.NOTNULL:
		a := e.expr(x.X, en)
		if x.Op == rq.NOTNULL {
			return pred{a.null.Not(), a.null}, true
		}
		return pred{a.null, a.null.Not()}, true
	case rq.BETWEEN, rq.NOTBETWEEN:
		r, ok := x.Y.(*rq.Range)
		if !ok {
			fail("BETWEEN without a range")
		}
		a := e.expr(x.X, en)
		lo, hi := e.compare(rq.GE, a, e.expr(r.X, en)), e.compare(rq.LE, a, e.expr(r.Y, en))
		p := pred{ctx.And(lo.t, hi.t), ctx.Or(lo.f, hi.f)}
		if x.Op == rq.NOTBETWEEN {
			return pred{p.f, p.t}, true
		}
		return p, true
	case rq.IN, rq.NOTIN:
		p := e.in(x, en)
		if x.Op == rq.NOTIN {
			return pred{p.f, p.t}, true
		}
		return p, true
	case rq.LIKE, rq.NOTLIKE:
		p := e.like(x, en)
		if x.Op == rq.NOTLIKE {
			return pred{p.f, p.t}, true
		}
		return p, true
	}
	return pred{}, false
}

// valueCond takes any other value as a condition: true when not NULL and not 0.
func (e *enc) valueCond(x rq.Expr, en *env) pred {
	m := e.m
	ctx := m.ctx
	v := e.expr(x, en)
	if v.kind == kText {
		fail("a text as a condition")
	}
	nz := v.v.Eq(m.zero).Not()
	return pred{ctx.And(v.null.Not(), nz), ctx.And(v.null.Not(), nz.Not())}
}

// compare is a comparison with SQLite's affinity rules: a literal compared with a
// column takes the column's kind when it can (the text '2014' against a number
// column is the number 2014; the number 5 against a text column is the text '5');
// otherwise numbers sort before texts. NULL on either side gives NULL.
func (e *enc) compare(op rq.Token, a, b val) pred {
	m := e.m
	ctx := m.ctx
	a, b = e.affinity(a, b), e.affinity(b, a)
	if a.kind == kNull || b.kind == kNull {
		return pred{ctx.False(), ctx.False()}
	}
	known := ctx.And(a.null.Not(), b.null.Not())
	var r z3.Term
	if a.kind != b.kind {
		less := a.kind == kNum // numbers sort before texts
		switch op {
		case rq.EQ:
			r = ctx.False()
		case rq.NE:
			r = ctx.True()
		case rq.LT, rq.LE:
			r = ctx.BoolVal(less)
		default:
			r = ctx.BoolVal(!less)
		}
	} else {
		switch op {
		case rq.EQ:
			r = a.v.Eq(b.v)
		case rq.NE:
			r = a.v.Eq(b.v).Not()
		case rq.LT:
			r = a.v.Lt(b.v)
		case rq.LE:
			r = a.v.Le(b.v)
		case rq.GT:
			r = a.v.Gt(b.v)
		case rq.GE:
			r = a.v.Ge(b.v)
		}
	}
	return pred{ctx.And(known, r), ctx.And(known, r.Not())}
}

// affinity converts a literal compared with a column of another kind, as SQLite does.
func (e *enc) affinity(lit, col val) val {
	if lit.lit == "" || lit.column || !col.column || lit.kind == col.kind || col.kind == kNull {
		return lit
	}
	if (col.kind == kNum || col.numAff) && lit.isText {
		if f, err := strconv.ParseFloat(strings.TrimSpace(lit.lit), 64); err == nil {
			_ = f
			v := e.m.num(strings.TrimSpace(lit.lit))
			return v
		}
		return lit
	}
	if col.kind == kText && !lit.isText {
		return e.m.textVal(lit.lit)
	}
	return lit
}

// nullSafeEq is IS: both NULL, or both not NULL and equal.
func (e *enc) nullSafeEq(a, b val) z3.Term {
	ctx := e.m.ctx
	a, b = e.affinity(a, b), e.affinity(b, a)
	if a.kind != b.kind && a.kind != kNull && b.kind != kNull {
		return ctx.And(a.null, b.null)
	}
	return ctx.Or(ctx.And(a.null, b.null), ctx.And(a.null.Not(), b.null.Not(), a.v.Eq(b.v)))
}

// in is x IN (list) or x IN (SELECT …): TRUE when x equals a value, FALSE when it
// equals none and none is NULL (or the list is empty), else NULL.
func (e *enc) in(x *rq.BinaryExpr, en *env) pred {
	ctx := e.m.ctx
	a := e.expr(x.X, en)
	var cands []val
	var present []z3.Term
	list, ok := x.Y.(*rq.ExprList)
	if !ok {
		fail("IN %s", exprText(x.Y))
	}
	if len(list.Exprs) == 1 {
		if sel, ok := list.Exprs[0].(rq.SelectExpr); ok {
			sub := e.subquery(sel.SelectStatement, en)
			if len(sub.cols) != 1 {
				fail("IN a subquery of %d columns", len(sub.cols))
			}
			for _, r := range sub.rows {
				cands, present = append(cands, r.vals[0]), append(present, r.exists)
			}
		}
	}
	if cands == nil {
		for _, y := range list.Exprs {
			if _, ok := y.(rq.SelectExpr); ok {
				fail("IN a list holding a subquery")
			}
			cands, present = append(cands, e.expr(y, en)), append(present, ctx.True())
		}
	}
	var t, unknown []z3.Term
	for i, c := range cands {
		p := e.compare(rq.EQ, a, c)
		t = append(t, ctx.And(present[i], p.t))
		unknown = append(unknown, ctx.And(present[i], p.t.Not(), p.f.Not()))
	}
	tt := ctx.Or(t...)
	return pred{tt, ctx.And(tt.Not(), ctx.Or(unknown...).Not())}
}

// like is x LIKE 'pattern': an uninterpreted predicate of x per pattern (a proof holds
// for every meaning of it); NULL when x is NULL.
func (e *enc) like(x *rq.BinaryExpr, en *env) pred {
	m := e.m
	ctx := m.ctx
	pat := e.expr(x.Y, en)
	if !pat.isText || pat.lit == "" && !strings.Contains(x.Y.String(), "''") {
		fail("LIKE with a pattern that is not a text literal")
	}
	a := e.expr(x.X, en)
	if a.kind != kText {
		fail("LIKE on a number")
	}
	// SQLite's LIKE ignores the case of ASCII letters: patterns that differ only so
	// are one predicate
	key := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, pat.lit)
	p, ok := m.likes[key]
	if !ok {
		p = ctx.Predicate("like")
		m.likes[key] = p
	}
	r := p(a.v)
	known := a.null.Not()
	return pred{ctx.And(known, r), ctx.And(known, r.Not())}
}

// scalar is a subquery as a value: its one row's one column, NULL when it has no row.
// SQLite takes the first row of several, in an order the model does not know. In the
// gold, several rows are an obligation; in the prediction, the row taken is free (a
// choice among the rows present), so that a proof holds for whichever SQLite takes.
func (e *enc) scalar(s *rq.SelectStatement, en *env) val {
	m := e.m
	ctx := m.ctx
	sub := e.subquery(s, en)
	if len(sub.cols) != 1 {
		fail("a subquery of %d columns as a value", len(sub.cols))
	}
	if len(sub.rows) == 0 {
		return m.nullVal()
	}
	taken := make([]z3.Term, len(sub.rows))
	for i, r := range sub.rows {
		taken[i] = r.exists
	}
	if e.inGold {
		for i := range sub.rows {
			for j := i + 1; j < len(sub.rows); j++ {
				e.obligations = append(e.obligations, obligation{"a subquery used as a value can return several rows",
					ctx.And(sub.rows[i].exists, sub.rows[j].exists).Not()})
			}
		}
	} else if len(sub.rows) > 1 {
		// a free choice of one of the rows present
		pick := ctx.Int("pick")
		for i, r := range sub.rows {
			taken[i] = ctx.And(r.exists, pick.Eq(ctx.IntVal(int64(i))))
		}
		var present []z3.Term
		for _, r := range sub.rows {
			present = append(present, r.exists)
		}
		m.facts = append(m.facts, ctx.Or(present...).Implies(ctx.Or(taken...)))
	}
	out := val{null: ctx.True(), v: m.zero, kind: sub.rows[0].vals[0].kind, isInt: sub.rows[0].vals[0].isInt}
	for i := len(sub.rows) - 1; i >= 0; i-- {
		r := sub.rows[i]
		out.null = taken[i].Ite(r.vals[0].null, out.null)
		out.v = taken[i].Ite(r.vals[0].v, out.v)
		if r.vals[0].kind != out.kind && r.vals[0].kind != kNull {
			fail("a subquery whose rows are of different kinds")
		}
	}
	return out
}
