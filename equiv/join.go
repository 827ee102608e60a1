package equiv

import (
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval/z3"
)

// join encodes L JOIN R. Where the ON condition equates a key of one side (a set of
// columns no two of its rows share) with columns or literals of the other, each row of
// the other side has at most one partner: the join has one row per row of that side,
// whose partner's values are chosen among the candidates, instead of a row per pair.
// Joins along foreign keys, most of them, so stay as small as their tables.
func (e *enc) join(x *rq.JoinClause, outer *env) *relation {
	left, right := e.source(x.X, outer), e.source(x.Y, outer)
	op := x.Operator
	if op != nil && op.Natural.IsValid() {
		fail("NATURAL JOIN")
	}
	var on rq.Expr
	switch c := x.Constraint.(type) {
	case nil:
	case *rq.OnConstraint:
		on = c.X
	case *rq.UsingConstraint:
		fail("JOIN … USING (the columns it merges)")
	default:
		fail("join constraint")
	}
	cols := append(append([]colInfo(nil), left.cols...), right.cols...)
	cond := func(vals []val) z3.Term {
		if on == nil {
			return e.m.ctx.True()
		}
		return e.cond(on, &env{cols: cols, vals: vals, parent: outer}).t
	}
	leftJoin := op != nil && op.Left.IsValid()
	if on != nil {
		lk, rk := keyEqualities(on, left, right)
		switch {
		case covers(right.uniq, rk):
			return e.partnerJoin(left, right, cols, cond, leftJoin, false)
		case !leftJoin && covers(left.uniq, lk):
			return e.partnerJoin(right, left, cols, cond, false, true)
		}
	}
	return e.pairJoin(left, right, cols, cond, leftJoin)
}

// pairJoin is a join of a row per pair of rows (and, for LEFT JOIN, a row per left
// row with no partner).
func (e *enc) pairJoin(left, right *relation, cols []colInfo, cond func([]val) z3.Term, leftJoin bool) *relation {
	ctx := e.m.ctx
	rel := &relation{cols: cols}
	for _, l := range left.rows {
		var matched []z3.Term
		for _, r := range right.rows {
			vals := append(append([]val(nil), l.vals...), r.vals...)
			ex := ctx.And(l.exists, r.exists, cond(vals))
			matched = append(matched, ex)
			rel.rows = append(rel.rows, row{exists: ex, vals: vals, key: joinKey(l.key, r.key)})
		}
		if leftJoin {
			vals := append(append([]val(nil), l.vals...), e.nullsOf(right.cols)...)
			rel.rows = append(rel.rows, row{exists: ctx.And(l.exists, ctx.Or(matched...).Not()), vals: vals, key: joinKey(l.key, "-")})
		}
	}
	return rel
}

// partnerJoin is a join in which each row of many has at most one partner among the
// rows of one (a key of one is equated): a row per row of many, present when it has
// a partner (always, for LEFT JOIN, with NULLs for none). flipped says that one is the
// left side: the columns stay in the order left, right.
func (e *enc) partnerJoin(many, one *relation, cols []colInfo, cond func([]val) z3.Term, leftJoin, flipped bool) *relation {
	ctx := e.m.ctx
	rel := &relation{cols: cols}
	for _, u := range many.uniq {
		if flipped {
			u = shift(u, len(one.cols))
		}
		rel.uniq = append(rel.uniq, u)
	}
	partnerKey := "-"
	if len(one.rows) > 0 {
		partnerKey = anyRowKey(one.rows[0].key)
	}
	for _, r := range many.rows {
		matches := make([]z3.Term, len(one.rows))
		for j, o := range one.rows {
			vals := append(append([]val(nil), r.vals...), o.vals...)
			if flipped {
				vals = append(append([]val(nil), o.vals...), r.vals...)
			}
			matches[j] = ctx.And(o.exists, cond(vals))
		}
		partner := e.choose(matches, one)
		vals := append(append([]val(nil), r.vals...), partner...)
		if flipped {
			vals = append(append([]val(nil), partner...), r.vals...)
		}
		exists := r.exists
		if !leftJoin {
			exists = ctx.And(r.exists, ctx.Or(matches...))
		}
		rel.rows = append(rel.rows, row{exists: exists, vals: vals, key: joinKey(r.key, partnerKey)})
	}
	return rel
}

// choose is the values of the row of rel whose match holds (at most one does), NULLs
// when none does.
func (e *enc) choose(matches []z3.Term, rel *relation) []val {
	out := e.nullsOf(rel.cols)
	for c := range out {
		isInt := true
		for j := len(rel.rows) - 1; j >= 0; j-- {
			v := rel.rows[j].vals[c]
			if v.bad != "" {
				out[c] = v
				break
			}
			o := out[c]
			o.null = matches[j].Ite(v.null, o.null)
			o.v = matches[j].Ite(v.v, o.v)
			if o.kind == kNull {
				o.kind = v.kind
			} else if v.kind != kNull && v.kind != o.kind {
				fail("a joined column whose rows are of different kinds")
			}
			isInt = isInt && v.isInt
			o.isInt = isInt
			o.column = o.column || v.column
			o.numAff = o.numAff || v.numAff
			out[c] = o
		}
	}
	return out
}

// nullsOf is a row of NULLs for the columns (of their table's kind).
func (e *enc) nullsOf(cols []colInfo) []val {
	out := make([]val, len(cols))
	for i, c := range cols {
		out[i] = e.m.nullVal()
		if c.table != nil {
			out[i].kind = c.table.kinds[c.col]
		}
	}
	return out
}

// anyRowKey is a row key with the row numbers of its base rows replaced by "@": the
// partner of a row is one of the table's rows, which one the values say.
func anyRowKey(key string) string {
	parts := strings.Split(key, "|")
	for i, p := range parts {
		if k := strings.IndexByte(p, '#'); k >= 0 {
			parts[i] = p[:k] + "@"
		}
	}
	return strings.Join(parts, "|")
}

func shift(cols []int, by int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = c + by
	}
	return out
}

// covers reports whether the columns include every column of one of the keys.
func covers(keys [][]int, cols map[int]bool) bool {
	for _, k := range keys {
		all := len(k) > 0
		for _, c := range k {
			all = all && cols[c]
		}
		if all {
			return true
		}
	}
	return false
}

// keyEqualities reads the conjuncts of an ON condition of the form a = b: the columns
// of the left side equated with a column of the right or a literal (lk), and those of
// the right equated with a column of the left or a literal (rk).
func keyEqualities(on rq.Expr, left, right *relation) (lk, rk map[int]bool) {
	lk, rk = map[int]bool{}, map[int]bool{}
	for _, c := range conjuncts(on) {
		b, ok := c.(*rq.BinaryExpr)
		if !ok || b.Op != rq.EQ {
			continue
		}
		ls, li := side(b.X, left, right)
		rs, ri := side(b.Y, left, right)
		for _, pair := range [][4]int{{ls, li, rs, ri}, {rs, ri, ls, li}} {
			switch {
			case pair[0] == sideLeft && (pair[2] == sideRight || pair[2] == sideLiteral):
				lk[pair[1]] = true
			case pair[0] == sideRight && (pair[2] == sideLeft || pair[2] == sideLiteral):
				rk[pair[1]] = true
			}
		}
	}
	return lk, rk
}

const (
	sideNone = iota
	sideLeft
	sideRight
	sideLiteral
)

// side says where an operand of an equality comes from: a column of exactly one side
// (its index there), or a literal.
func side(x rq.Expr, left, right *relation) (int, int) {
	for {
		p, ok := x.(*rq.ParenExpr)
		if !ok {
			break
		}
		x = p.X
	}
	switch x.(type) {
	case *rq.NumberLit, *rq.StringLit:
		return sideLiteral, 0
	}
	li, inLeft := columnIndex(x, left)
	ri, inRight := columnIndex(x, right)
	switch {
	case inLeft && !inRight:
		return sideLeft, li
	case inRight && !inLeft:
		return sideRight, ri
	}
	return sideNone, 0
}

// conjuncts splits a condition at its ANDs.
func conjuncts(x rq.Expr) []rq.Expr {
	switch x := x.(type) {
	case *rq.ParenExpr:
		return conjuncts(x.X)
	case *rq.BinaryExpr:
		if x.Op == rq.AND {
			return append(conjuncts(x.X), conjuncts(x.Y)...)
		}
	}
	return []rq.Expr{x}
}
