package testsuite

import (
	"strconv"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

// tieCheck finds a tie at the cut of a gold query with ORDER BY … LIMIT k: rows k and
// k+1 with equal sort keys but different values. On such data a correct query that breaks the tie the
// other way would be judged wrong, so a generated database with a tie is not used.
type tieCheck struct {
	query  string // the gold with its sort keys as extra result columns, LIMIT k+1
	source string // the SELECT as written
	keys   []int  // result columns holding the sort keys
	width  int    // result columns of the gold itself
	limit  int    // k, or -1 without LIMIT
}

// newTieChecks builds the checks for a gold query and each of its subqueries with
// ORDER BY … LIMIT (a correlated subquery cannot run alone; its check then fails to
// run and is ignored).
func newTieChecks(s *rq.SelectStatement) []*tieCheck {
	var out []*tieCheck
	visit(s, func(n rq.Node) {
		if sel, ok := n.(*rq.SelectStatement); ok {
			if tc := newTieCheck(sel); tc != nil {
				out = append(out, tc)
			}
		}
	})
	return out
}

// newTieCheck builds the check for one SELECT, nil when it has no ORDER BY … LIMIT or
// the keys cannot be found.
func newTieCheck(s *rq.SelectStatement) *tieCheck {
	if len(s.OrderingTerms) == 0 || len(s.Columns) == 0 || s.LimitExpr == nil || s.OffsetExpr != nil {
		return nil
	}
	c := rq.CloneStatement(s).(*rq.SelectStatement)
	tc := &tieCheck{width: len(s.Columns), limit: -1, source: s.String()}
	if s.LimitExpr != nil {
		lit, ok := s.LimitExpr.(*rq.NumberLit)
		if !ok {
			return nil
		}
		k, err := strconv.Atoi(lit.Value)
		if err != nil {
			return nil
		}
		tc.limit = k
		c.LimitExpr = &rq.NumberLit{Value: strconv.Itoa(k + 1)}
	}
	for _, t := range s.OrderingTerms {
		if i := resultIndex(s, t.X); i >= 0 {
			tc.keys = append(tc.keys, i)
			continue
		}
		if s.Compound != nil || s.Distinct.IsValid() || hasStar(s) {
			return nil // extra result columns would change the rows
		}
		tc.keys = append(tc.keys, len(c.Columns))
		c.Columns = append(c.Columns, &rq.ResultColumn{Expr: rq.CloneExpr(t.X)})
	}
	tc.query = c.String()
	return tc
}

func hasStar(s *rq.SelectStatement) bool {
	for _, c := range s.Columns {
		if c.Star.IsValid() {
			return true
		}
		if q, ok := c.Expr.(*rq.QualifiedRef); ok && q.Star.IsValid() {
			return true
		}
	}
	return false
}

// resultIndex finds the result column an ORDER BY term names: by position, alias or
// the same expression; -1 when none.
func resultIndex(s *rq.SelectStatement, x rq.Expr) int {
	if lit, ok := x.(*rq.NumberLit); ok {
		if k, err := strconv.Atoi(lit.Value); err == nil && k >= 1 && k <= len(s.Columns) {
			return k - 1
		}
	}
	text := strings.ToLower(x.String())
	for i, c := range s.Columns {
		if c.Alias != nil {
			if id, ok := x.(*rq.Ident); ok && strings.EqualFold(id.Name, c.Alias.Name) {
				return i
			}
		}
		if c.Expr != nil && strings.ToLower(c.Expr.String()) == text {
			return i
		}
	}
	return -1
}

// tied reports whether the rows of the check query hold a tie at the LIMIT cut: the
// last row kept and the first row cut have the same sort keys but different values.
func (tc *tieCheck) tied(rs *qeval.ResultSet) bool {
	rows := rs.Rows
	if tc.limit < 1 || len(rows) <= tc.limit {
		return false
	}
	for i := tc.limit; i == tc.limit; i++ {
		a, b := rows[i-1], rows[i]
		if len(a) < tc.width || len(b) < tc.width {
			return false
		}
		same := true
		for _, k := range tc.keys {
			if k >= len(a) || a[k] != b[k] {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		for j := 0; j < tc.width; j++ {
			if a[j] != b[j] {
				return true
			}
		}
	}
	return false
}
