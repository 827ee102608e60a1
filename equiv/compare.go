package equiv

import (
	"github.com/qeval/qeval/z3"
)

// maxPermuted is the most result columns whose every order is tried; wider results
// are compared in the order given (a proof stays sound: Spider's rules accept any
// order, so equal in one order is equal).
const maxPermuted = 3

// equal holds when the two results are equal under the official Spider rules: both
// empty, or as many rows and columns and, for some order of the predicted columns,
// equal as bags of rows (as lists when ordered), values compared as Python does.
func (e *enc) equal(g, p *relation, ordered bool) z3.Term {
	ctx := e.m.ctx
	gEmpty, pEmpty := empty(ctx, g), empty(ctx, p)
	both := ctx.And(gEmpty, pEmpty)
	if len(g.cols) != len(p.cols) {
		return both
	}
	var alts []z3.Term
	for _, perm := range perms(len(g.cols)) {
		if ordered {
			alts = append(alts, e.listEq(g, p, perm))
		} else {
			alts = append(alts, e.bagEq(g, p, perm))
		}
	}
	return ctx.Or(both, ctx.Or(alts...))
}

// setEqual holds when the two results are equal under BIRD's rule: the same set of
// rows (duplicates collapse, row order does not count), columns in the order given,
// values compared as Python does.
func (e *enc) setEqual(g, p *relation) z3.Term {
	ctx := e.m.ctx
	gEmpty, pEmpty := empty(ctx, g), empty(ctx, p)
	if len(g.cols) != len(p.cols) {
		return ctx.And(gEmpty, pEmpty)
	}
	id := identity(len(g.cols))
	in := func(a row, r *relation) z3.Term {
		var found []z3.Term
		for _, b := range r.rows {
			found = append(found, ctx.And(b.exists, e.rowPyEq(a.vals, b.vals, id)))
		}
		return ctx.Or(found...)
	}
	var all []z3.Term
	for _, a := range g.rows {
		all = append(all, a.exists.Implies(in(a, p)))
	}
	for _, b := range p.rows {
		all = append(all, b.exists.Implies(in(b, g)))
	}
	return ctx.And(all...)
}

func identity(n int) []int {
	id := make([]int, n)
	for i := range id {
		id[i] = i
	}
	return id
}

func empty(ctx *z3.Context, r *relation) z3.Term {
	var any []z3.Term
	for _, row := range r.rows {
		any = append(any, row.exists)
	}
	return ctx.Or(any...).Not()
}

// perms lists the column orders tried: all of them up to maxPermuted columns, else
// the identity.
func perms(n int) [][]int {
	id := make([]int, n)
	for i := range id {
		id[i] = i
	}
	if n > maxPermuted || n <= 1 {
		return [][]int{id}
	}
	var out [][]int
	var rec func(k int, cur []int, used []bool)
	rec = func(k int, cur []int, used []bool) {
		if k == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := 0; i < n; i++ {
			if !used[i] {
				used[i] = true
				rec(k+1, append(cur, i), used)
				used[i] = false
			}
		}
	}
	rec(0, nil, make([]bool, n))
	return out
}

// pyEq is Python's == of two result values: None equals None, numbers equal numbers
// of the same value (1 == 1.0), text equals the same text, text never a number.
func (e *enc) pyEq(a, b val) z3.Term {
	ctx := e.m.ctx
	bothNull := ctx.And(a.null, b.null)
	if a.kind != b.kind && a.kind != kNull && b.kind != kNull {
		return bothNull
	}
	if a.kind == kNull || b.kind == kNull {
		return bothNull
	}
	return ctx.Or(bothNull, ctx.And(a.null.Not(), b.null.Not(), a.v.Eq(b.v)))
}

// rowPyEq compares gold row a with predicted row b, b's columns in the order perm.
func (e *enc) rowPyEq(a, b []val, perm []int) z3.Term {
	var eq []z3.Term
	for i := range a {
		eq = append(eq, e.pyEq(a[i], b[perm[i]]))
	}
	return e.m.ctx.And(eq...)
}

// bagEq: every row occurs as often in both results.
func (e *enc) bagEq(g, p *relation, perm []int) z3.Term {
	m := e.m
	ctx := m.ctx
	id := make([]int, len(perm))
	for i := range id {
		id[i] = i
	}
	count := func(r *relation, vals []val, perm []int) z3.Term {
		var ones []z3.Term
		for _, o := range r.rows {
			ones = append(ones, ctx.And(o.exists, e.rowPyEq(vals, o.vals, perm)).Ite(m.ione, m.izero))
		}
		return ctx.Sum(m.izero, ones...)
	}
	// a predicted row, in gold column order
	inv := make([]int, len(perm))
	for i, j := range perm {
		inv[j] = i
	}
	var all []z3.Term
	for _, r := range g.rows {
		all = append(all, r.exists.Implies(count(g, r.vals, id).Eq(count(p, r.vals, perm))))
	}
	for _, r := range p.rows {
		vals := make([]val, len(perm))
		for i := range perm {
			vals[i] = r.vals[perm[i]]
		}
		all = append(all, r.exists.Implies(count(g, vals, id).Eq(count(p, vals, perm))))
	}
	return ctx.And(all...)
}

// listEq: as many rows, and the same row at each place.
func (e *enc) listEq(g, p *relation, perm []int) z3.Term {
	m := e.m
	ctx := m.ctx
	size := func(r *relation) z3.Term {
		var ones []z3.Term
		for _, o := range r.rows {
			ones = append(ones, o.exists.Ite(m.ione, m.izero))
		}
		return ctx.Sum(m.izero, ones...)
	}
	all := []z3.Term{size(g).Eq(size(p))}
	for i, a := range g.rows {
		for j, b := range p.rows {
			all = append(all, ctx.And(a.exists, b.exists, g.pos[i].Eq(p.pos[j])).Implies(e.rowPyEq(a.vals, b.vals, perm)))
		}
	}
	return ctx.And(all...)
}

// sameRows holds when both results have the same rows: each row of one paired with the
// row of the other made of the same base rows (joined in any order), present exactly
// when it is, with equal values (and places) — in the column order perm. A sufficient
// condition for equal that the solver proves far faster than the counting of bags.
// nil when the rows cannot be paired so.
func (e *enc) sameRows(g, p *relation, ordered bool, perm []int) *z3.Term {
	if len(g.rows) != len(p.rows) || len(g.cols) != len(p.cols) || ordered && (g.pos == nil || p.pos == nil) {
		return nil
	}
	byKey := map[string][]int{}
	for j, r := range p.rows {
		byKey[r.key] = append(byKey[r.key], j)
	}
	ctx := e.m.ctx
	var all []z3.Term
	for i, a := range g.rows {
		js := byKey[a.key]
		if len(js) == 0 {
			return nil
		}
		j := js[0]
		byKey[a.key] = js[1:]
		b := p.rows[j]
		all = append(all, a.exists.Iff(b.exists), a.exists.Implies(e.rowPyEq(a.vals, b.vals, perm)))
		if ordered {
			all = append(all, a.exists.Implies(g.pos[i].Eq(p.pos[j])))
		}
	}
	t := ctx.And(all...)
	return &t
}

// kindsFit reports whether a column order pairs columns whose values can be equal.
func kindsFit(g, p *relation, perm []int) bool {
	if len(g.rows) == 0 || len(p.rows) == 0 {
		return true
	}
	for i, j := range perm {
		a, b := g.rows[0].vals[i].kind, p.rows[0].vals[j].kind
		if a != b && a != kNull && b != kNull {
			return false
		}
	}
	return true
}
