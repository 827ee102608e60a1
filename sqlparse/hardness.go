package sqlparse

import "github.com/qeval/qeval"

// Spider difficulty levels.
const (
	Easy   = "easy"
	Medium = "medium"
	Hard   = "hard"
	Extra  = "extra"
)

// Hardness is the official Spider difficulty of a gold query: "easy", "medium", "hard"
// or "extra". It applies the rules of eval_hardness in the official evaluator
// (test-suite-sql-eval, evaluation.py) to our SQLite parse: three counts over the first
// SELECT of the query, then fixed thresholds.
//
// The counts follow what the official parser builds, including its quirks: a compound
// query's ORDER BY and LIMIT belong to its last part, so they do not count; a NOT IN,
// NOT LIKE or NOT BETWEEN condition in WHERE counts as an aggregation, and in HAVING so
// does each AND/OR between conditions; subqueries in FROM are table units, not nesting.
func Hardness(sql string) (string, error) {
	if err := (Limits{}).Check(sql); err != nil {
		return "", err
	}
	stmts, err := parseTree(SQLite, sql)
	if err != nil {
		return "", err
	}
	if len(stmts) != 1 || stmts[0].query == nil || len(stmts[0].query.cores) == 0 {
		return "", &qeval.Error{Code: qeval.CodeQuery, Message: "spider hardness needs exactly one SELECT statement"}
	}
	c1, c2, others := spiderCounts(stmts[0].query)
	return hardnessLevel(c1, c2, others), nil
}

// hardnessLevel is eval_hardness's decision on its three counts.
func hardnessLevel(comp1, comp2, others int) string {
	switch {
	case comp1 <= 1 && others == 0 && comp2 == 0:
		return Easy
	case (others <= 2 && comp1 <= 1 && comp2 == 0) || (comp1 <= 2 && others < 2 && comp2 == 0):
		return Medium
	case (others > 2 && comp1 <= 2 && comp2 == 0) ||
		(2 < comp1 && comp1 <= 3 && others <= 2 && comp2 == 0) ||
		(comp1 <= 1 && others == 0 && comp2 <= 1):
		return Hard
	}
	return Extra
}

// spiderCounts returns count_component1, count_component2 and count_others.
func spiderCounts(q *query) (comp1, comp2, others int) {
	p := spiderParts{c: q.cores[0], compound: len(q.cores) > 1, order: q.order, hasLimit: q.limit != nil}
	if p.compound {
		p.order, p.hasLimit = nil, false
	}
	p.onConds, p.units = fromConds(p.c.from)
	p.where, p.having = leaves(p.c.where), leaves(p.c.having)
	for _, e := range p.onConds {
		p.conds = append(p.conds, leaves(e)...)
	}
	p.conds = append(append(p.conds, p.where...), p.having...)
	return p.component1(), p.component2(), p.others()
}

// spiderParts is what the three counts read of a query's first SELECT.
type spiderParts struct {
	c        *core
	compound bool
	// order and hasLimit are the query's, none for a compound query (the official
	// parser gives them to its last part)
	order         []*orderTerm
	hasLimit      bool
	onConds       []*expr // the ON conditions of FROM
	units         int     // FROM's table units
	where, having []*expr // the conditions of WHERE and HAVING, split at AND and OR
	conds         []*expr // those of ON, WHERE and HAVING together
}

// component1 is count_component1: the clauses, the extra table units, the ORs and the
// LIKE conditions.
func (p *spiderParts) component1() int {
	c, n := p.c, 0
	if c.where != nil {
		n++
	}
	if len(c.group) > 0 {
		n++
	}
	if len(p.order) > 0 {
		n++
	}
	if p.hasLimit {
		n++
	}
	if p.units > 0 {
		n += p.units - 1
	}
	for _, e := range []*expr{c.where, c.having} {
		n += countOr(e)
	}
	for _, e := range p.onConds {
		n += countOr(e)
	}
	for _, l := range p.conds {
		if l.kind == exprBinary && l.op == "like" {
			n++
		}
	}
	return n
}

// component2 is count_component2: conditions compared with a subquery, and the set
// operation.
func (p *spiderParts) component2() int {
	n := 0
	for _, l := range p.conds {
		n += nestedValues(l)
	}
	if p.compound {
		n++
	}
	return n
}

// others is count_others: more than one aggregation, selected column, WHERE condition
// or GROUP BY term each count one.
func (p *spiderParts) others() int {
	n := 0
	if p.aggregations() > 1 {
		n++
	}
	if len(p.c.cols) > 1 {
		n++
	}
	if len(p.where) > 1 {
		n++
	}
	if len(p.c.group) > 1 {
		n++
	}
	return n
}

// aggregations counts the aggregates of SELECT, GROUP BY and ORDER BY (on either side
// of an arithmetic operator there) with the official parser's extras: negated WHERE
// conditions, and in HAVING the negated conditions and the connectors.
func (p *spiderParts) aggregations() int {
	c, aggs := p.c, 0
	for _, col := range c.cols {
		if col.e.isAggregate() && spiderAgg[col.e.fn] {
			aggs++
		}
	}
	for _, l := range p.where {
		if negated(l) {
			aggs++
		}
	}
	for _, g := range c.group {
		if g.isAggregate() && spiderAgg[g.fn] {
			aggs++
		}
	}
	for _, t := range p.order {
		e := t.e
		if e != nil && e.kind == exprBinary && arith[e.op] {
			for _, side := range []*expr{e.x, e.y} {
				if side.isAggregate() && spiderAgg[side.fn] {
					aggs++
				}
			}
		} else if e.isAggregate() && spiderAgg[e.fn] {
			aggs++
		}
	}
	// The official code counts every element of the HAVING list, where AND/OR
	// connectors are elements too, and a condition counts when negated.
	if len(p.having) > 0 {
		aggs += len(p.having) - 1
	}
	for _, l := range p.having {
		if negated(l) {
			aggs++
		}
	}
	return aggs
}

// spiderAgg are the aggregates of the official AGG_OPS.
var spiderAgg = map[string]bool{"max": true, "min": true, "count": true, "sum": true, "avg": true}

var arith = map[string]bool{"+": true, "-": true, "*": true, "/": true}

// fromConds returns the ON conditions of a FROM clause and its number of table units
// (tables and subqueries).
func fromConds(src *source) ([]*expr, int) {
	if src == nil {
		return nil, 0
	}
	if src.kind != srcJoin {
		return nil, 1
	}
	lc, ln := fromConds(src.left)
	rc, rn := fromConds(src.right)
	conds := append(lc, rc...)
	if src.on != nil {
		conds = append(conds, src.on)
	}
	return conds, ln + rn
}

// leaves flattens a condition at its ANDs and ORs.
func leaves(e *expr) []*expr {
	if e == nil {
		return nil
	}
	if e.kind == exprBinary && (e.op == "and" || e.op == "or") {
		return append(leaves(e.x), leaves(e.y)...)
	}
	return []*expr{e}
}

func countOr(e *expr) int {
	if e == nil || e.kind != exprBinary || (e.op != "and" && e.op != "or") {
		return 0
	}
	n := countOr(e.x) + countOr(e.y)
	if e.op == "or" {
		n++
	}
	return n
}

// negated says whether a condition carries the official parser's not_op: NOT IN,
// NOT LIKE, NOT BETWEEN.
func negated(e *expr) bool {
	switch e.kind {
	case exprIn, exprBetween:
		return e.not
	case exprBinary:
		return e.not && e.op == "like"
	}
	return false
}

// nestedValues counts the values of a condition that are subqueries.
func nestedValues(e *expr) int {
	n := 0
	switch e.kind {
	case exprIn:
		if e.q != nil {
			n++
		}
	case exprBetween:
		for _, a := range e.args {
			if a != nil && a.kind == exprSubquery {
				n++
			}
		}
	case exprExists:
		n++
	case exprBinary:
		if e.y != nil && e.y.kind == exprSubquery {
			n++
		}
	}
	return n
}
