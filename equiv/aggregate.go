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
	if name == "group_concat" {
		fail("group_concat()")
	}
	if x.Star.IsValid() {
		if name != "count" {
			fail("%s(*)", name)
		}
		return e.countStar(g)
	}
	args, counts := e.countedArgs(x, en)
	return e.aggregate(name, args, counts)
}

// countStar is COUNT(*): the number of the group's members.
func (e *enc) countStar(g *group) val {
	m := e.m
	var ones []z3.Term
	for _, mem := range g.member {
		ones = append(ones, mem.Ite(m.ione, m.izero))
	}
	return val{null: m.ctx.False(), v: m.ctx.Sum(m.izero, ones...).ToReal(), kind: kNum, isInt: true}
}

// countedArgs evaluates an aggregate's argument on each row of the group's input and
// says, row by row, whether the row counts: a member with a value (the first of equal
// values under DISTINCT).
func (e *enc) countedArgs(x *rq.Call, en *env) (args []val, counts []z3.Term) {
	g := en.group
	ctx := e.m.ctx
	args = make([]val, len(g.in.rows))
	for j, r := range g.in.rows {
		args[j] = e.expr(x.Args[0], &env{cols: g.in.cols, vals: r.vals, parent: en.parent, aliases: en.aliases})
	}
	counts = make([]z3.Term, len(args))
	for j, a := range args {
		c := []z3.Term{g.member[j], a.null.Not()}
		if x.Distinct.IsValid() {
			for k := 0; k < j; k++ {
				c = append(c, ctx.And(g.member[k], args[k].null.Not(), args[k].v.Eq(a.v)).Not())
			}
		}
		counts[j] = ctx.And(c...)
	}
	return args, counts
}

// aggregate is the aggregate function name (COUNT, SUM, TOTAL, AVG, MIN or MAX) of the
// values args over the rows that counts says count.
func (e *enc) aggregate(name string, args []val, counts []z3.Term) val {
	m := e.m
	ctx := m.ctx
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
		return e.extremum(name, args, counts, none, k, isInt)
	}
	fail("%s()", name)
	return val{}
}

// extremum is MIN or MAX (name) of the counted values: a fresh value that is one of
// them and below (above) all of them, NULL when none counts. Its constraints go to the
// model's facts; k and isInt are the result's kind.
func (e *enc) extremum(name string, args []val, counts []z3.Term, none z3.Term, k kind, isInt bool) val {
	m := e.m
	ctx := m.ctx
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
