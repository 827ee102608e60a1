package testsuite

import (
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

// keyInfo answers what the schema's keys guarantee; a nil *keyInfo knows no keys.
type keyInfo struct {
	tables map[string]*table // by lower-case name
}

// outerJoinsEquivalent returns the joins of a statement (and of its subqueries and
// compound parts) where LEFT JOIN and inner join give the same rows, so that toggling
// one makes an equivalent query, not a near miss. Two reasons, the outer-join
// simplifications every query optimiser applies:
//   - the right-hand table is filtered by a null-rejecting condition (a WHERE conjunct,
//     or the ON of a later inner join, that cannot be true when its columns are NULL):
//     the rows a LEFT JOIN adds are exactly those the filter drops;
//   - the join is on a foreign key that is never NULL, from a table that is not itself
//     NULL-extended, to the key it references: every row has a match, so a LEFT JOIN
//     adds no row. This one holds on databases that keep their keys, as generated
//     ones do;
//   - the rows a LEFT JOIN adds change no group of an aggregated select (see
//     nullRowsInvisible).
func outerJoinsEquivalent(root rq.Node, keys *keyInfo) map[*rq.JoinClause]bool {
	out := map[*rq.JoinClause]bool{}
	visit(root, func(n rq.Node) {
		s, ok := n.(*rq.SelectStatement)
		if !ok {
			return
		}
		chain, src := joinChain(s.Source)
		filters := joinFilters(s.WhereExpr, chain)
		// left to right: the tables met so far, and whether a LEFT JOIN brought them
		type met struct {
			name     string
			extended bool
		}
		left := map[string]met{}
		if name := tableName(src); name != "" {
			left[sourceName(src)] = met{name: name}
		}
		for i := len(chain) - 1; i >= 0; i-- {
			j := chain[i]
			key, name := sourceName(j.Y), tableName(j.Y)
			if key == "" || j.Operator.Comma.IsValid() || j.Operator.Natural.IsValid() {
				continue
			}
			for _, f := range filters[i] {
				if rejectsNull(f, key) {
					out[j] = true
					break
				}
			}
			if on, ok := j.Constraint.(*rq.OnConstraint); ok && !out[j] {
				if a, b, ok := columnEquality(on.X); ok {
					if strings.EqualFold(a.Table.Name, key) {
						a, b = b, a
					}
					if l, ok := left[strings.ToLower(a.Table.Name)]; ok && !l.extended && strings.EqualFold(b.Table.Name, key) &&
						keys.matched(l.name, strings.ToLower(a.Column.Name), name, strings.ToLower(b.Column.Name)) {
						out[j] = true
					}
				}
			}
			if !out[j] && nullRowsInvisible(s, key) {
				out[j] = true
			}
			// one join from a table grouped by its key: a row without a match makes a
			// group of one NULL-extended row, which HAVING count(*) > 1 (or more) drops
			if !out[j] && len(chain) == 1 && havingDropsSingletons(s.HavingExpr) {
				for _, g := range s.GroupByExprs {
					if r, ok := g.(*rq.QualifiedRef); ok && r.Table != nil && r.Column != nil {
						if l, ok := left[strings.ToLower(r.Table.Name)]; ok && keys.unique(l.name, strings.ToLower(r.Column.Name)) {
							out[j] = true
						}
					}
				}
			}
			left[key] = met{name: name, extended: j.Operator.Left.IsValid()}
		}
	})
	return out
}

// joinChain returns the joins of a chain, the last one first (a chain parses
// left-deep: the outermost clause is the last join), and the source the chain starts
// from.
func joinChain(src rq.Source) ([]*rq.JoinClause, rq.Source) {
	var chain []*rq.JoinClause
	for {
		if p, ok := src.(*rq.ParenSource); ok {
			src = p.X
			continue
		}
		j, ok := src.(*rq.JoinClause)
		if !ok || j.Operator == nil {
			return chain, src
		}
		chain = append(chain, j)
		src = j.X
	}
}

// joinFilters returns the filters that apply to each join of a chain (as joinChain
// orders it): WHERE and the ON of each inner join after it.
func joinFilters(where rq.Expr, chain []*rq.JoinClause) [][]rq.Expr {
	filters := make([][]rq.Expr, len(chain))
	var acc []rq.Expr
	if where != nil {
		acc = append(acc, where)
	}
	for i, j := range chain {
		filters[i] = acc
		if on, ok := j.Constraint.(*rq.OnConstraint); ok && on.X != nil && !j.Operator.Left.IsValid() {
			acc = append(acc[:len(acc):len(acc)], on.X)
		}
	}
	return filters
}

// columnEquality splits a condition that is one equality of two qualified columns.
func columnEquality(e rq.Expr) (a, b *rq.QualifiedRef, ok bool) {
	for {
		p, isParen := e.(*rq.ParenExpr)
		if !isParen {
			break
		}
		e = p.X
	}
	bin, isBin := e.(*rq.BinaryExpr)
	if !isBin || bin.Op != rq.EQ {
		return nil, nil, false
	}
	a, okA := bin.X.(*rq.QualifiedRef)
	b, okB := bin.Y.(*rq.QualifiedRef)
	if !okA || !okB || a.Table == nil || b.Table == nil || a.Column == nil || b.Column == nil {
		return nil, nil, false
	}
	return a, b, true
}

// tableName is the lower-case name of a table source, "" for anything else.
func tableName(s rq.Source) string {
	if t, ok := s.(*rq.QualifiedTableName); ok && t.Name != nil {
		return strings.ToLower(t.Name.Name)
	}
	return ""
}

// keysOf reads what a schema's keys guarantee.
func keysOf(tables []*table) *keyInfo {
	k := &keyInfo{tables: map[string]*table{}}
	for _, t := range tables {
		k.tables[strings.ToLower(t.name)] = t
	}
	return k
}

// neverNull reports whether column i of t is never NULL: declared NOT NULL, or the
// INTEGER PRIMARY KEY of a rowid table.
func neverNull(t *table, i int) bool {
	c := t.cols[i]
	return c.notNull || !t.withoutRowid && len(t.pk) == 1 && t.pk[0] == i && strings.EqualFold(strings.TrimSpace(c.typ), "integer")
}

// matched reports whether every row of child has a match in parent through the
// equality child.col = parent.pcol (names lower-case): a one-column foreign key that
// is never NULL.
func (k *keyInfo) matched(child, col, parent, pcol string) bool {
	if k == nil {
		return false
	}
	t, p := k.tables[child], k.tables[parent]
	if t == nil || p == nil {
		return false
	}
	for _, fk := range t.fks {
		if len(fk.cols) != 1 || len(fk.pidx) != 1 || !strings.EqualFold(fk.parent, parent) {
			continue
		}
		if strings.EqualFold(t.cols[fk.cols[0]].name, col) && strings.EqualFold(p.cols[fk.pidx[0]].name, pcol) && neverNull(t, fk.cols[0]) {
			return true
		}
	}
	return false
}

// unique reports whether table.col (lower-case) alone is a key that is never NULL:
// grouping by it makes one group per row.
func (k *keyInfo) unique(table, col string) bool {
	if k == nil || k.tables[table] == nil {
		return false
	}
	t := k.tables[table]
	for _, u := range t.uniques {
		if len(u) == 1 && strings.EqualFold(t.cols[u[0]].name, col) && neverNull(t, u[0]) {
			return true
		}
	}
	return false
}

// neverNullColumn reports whether column col (any case) of table is never NULL; with
// table "" (an unqualified column), whether it is never NULL in every table that has it.
func (k *keyInfo) neverNullColumn(table, col string) bool {
	if k == nil {
		return false
	}
	found := false
	for name, t := range k.tables {
		if table != "" && name != table {
			continue
		}
		for i, c := range t.cols {
			if strings.EqualFold(c.name, col) {
				if !neverNull(t, i) {
					return false
				}
				found = true
			}
		}
	}
	return found
}

// plainCount reports whether c is count(x) of one argument, without DISTINCT, FILTER
// or OVER.
func plainCount(c *rq.Call) bool {
	return c.Name != nil && strings.EqualFold(c.Name.Name, "count") && !c.Star.IsValid() && !c.Distinct.IsValid() &&
		len(c.Args) == 1 && c.Filter == nil && c.Over == nil
}

// columnOf returns the table (lower-case, "" when unqualified or ambiguous) and the
// column of a column reference; col is "" for anything else.
func columnOf(e rq.Expr, aliases map[string]string) (table, col string) {
	for {
		p, ok := e.(*rq.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	switch e := e.(type) {
	case *rq.Ident:
		return "", e.Name
	case *rq.QualifiedRef:
		if e.Table == nil || e.Column == nil {
			return "", ""
		}
		t := aliases[strings.ToLower(e.Table.Name)]
		if t == "" {
			return "", ""
		}
		return t, e.Column.Name
	}
	return "", ""
}

// nullIgnoring lists the aggregates that skip NULL arguments and are NULL (or 0, for
// count) over NULLs alone: rows whose arguments are all NULL add nothing to them.
var nullIgnoring = map[string]bool{"sum": true, "avg": true, "min": true, "max": true, "count": true, "group_concat": true}

// nullRowsInvisible reports whether rows NULL-extended on table change nothing in the
// aggregated select s: every aggregate is one of nullIgnoring over columns of that
// table only (count(*) is not: it counts the added rows), every other column reference
// is a GROUP BY term, and with GROUP BY a HAVING conjunct drops the groups made of
// added rows alone (without GROUP BY there is one group either way, with the same
// values). A group with real rows then aggregates the same values with or without the
// added rows.
func nullRowsInvisible(s *rq.SelectStatement, table string) bool {
	grouped := map[string]bool{}
	for _, g := range s.GroupByExprs {
		grouped[strings.ToLower(g.String())] = true
	}
	aggs := 0
	ok := func(e rq.Expr) bool {
		return everyLeaf(e, func(e rq.Expr) (bool, bool) {
			switch e := e.(type) {
			case *rq.Ident, *rq.QualifiedRef:
				return grouped[strings.ToLower(e.String())], true
			case *rq.Call:
				if e.Name == nil || !nullIgnoring[strings.ToLower(e.Name.Name)] || e.Over != nil || e.Filter != nil {
					return false, false // another function: its arguments are looked at
				}
				if e.Star.IsValid() || len(e.Args) == 0 {
					return false, true
				}
				for _, a := range e.Args {
					if !onlyColumnsOf(a, table) {
						return false, true
					}
				}
				aggs++
				return true, true
			}
			return false, false
		})
	}
	for _, c := range s.Columns {
		if c.Star.IsValid() || !ok(c.Expr) {
			return false
		}
	}
	for _, o := range s.OrderingTerms {
		if !ok(o.X) {
			return false
		}
	}
	if !ok(s.HavingExpr) || aggs == 0 {
		return false
	}
	return len(s.GroupByExprs) == 0 || dropsNullGroups(s.HavingExpr, table)
}

// onlyColumnsOf reports whether e refers to columns of table and to no other column
// (nor to a subquery).
func onlyColumnsOf(e rq.Expr, table string) bool {
	refs := 0
	ok := everyLeaf(e, func(e rq.Expr) (bool, bool) {
		switch e := e.(type) {
		case *rq.QualifiedRef:
			refs++
			return e.Table != nil && e.Column != nil && strings.EqualFold(e.Table.Name, table), true
		case *rq.Ident:
			return false, true // an unqualified column
		case *rq.Call:
			if e.Star.IsValid() {
				return false, true
			}
		}
		return false, false
	})
	return ok && refs > 0
}

// everyLeaf reports whether an expression holds up to leaf: leaf decides the nodes it
// knows (done), and everyLeaf walks through parentheses, unary and binary operators
// and the arguments of calls; a literal or an absent expression holds, anything else
// (a subquery, CASE, CAST, …) does not.
func everyLeaf(e rq.Expr, leaf func(rq.Expr) (ok, done bool)) bool {
	if e == nil {
		return true
	}
	if ok, done := leaf(e); done {
		return ok
	}
	switch e := e.(type) {
	case *rq.NumberLit, *rq.StringLit, *rq.NullLit, *rq.BoolLit:
		return true
	case *rq.ParenExpr:
		return everyLeaf(e.X, leaf)
	case *rq.UnaryExpr:
		return everyLeaf(e.X, leaf)
	case *rq.BinaryExpr:
		return everyLeaf(e.X, leaf) && everyLeaf(e.Y, leaf)
	case *rq.Call:
		for _, a := range e.Args {
			if !everyLeaf(a, leaf) {
				return false
			}
		}
		return true
	}
	return false
}

// dropsNullGroups reports whether a HAVING condition is NULL or false for a group whose
// columns of table are all NULL: a conjunct comparing sum, avg, min or max of them
// (NULL then), or count of them (0 then) with > n (n ≥ 0), >= n or = n (n ≥ 1).
func dropsNullGroups(e rq.Expr, table string) bool {
	return falsifies(e, comparison(func(c *rq.BinaryExpr) bool {
		switch c.Op {
		case rq.EQ, rq.NE, rq.LT, rq.LE, rq.GT, rq.GE:
			if name, ok := aggregateOver(c.X, table); ok {
				if name != "count" {
					return true
				}
				n, isInt := intLiteral(c.Y)
				return isInt && (c.Op == rq.GT && n >= 0 || (c.Op == rq.GE || c.Op == rq.EQ) && n >= 1)
			}
			name, ok := aggregateOver(c.Y, table)
			return ok && name != "count"
		}
		return false
	}))
}

// falsifies reports whether a condition is false (or NULL) whenever the conditions
// leaf accepts are: through parentheses, an AND needs one such side, an OR both.
func falsifies(e rq.Expr, leaf func(rq.Expr) bool) bool {
	switch x := e.(type) {
	case *rq.ParenExpr:
		return falsifies(x.X, leaf)
	case *rq.BinaryExpr:
		switch x.Op {
		case rq.AND:
			return falsifies(x.X, leaf) || falsifies(x.Y, leaf)
		case rq.OR:
			return falsifies(x.X, leaf) && falsifies(x.Y, leaf)
		}
	}
	return e != nil && leaf(e)
}

// comparison gives leaf the binary expressions only.
func comparison(leaf func(*rq.BinaryExpr) bool) func(rq.Expr) bool {
	return func(e rq.Expr) bool {
		b, ok := e.(*rq.BinaryExpr)
		return ok && leaf(b)
	}
}

// havingDropsSingletons reports whether HAVING has a conjunct that drops a group of
// one row: count(*) > n (n ≥ 1), count(*) >= n or = n (n ≥ 2).
func havingDropsSingletons(e rq.Expr) bool {
	return falsifies(e, comparison(func(b *rq.BinaryExpr) bool {
		if b.Op != rq.GT && b.Op != rq.GE && b.Op != rq.EQ {
			return false
		}
		c, ok := b.X.(*rq.Call)
		if !ok || c.Name == nil || !strings.EqualFold(c.Name.Name, "count") || !c.Star.IsValid() || c.Over != nil || c.Filter != nil {
			return false
		}
		n, isInt := intLiteral(b.Y)
		return isInt && (b.Op == rq.GT && n >= 1 || b.Op != rq.GT && n >= 2)
	}))
}

// aggregateOver returns the name of a null-ignoring aggregate whose arguments are
// columns of table only.
func aggregateOver(e rq.Expr, table string) (string, bool) {
	c, ok := e.(*rq.Call)
	if !ok || c.Name == nil || c.Star.IsValid() || c.Over != nil || c.Filter != nil || len(c.Args) == 0 {
		return "", false
	}
	name := strings.ToLower(c.Name.Name)
	if !nullIgnoring[name] {
		return "", false
	}
	for _, a := range c.Args {
		if !onlyColumnsOf(a, table) {
			return "", false
		}
	}
	return name, true
}

// intLiteral reads an integer literal.
func intLiteral(e rq.Expr) (int64, bool) {
	if v, ok := literalValue(e); ok && v.Kind == qeval.KindInt {
		return v.Int, true
	}
	return 0, false
}

// sourceName is the name a query uses for a table source: its alias, else its name,
// lower-cased; "" for a subquery or anything else.
func sourceName(s rq.Source) string {
	t, ok := s.(*rq.QualifiedTableName)
	if !ok {
		return ""
	}
	if t.Alias != nil && t.Alias.Name != "" {
		return strings.ToLower(t.Alias.Name)
	}
	if t.Name != nil {
		return strings.ToLower(t.Name.Name)
	}
	return ""
}

// rejectsNull reports whether the condition is NULL or false whenever the columns of
// table are NULL. It accepts comparisons, LIKE, GLOB, IN, BETWEEN and IS NOT NULL of a
// column of the table (or of arithmetic on it), conjunctions with such a conjunct, and
// disjunctions of such conditions. NOT IN over a subquery is not accepted: NULL NOT
// IN an empty set is true.
func rejectsNull(e rq.Expr, table string) bool {
	return falsifies(e, func(e rq.Expr) bool {
		if n, ok := e.(*rq.Null); ok {
			return n.Op == rq.NOTNULL && nullWith(n.X, table)
		}
		b, ok := e.(*rq.BinaryExpr)
		if !ok {
			return false
		}
		switch b.Op {
		case rq.EQ, rq.NE, rq.LT, rq.LE, rq.GT, rq.GE, rq.LIKE, rq.NOTLIKE, rq.GLOB, rq.NOTGLOB:
			return nullWith(b.X, table) || nullWith(b.Y, table)
		case rq.IN, rq.BETWEEN, rq.NOTBETWEEN:
			return nullWith(b.X, table)
		case rq.NOTIN:
			l, ok := b.Y.(*rq.ExprList)
			if !ok || len(l.Exprs) == 0 {
				return false
			}
			for _, x := range l.Exprs {
				if _, sub := x.(rq.SelectExpr); sub {
					return false
				}
			}
			return nullWith(b.X, table)
		case rq.ISNOT:
			_, null := b.Y.(*rq.NullLit)
			return null && nullWith(b.X, table)
		}
		return false
	})
}

// nullWith reports whether the expression is NULL whenever table's columns are: a
// column of the table, or arithmetic with one.
func nullWith(e rq.Expr, table string) bool {
	switch e := e.(type) {
	case *rq.ParenExpr:
		return nullWith(e.X, table)
	case *rq.QualifiedRef:
		return e.Table != nil && e.Column != nil && strings.EqualFold(e.Table.Name, table)
	case *rq.BinaryExpr:
		switch e.Op {
		case rq.PLUS, rq.MINUS, rq.STAR, rq.SLASH, rq.REM, rq.CONCAT:
			return nullWith(e.X, table) || nullWith(e.Y, table)
		}
	case *rq.UnaryExpr:
		return e.Op == rq.MINUS && nullWith(e.X, table)
	}
	return false
}
