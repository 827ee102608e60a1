package testsuite

import (
	"strconv"
	"strings"

	rq "github.com/rqlite/sql"
)

// Neighbour is a near miss of a gold query: one small change to its syntax tree.
type Neighbour struct {
	Change string `json:"change"` // what was changed, e.g. "flip >= to >"
	SQL    string `json:"sql"`
	// Equivalent is set when the change provably keeps the meaning (a LEFT JOIN toggled
	// under a filter that drops its NULL rows): not a near miss, and not counted as one.
	Equivalent bool `json:"equivalent,omitempty"`
}

// DefaultMaxNeighbours caps the neighbours made per gold query.
const DefaultMaxNeighbours = 60

// parseSelect parses one SELECT statement.
func parseSelect(q string) (*rq.SelectStatement, error) {
	st, err := rq.NewParser(strings.NewReader(q)).ParseStatement()
	if err != nil {
		return nil, err
	}
	s, ok := st.(*rq.SelectStatement)
	if !ok {
		return nil, errNotSelect
	}
	return s, nil
}

type notSelect struct{}

func (notSelect) Error() string { return "not a SELECT statement" }

var errNotSelect error = notSelect{}

// mutation changes the node at a position of the walk order; it returns the node to
// put in its place, or nil when it does not apply.
type mutation struct {
	at         int
	change     string
	apply      func(rq.Node) rq.Node
	equivalent bool
	column     string // the column an "another column" mutation puts in
}

// neighboursOf returns the neighbours of a parsed gold query, deduplicated, without
// the query itself, at most max. columns maps a lower-case column name to other column
// names of the same table, for the "another column" mutation.
func neighboursOf(s *rq.SelectStatement, columns map[string][]string, keys *keyInfo, max int) []Neighbour {
	var muts []mutation
	i := 0
	clone := rq.CloneStatement(s)
	rejected := outerJoinsEquivalent(clone, keys)
	aliases := tableAliases(clone)
	visit(clone, func(n rq.Node) {
		for _, m := range mutationsAt(n, columns) {
			m.at = i
			// the one mutation of a join toggles LEFT JOIN
			if j, ok := n.(*rq.JoinClause); ok && rejected[j] {
				m.equivalent = true
			}
			// count(a) and count(b) both count every row when neither is ever NULL
			if c, ok := n.(*rq.Call); ok && m.column != "" && plainCount(c) {
				table, col := columnOf(c.Args[0], aliases)
				m.equivalent = col != "" && keys.neverNullColumn(table, col) && keys.neverNullColumn(table, m.column)
			}
			muts = append(muts, m)
		}
		i++
	})
	base := s.String()
	seen := map[string]bool{base: true}
	var out []Neighbour
	for _, m := range muts {
		if len(out) >= max {
			break
		}
		j := 0
		applied := false
		// nodes are counted in the same order as above; a replaced node is not
		// entered, so the positions before it stay those of the original tree
		root := walkAll(rq.CloneStatement(s), func(n rq.Node) (rq.Node, bool) {
			defer func() { j++ }()
			if j == m.at {
				if r := m.apply(n); r != nil {
					applied = true
					return r, false
				}
			}
			return n, true
		})
		if !applied {
			continue
		}
		q := root.(rq.Statement).String()
		if seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, Neighbour{Change: m.change, SQL: q, Equivalent: m.equivalent})
	}
	return out
}

var flips = map[rq.Token][]rq.Token{
	rq.EQ: {rq.NE, rq.LT, rq.GT}, rq.NE: {rq.EQ},
	rq.LT: {rq.LE, rq.GT}, rq.LE: {rq.LT, rq.GE},
	rq.GT: {rq.GE, rq.LT}, rq.GE: {rq.GT, rq.LE},
	rq.IN: {rq.NOTIN}, rq.NOTIN: {rq.IN},
	rq.LIKE: {rq.NOTLIKE, rq.EQ}, rq.NOTLIKE: {rq.LIKE},
	rq.BETWEEN: {rq.NOTBETWEEN}, rq.NOTBETWEEN: {rq.BETWEEN},
	rq.AND: {rq.OR}, rq.OR: {rq.AND},
	rq.PLUS: {rq.MINUS}, rq.MINUS: {rq.PLUS},
}

var aggregates = map[string][]string{
	"count": {"sum"}, "sum": {"avg", "count", "max"}, "avg": {"sum", "max", "min"},
	"max": {"min", "avg"}, "min": {"max", "avg"},
}

// mutationsAt returns the mutations that apply to node n, each kind of node in its own
// function.
func mutationsAt(n rq.Node, columns map[string][]string) []mutation {
	var out mutationList
	switch n := n.(type) {
	case *rq.BinaryExpr:
		out.addBinary(n, columns)
	case *rq.Exists:
		out.addExists()
	case *rq.Call:
		out.addCall(n, columns)
	case *rq.JoinClause:
		out.addJoin(n)
	case *rq.ResultColumn:
		out.addResultColumn(n, columns)
	case *rq.OrderingTerm:
		out.addOrderingTerm(n, columns)
	case *rq.SelectStatement:
		out = append(out, selectMutations(n)...)
	}
	return out
}

// mutationList collects the mutations of one node.
type mutationList []mutation

func (l *mutationList) add(change string, f func(rq.Node) rq.Node) {
	*l = append(*l, mutation{change: change, apply: f})
}

// addBinary flips the operator, drops an operand of AND and OR, and in a comparison
// compares another column or changes an integer literal by one.
func (l *mutationList) addBinary(n *rq.BinaryExpr, columns map[string][]string) {
	for _, op := range flips[n.Op] {
		op := op
		l.add("change "+n.Op.String()+" to "+op.String(), func(x rq.Node) rq.Node {
			b := x.(*rq.BinaryExpr)
			c := *b
			c.Op = op
			return &c
		})
	}
	if n.Op == rq.AND || n.Op == rq.OR {
		l.add("drop the right operand of "+n.Op.String(), func(x rq.Node) rq.Node { return x.(*rq.BinaryExpr).X })
		l.add("drop the left operand of "+n.Op.String(), func(x rq.Node) rq.Node { return x.(*rq.BinaryExpr).Y })
	}
	if !isComparison(n.Op) {
		return
	}
	for side, e := range []rq.Expr{n.X, n.Y} {
		for _, alt := range otherColumns(e, columns) {
			side, alt := side, alt
			l.add("compare column "+alt+" instead", func(x rq.Node) rq.Node {
				c := *x.(*rq.BinaryExpr)
				if side == 0 {
					c.X = withColumn(c.X, alt)
				} else {
					c.Y = withColumn(c.Y, alt)
				}
				return &c
			})
		}
	}
	if lit, ok := n.Y.(*rq.NumberLit); ok {
		if v, err := strconv.ParseInt(lit.Value, 10, 64); err == nil {
			l.add("change literal "+lit.Value+" by one", func(x rq.Node) rq.Node {
				c := *x.(*rq.BinaryExpr)
				c.Y = &rq.NumberLit{Value: strconv.FormatInt(v+1, 10)}
				return &c
			})
		}
	}
}

func (l *mutationList) addExists() {
	l.add("negate EXISTS", func(x rq.Node) rq.Node {
		c := *x.(*rq.Exists)
		if c.Not.IsValid() {
			c.Not = rq.Pos{}
		} else {
			c.Not = valid
		}
		return &c
	})
}

// addCall swaps an aggregate for another, toggles DISTINCT in count, and aggregates
// another column.
func (l *mutationList) addCall(n *rq.Call, columns map[string][]string) {
	name := strings.ToLower(n.Name.Name)
	for _, alt := range aggregates[name] {
		if alt != "count" && n.Star.IsValid() {
			continue
		}
		alt := alt
		l.add("aggregate "+alt+" instead of "+name, func(x rq.Node) rq.Node {
			c := *x.(*rq.Call)
			c.Name = &rq.Ident{Name: alt}
			return &c
		})
	}
	if name == "count" && !n.Star.IsValid() {
		l.add("toggle DISTINCT in count", func(x rq.Node) rq.Node {
			c := *x.(*rq.Call)
			if c.Distinct.IsValid() {
				c.Distinct = rq.Pos{}
			} else {
				c.Distinct = valid
			}
			return &c
		})
	}
	if _, ok := aggregates[name]; ok && len(n.Args) == 1 {
		for _, alt := range otherColumns(n.Args[0], columns) {
			alt := alt
			l.add(name+" of column "+alt+" instead", func(x rq.Node) rq.Node {
				c := *x.(*rq.Call)
				c.Args = []rq.Expr{withColumn(c.Args[0], alt)}
				return &c
			})
			(*l)[len(*l)-1].column = alt
		}
	}
}

// addJoin toggles LEFT JOIN, in a join that is neither a comma nor NATURAL.
func (l *mutationList) addJoin(n *rq.JoinClause) {
	if n.Operator == nil || n.Operator.Comma.IsValid() || n.Operator.Natural.IsValid() {
		return
	}
	l.add("toggle LEFT JOIN", func(x rq.Node) rq.Node {
		c := *x.(*rq.JoinClause)
		op := *c.Operator
		if op.Left.IsValid() {
			op.Left, op.Outer = rq.Pos{}, rq.Pos{}
		} else {
			op.Left, op.Inner, op.Cross = valid, rq.Pos{}, rq.Pos{}
		}
		c.Operator = &op
		return &c
	})
}

func (l *mutationList) addResultColumn(n *rq.ResultColumn, columns map[string][]string) {
	for _, alt := range otherColumns(n.Expr, columns) {
		alt := alt
		l.add("select column "+alt+" instead", func(x rq.Node) rq.Node {
			c := *x.(*rq.ResultColumn)
			c.Expr = withColumn(c.Expr, alt)
			return &c
		})
	}
}

// addOrderingTerm flips the direction, and orders by another column.
func (l *mutationList) addOrderingTerm(n *rq.OrderingTerm, columns map[string][]string) {
	l.add("flip ORDER BY direction", func(x rq.Node) rq.Node {
		c := *x.(*rq.OrderingTerm)
		if c.Desc.IsValid() {
			c.Desc, c.Asc = rq.Pos{}, rq.Pos{}
		} else {
			c.Desc, c.Asc = valid, rq.Pos{}
		}
		return &c
	})
	for _, alt := range otherColumns(n.X, columns) {
		alt := alt
		l.add("order by column "+alt+" instead", func(x rq.Node) rq.Node {
			c := *x.(*rq.OrderingTerm)
			c.X = withColumn(c.X, alt)
			return &c
		})
	}
}

func selectMutations(n *rq.SelectStatement) []mutation {
	var out []mutation
	add := func(change string, f func(c *rq.SelectStatement)) {
		out = append(out, mutation{change: change, apply: func(x rq.Node) rq.Node {
			c := *x.(*rq.SelectStatement)
			f(&c)
			return &c
		}})
	}
	if n.Select.IsValid() {
		add("toggle DISTINCT", func(c *rq.SelectStatement) {
			if c.Distinct.IsValid() {
				c.Distinct = rq.Pos{}
			} else {
				c.Distinct = valid
			}
		})
	}
	if n.WhereExpr != nil {
		add("drop WHERE", func(c *rq.SelectStatement) { c.WhereExpr = nil })
		add("negate WHERE", func(c *rq.SelectStatement) {
			c.WhereExpr = &rq.UnaryExpr{Op: rq.NOT, X: &rq.ParenExpr{X: c.WhereExpr}}
		})
	}
	if n.HavingExpr != nil {
		add("drop HAVING", func(c *rq.SelectStatement) { c.HavingExpr = nil })
	}
	if len(n.GroupByExprs) > 0 {
		add("drop GROUP BY", func(c *rq.SelectStatement) { c.GroupByExprs, c.HavingExpr = nil, nil })
	}
	if len(n.OrderingTerms) > 0 {
		add("drop ORDER BY", func(c *rq.SelectStatement) { c.OrderingTerms = nil })
	}
	if lit, ok := n.LimitExpr.(*rq.NumberLit); ok {
		if k, err := strconv.Atoi(lit.Value); err == nil {
			add("LIMIT "+strconv.Itoa(k+1), func(c *rq.SelectStatement) { c.LimitExpr = &rq.NumberLit{Value: strconv.Itoa(k + 1)} })
			if k > 1 {
				add("LIMIT "+strconv.Itoa(k-1), func(c *rq.SelectStatement) { c.LimitExpr = &rq.NumberLit{Value: strconv.Itoa(k - 1)} })
			}
			if n.OffsetExpr == nil {
				add("drop LIMIT", func(c *rq.SelectStatement) { c.LimitExpr = nil })
			}
		}
	}
	if n.Compound != nil {
		switch {
		case n.Union.IsValid() && n.UnionAll.IsValid():
			add("UNION instead of UNION ALL", func(c *rq.SelectStatement) { c.UnionAll = rq.Pos{} })
		case n.Union.IsValid():
			add("UNION ALL instead of UNION", func(c *rq.SelectStatement) { c.UnionAll = valid })
			add("INTERSECT instead of UNION", func(c *rq.SelectStatement) { c.Union, c.Intersect = rq.Pos{}, valid })
		case n.Intersect.IsValid():
			add("EXCEPT instead of INTERSECT", func(c *rq.SelectStatement) { c.Intersect, c.Except = rq.Pos{}, valid })
			add("UNION instead of INTERSECT", func(c *rq.SelectStatement) { c.Intersect, c.Union = rq.Pos{}, valid })
		case n.Except.IsValid():
			add("INTERSECT instead of EXCEPT", func(c *rq.SelectStatement) { c.Except, c.Intersect = rq.Pos{}, valid })
		}
	}
	return out
}

// valid is a position that marks a keyword as present.
var valid = rq.Pos{Line: 1, Column: 1}

func isComparison(op rq.Token) bool {
	switch op {
	case rq.EQ, rq.NE, rq.LT, rq.LE, rq.GT, rq.GE, rq.LIKE, rq.NOTLIKE:
		return true
	}
	return false
}

// otherColumns returns, for a column reference, up to two other columns of its table.
func otherColumns(e rq.Expr, columns map[string][]string) []string {
	name := columnName(e)
	if name == "" {
		return nil
	}
	alts := columns[name]
	if len(alts) > 2 {
		alts = alts[:2]
	}
	return alts
}

// withColumn returns the column reference e naming column instead.
func withColumn(e rq.Expr, column string) rq.Expr {
	switch e := e.(type) {
	case *rq.Ident:
		return &rq.Ident{Name: column, Quoted: e.Quoted}
	case *rq.QualifiedRef:
		c := *e
		c.Column = &rq.Ident{Name: column}
		return &c
	case *rq.ParenExpr:
		return &rq.ParenExpr{X: withColumn(e.X, column)}
	}
	return e
}

// columnAlternatives maps each lower-case column name to the next and previous columns
// of the first table that has it.
func columnAlternatives(tables []*table) map[string][]string {
	out := map[string][]string{}
	for _, t := range tables {
		for i, c := range t.cols {
			key := strings.ToLower(c.name)
			if _, ok := out[key]; ok || len(t.cols) < 2 {
				continue
			}
			var alts []string
			if i+1 < len(t.cols) {
				alts = append(alts, t.cols[i+1].name)
			}
			if i > 0 {
				alts = append(alts, t.cols[i-1].name)
			}
			out[key] = alts
		}
	}
	return out
}
