package equiv

import (
	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval/z3"
)

// limit orders the rows by their keys and keeps those LIMIT and OFFSET say. Rows the
// keys leave tied come in an order SQLite chooses. For the gold, databases on which
// such a tie changes its result are left out (the test suites and the search leave
// them out too). For the prediction the order of tied rows is free: each row gets a
// fresh number that breaks its ties, so that a proof holds for whichever order SQLite
// takes; a LIMIT without ORDER BY keeps the rows of such a free order.
func (e *enc) limit(s *rq.SelectStatement, rel *relation, keys [][]val) *relation {
	ctx := e.m.ctx
	if len(s.OrderingTerms) == 0 {
		if s.LimitExpr == nil && s.OffsetExpr == nil {
			return rel
		}
		if e.inGold {
			fail("LIMIT without ORDER BY")
		}
	}
	dirs := make([]bool, len(s.OrderingTerms))
	for i, t := range s.OrderingTerms {
		dirs[i] = t.Desc.IsValid()
	}
	less := func(a, b int) z3.Term { // row a sorts before row b
		var alts []z3.Term
		var eqs []z3.Term
		for k := range dirs {
			x, y := keys[a][k], keys[b][k]
			lt := e.before(x, y, dirs[k])
			alts = append(alts, ctx.And(append(append([]z3.Term(nil), eqs...), lt)...))
			eqs = append(eqs, e.nullSafeEq(x, y))
		}
		return ctx.Or(alts...)
	}
	keyEq := func(a, b int) z3.Term {
		var eqs []z3.Term
		for k := range dirs {
			eqs = append(eqs, e.nullSafeEq(keys[a][k], keys[b][k]))
		}
		return ctx.And(eqs...)
	}
	pos := e.positions(rel, less, keyEq)
	out := window(ctx, s, rel, pos)
	if e.inGold {
		e.goldTies(s, rel, out, keyEq)
	}
	return out
}

// positions numbers the rows in sort order: each row's position is the number of
// present rows before it, by less, or tied with it by keyEq and placed before it by
// the tie-break. The gold's tied rows keep the model's order (the ties that matter
// are left out by goldTies); the prediction's follow free numbers, then the model's
// order.
func (e *enc) positions(rel *relation, less, keyEq func(a, b int) z3.Term) []z3.Term {
	m := e.m
	ctx := m.ctx
	n := len(rel.rows)
	var tb []z3.Term
	if !e.inGold {
		for range rel.rows {
			tb = append(tb, ctx.Int("tie"))
		}
	}
	pos := make([]z3.Term, n)
	for i := 0; i < n; i++ {
		var before []z3.Term
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			tied := ctx.And(rel.rows[j].exists, keyEq(j, i))
			b := ctx.And(rel.rows[j].exists, less(j, i))
			switch {
			case tb != nil && j < i:
				b = ctx.Or(b, ctx.And(tied, tb[j].Le(tb[i])))
			case tb != nil:
				b = ctx.Or(b, ctx.And(tied, tb[j].Lt(tb[i])))
			case j < i:
				b = ctx.Or(b, tied)
			}
			before = append(before, b.Ite(m.ione, m.izero))
		}
		pos[i] = ctx.Sum(m.izero, before...)
	}
	return pos
}

// window keeps the rows that the statement's LIMIT and OFFSET select by their
// positions pos, and numbers the rows kept from 0.
func window(ctx *z3.Context, s *rq.SelectStatement, rel *relation, pos []z3.Term) *relation {
	lim, off := int64(-1), int64(0)
	if s.LimitExpr != nil {
		lim = constInt(s.LimitExpr, "LIMIT")
	}
	if s.OffsetExpr != nil {
		off = constInt(s.OffsetExpr, "OFFSET")
	}
	out := &relation{cols: rel.cols}
	for i, r := range rel.rows {
		keep := []z3.Term{r.exists, pos[i].Ge(ctx.IntVal(off))}
		if lim >= 0 {
			keep = append(keep, pos[i].Lt(ctx.IntVal(off+lim)))
		}
		out.rows = append(out.rows, row{exists: ctx.And(keep...), vals: r.vals, key: r.key})
		out.pos = append(out.pos, pos[i].Sub(ctx.IntVal(off)))
	}
	return out
}

// goldTies leaves out the databases on which the gold's ORDER BY leaves rows tied
// where it matters: a row kept and one cut (by LIMIT or OFFSET) with the same keys and
// different values; at the top, also two rows kept (their order is compared).
func (e *enc) goldTies(s *rq.SelectStatement, rel, out *relation, keyEq func(a, b int) z3.Term) {
	ctx := e.m.ctx
	n := len(rel.rows)
	var ties []z3.Term
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			a, b := out.rows[i].exists, ctx.And(rel.rows[j].exists, out.rows[j].exists.Not())
			if e.depth == 1 && i < j {
				b = ctx.Or(b, out.rows[j].exists)
			} else if s.LimitExpr == nil && s.OffsetExpr == nil {
				continue
			}
			ties = append(ties, ctx.And(a, b, keyEq(i, j), e.rowEq(rel.rows[i].vals, rel.rows[j].vals).Not()))
		}
	}
	if len(ties) > 0 {
		e.assumptions = append(e.assumptions, ctx.Or(ties...).Not())
	}
}
