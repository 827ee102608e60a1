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
	c := q.cores[0]
	compound := len(q.cores) > 1
	order := q.order
	hasLimit := q.limit != nil
	if compound {
		order, hasLimit = nil, false
	}
	onConds, units := fromConds(c.from)
	where, having := leaves(c.where), leaves(c.having)

	// count_component1
	if c.where != nil {
		comp1++
	}
	if len(c.group) > 0 {
		comp1++
	}
	if len(order) > 0 {
		comp1++
	}
	if hasLimit {
		comp1++
	}
	if units > 0 {
		comp1 += units - 1
	}
	for _, e := range []*expr{c.where, c.having} {
		comp1 += countOr(e)
	}
	for _, e := range onConds {
		comp1 += countOr(e)
	}
	var conds []*expr
	for _, e := range onConds {
		conds = append(conds, leaves(e)...)
	}
	conds = append(append(conds, where...), having...)
	for _, l := range conds {
		if l.kind == exprBinary && l.op == "like" {
			comp1++
		}
	}

	// count_component2: conditions compared with a subquery, and the set operation.
	for _, l := range conds {
		comp2 += nestedValues(l)
	}
	if compound {
		comp2++
	}

	// count_others
	aggs := 0
	for _, col := range c.cols {
		if col.e.isAggregate() && spiderAgg[col.e.fn] {
			aggs++
		}
	}
	for _, l := range where {
		if negated(l) {
			aggs++
		}
	}
	for _, g := range c.group {
		if g.isAggregate() && spiderAgg[g.fn] {
			aggs++
		}
	}
	for _, t := range order {
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
	if len(having) > 0 {
		aggs += len(having) - 1
	}
	for _, l := range having {
		if negated(l) {
			aggs++
		}
	}
	if aggs > 1 {
		others++
	}
	if len(c.cols) > 1 {
		others++
	}
	if len(where) > 1 {
		others++
	}
	if len(c.group) > 1 {
		others++
	}
	return comp1, comp2, others
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
