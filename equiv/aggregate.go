package equiv

import (
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval/z3"
)

// call evaluates a function call: the aggregates over the group of a grouped SELECT;
// other functions are outside the model.
func (e *enc) call(x *rq.Call, en *env) val {
	name := strings.ToLower(x.Name.Name)
	if !isAggregate(x) {
		fail("function %s()", name)
	}
	if x.Filter != nil || x.Over != nil {
		fail("%s() with FILTER or OVER", name)
	}
	if en == nil || en.group == nil {
		fail("%s() outside a grouped SELECT", name)
	}
	g := en.group
	m := e.m
	ctx := m.ctx
	if name == "group_concat" {
		fail("group_concat()")
	}
	if x.Star.IsValid() {
		if name != "count" {
			fail("%s(*)", name)
		}
		var ones []z3.Term
		for _, mem := range g.member {
			ones = append(ones, mem.Ite(m.ione, m.izero))
		}
		return val{null: ctx.False(), v: ctx.Sum(m.izero, ones...).ToReal(), kind: kNum, isInt: true}
	}
	// the argument, row by row, and which rows count: members with a value (the first
	// of equal values under DISTINCT)
	args := make([]val, len(g.in.rows))
	for j, r := range g.in.rows {
		args[j] = e.expr(x.Args[0], &env{cols: g.in.cols, vals: r.vals, parent: en.parent, aliases: en.aliases})
	}
	counts := make([]z3.Term, len(args))
	for j, a := range args {
		c := []z3.Term{g.member[j], a.null.Not()}
		if x.Distinct.IsValid() {
			for k := 0; k < j; k++ {
				c = append(c, ctx.And(g.member[k], args[k].null.Not(), args[k].v.Eq(a.v)).Not())
			}
		}
		counts[j] = ctx.And(c...)
	}
	var ones, terms []z3.Term
	for j, c := range counts {
		ones = append(ones, c.Ite(m.ione, m.izero))
		terms = append(terms, c.Ite(args[j].v, m.zero))
	}
	n := ctx.Sum(m.izero, ones...)
	none := n.Eq(m.izero)
	k := kNull
	isInt := true
	for _, a := range args {
		if a.kind != kNull {
			k = a.kind
		}
		isInt = isInt && a.isInt
	}
	if k == kText && (name == "sum" || name == "avg" || name == "total") {
		// SQLite adds the numbers the texts read as: a function of the text the model
		// leaves free (a proof holds for every such function, SQLite's included)
		for j, c := range counts {
			terms[j] = c.Ite(m.number(args[j].v), m.zero)
		}
		k, isInt = kNum, false
	}
	if k == kText && name != "count" && name != "min" && name != "max" {
		fail("%s() of a text", name)
	}
	switch name {
	case "count":
		return val{null: ctx.False(), v: n.ToReal(), kind: kNum, isInt: true}
	case "sum":
		return val{null: none, v: ctx.Sum(m.zero, terms...), kind: kNum, isInt: isInt}
	case "total":
		return val{null: ctx.False(), v: ctx.Sum(m.zero, terms...), kind: kNum}
	case "avg":
		return val{null: none, v: none.Ite(m.zero, ctx.Sum(m.zero, terms...).Div(n.ToReal())), kind: kNum}
	case "min", "max":
		// a fresh value that is one of the counted values and below (above) all of them
		v := ctx.Real(name)
		var is []z3.Term
		for j, c := range counts {
			is = append(is, ctx.And(c, v.Eq(args[j].v)))
			if name == "min" {
				m.facts = append(m.facts, c.Implies(v.Le(args[j].v)))
			} else {
				m.facts = append(m.facts, c.Implies(v.Ge(args[j].v)))
			}
		}
		m.facts = append(m.facts, none.Not().Implies(ctx.Or(is...)))
		return val{null: none, v: v, kind: k, isInt: isInt}
	}
	fail("%s()", name)
	return val{}
}
