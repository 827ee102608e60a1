package testsuite

import (
	"context"
	"strconv"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

// GoldQuery is a parsed gold query, for the checks a gold audit runs on it: its
// near-miss neighbours, its ties at a LIMIT cut and whether it selects *.
type GoldQuery struct {
	s *rq.SelectStatement
}

// ParseGold parses one SELECT statement; an error when the syntax tree reader cannot
// (the audit then runs only the checks that need no tree).
func ParseGold(sql string) (*GoldQuery, error) {
	s, err := parseSelect(sql)
	if err != nil {
		return nil, err
	}
	return &GoldQuery{s: s}, nil
}

// SelectStar reports whether any SELECT of the query (subqueries included) returns *
// or t.*, so that its columns and their order come from the schema, not the query.
func (g *GoldQuery) SelectStar() bool {
	star := false
	visit(g.s, func(n rq.Node) {
		if sel, ok := n.(*rq.SelectStatement); ok && hasStar(sel) {
			star = true
		}
	})
	return star
}

// Neighbours returns at most max near misses of the query (DefaultMaxNeighbours when
// max ≤ 0). sch, when not nil, gives the "another column" mutation its columns.
func (g *GoldQuery) Neighbours(sch *qeval.Schema, max int) []Neighbour {
	if max <= 0 {
		max = DefaultMaxNeighbours
	}
	var tables []*table
	if sch != nil {
		for _, ts := range sch.Tables {
			t, _ := parseTable(ts)
			tables = append(tables, t)
		}
	}
	resolveKeys(tables)
	return neighboursOf(g.s, columnAlternatives(tables), keysOf(tables), max)
}

// Tie is a tie at the LIMIT cut of one SELECT of a gold query: the last row kept and
// the rows just past the cut have the same sort keys but different values, so another
// correct tie-break returns other rows.
type Tie struct {
	// Query is the SELECT with the tie (the gold itself or one of its subqueries).
	Query string `json:"query"`
	// Limit is its k of LIMIT k.
	Limit int `json:"limit"`
	// Columns names the values of Kept and Cut (the result columns, then the sort keys
	// the result does not show).
	Columns []string `json:"columns"`
	// Kept is the last row inside the cut; Cut are the rows past it with the same keys.
	Kept []qeval.Value   `json:"kept"`
	Cut  [][]qeval.Value `json:"cut"`
}

// tieLookahead is how many rows past the cut are fetched to list the tied ones.
const tieLookahead = 20

// Ties runs the tie checks of every SELECT with ORDER BY … LIMIT of the query on ex and
// returns the ties found. A check that cannot run (a correlated subquery) is skipped.
func (g *GoldQuery) Ties(ctx context.Context, ex qeval.Executor) ([]Tie, error) {
	var out []Tie
	for _, tc := range newTieChecks(g.s) {
		q := tc.withLookahead(tieLookahead)
		rs, err := ex.Query(ctx, q)
		if err != nil {
			if c := qeval.ErrorCode(err); c == qeval.CodeTimeout || c == qeval.CodeCanceled {
				return out, err
			}
			continue
		}
		t, ok := tc.tieAtCut(rs)
		if !ok {
			continue
		}
		t.Query, t.Columns = tc.source, rs.ColumnNames()
		out = append(out, t)
	}
	return out, nil
}

// tieAtCut finds the rows with the sort keys of the last row kept: a tie matters when
// one of them past the cut differs, in the values the query returns, from one kept.
func (tc *tieCheck) tieAtCut(rs *qeval.ResultSet) (Tie, bool) {
	rows := rs.Rows
	k := tc.limit
	if k < 1 || len(rows) <= k {
		return Tie{}, false
	}
	last := rows[k-1]
	var kept, cut [][]qeval.Value
	for i := k - 1; i >= 0 && tc.sameKeys(rows[i], last); i-- {
		kept = append(kept, rows[i])
	}
	for i := k; i < len(rows) && tc.sameKeys(rows[i], last); i++ {
		cut = append(cut, rows[i])
	}
	for _, c := range cut {
		for _, r := range kept {
			if !tc.sameOutput(c, r) {
				return Tie{Limit: k, Kept: last, Cut: cut}, true
			}
		}
	}
	return Tie{}, false
}

// sameOutput reports whether two rows agree on the columns the query itself returns.
func (tc *tieCheck) sameOutput(a, b []qeval.Value) bool {
	for j := 0; j < tc.width && j < len(a) && j < len(b); j++ {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}

// withLookahead returns the check query fetching n rows past the cut instead of one.
func (tc *tieCheck) withLookahead(n int) string {
	s, err := parseSelect(tc.query)
	if err != nil || s.LimitExpr == nil {
		return tc.query
	}
	s.LimitExpr = &rq.NumberLit{Value: strconv.Itoa(tc.limit + n)}
	return s.String()
}

// sameKeys reports whether two rows of the check query have equal sort keys.
func (tc *tieCheck) sameKeys(a, b []qeval.Value) bool {
	for _, k := range tc.keys {
		if k >= len(a) || k >= len(b) || a[k] != b[k] {
			return false
		}
	}
	return true
}
