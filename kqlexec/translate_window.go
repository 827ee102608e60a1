package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// Window functions with a restart predicate (row_number(1, Airport != prev(Airport)),
// row_cumsum, row_rank_min, row_rank_dense) need a window over a window: the restart
// flags, then their running sum (the segment), then the function partitioned by
// segment. SQLite does not nest window functions, so a projection computes such
// helper columns in stages before its own select: scope.helper registers one at a
// level (level 0 is computed first, from the projection's input), and project builds
// the stages and puts the helpers' columns in place of their tokens.

// helpers are the staged columns of one projection.
type helpers struct {
	levels [][]helper
	n      int
}

type helper struct{ token, sql string }

// helper registers sql as a column computed at level and returns the token that
// stands for it; ok is false where no staging is possible (outside project/extend).
func (s *scope) helper(level int, sql string) (string, bool) {
	if s.pre == nil {
		return "", false
	}
	tok := "\x00h" + strconv.Itoa(s.pre.n) + "\x00"
	s.pre.n++
	for len(s.pre.levels) <= level {
		s.pre.levels = append(s.pre.levels, nil)
	}
	s.pre.levels[level] = append(s.pre.levels[level], helper{tok, sql})
	return tok, true
}

// staged builds the helper stages over in and returns the relation the projection
// selects from and the replacer of the tokens.
func (t *translator) staged(in *rel, h *helpers) (*rel, *strings.Replacer) {
	if h == nil || h.n == 0 {
		return in, strings.NewReplacer()
	}
	var pairs []string
	cur := in
	for _, lv := range h.levels {
		r := strings.NewReplacer(pairs...)
		cols := append([]column(nil), cur.cols...)
		sels := selectCols(cur)
		for _, x := range lv {
			cols = append(cols, column{Name: "\x00" + x.token, Type: TLong})
			sels = append(sels, r.Replace(x.sql))
			pairs = append(pairs, x.token, "t."+colName(len(cols)-1))
		}
		cur = t.stage(cols, "SELECT "+strings.Join(append(sels, "t._o"), ", ")+" FROM "+cur.from+" t")
	}
	return cur, strings.NewReplacer(pairs...)
}

// segment returns the SQL of the running count of restarts up to each row (level 1),
// or "" when the call has no restart argument (at index i).
func (t *translator) segment(c *kql.Call, a []expr, i int, sc *scope) (string, error) {
	if len(a) <= i {
		return "", nil
	}
	flag, ok := sc.helper(0, "CASE WHEN "+coerce(a[i], TBool).sql+" THEN 1 ELSE 0 END")
	if !ok {
		return "", t.unsupported(c, c.Name()+"() with a restart predicate outside extend or project")
	}
	seg, _ := sc.helper(1, "sum("+flag+") OVER (ORDER BY "+sc.rowOrder+" ROWS UNBOUNDED PRECEDING)")
	return seg, nil
}

// windowCall reads a window function's arguments (min to max of them) and the
// segment of its restart argument (at index restart; "" when absent).
func (t *translator) windowCall(c *kql.Call, sc *scope, min, max, restart int) ([]expr, string, error) {
	a, err := t.argN(c, sc, min, max)
	if err != nil {
		return nil, "", err
	}
	if sc.rowOrder == "" {
		return nil, "", t.errAt(c, "%s() needs a serialized row set", c.Name())
	}
	seg, err := t.segment(c, a, restart, sc)
	return a, seg, err
}

func partitionBy(seg string) string {
	if seg == "" {
		return ""
	}
	return "PARTITION BY " + seg + " "
}

func spRowNumber(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, seg, err := t.windowCall(c, sc, 0, 2, 1)
	if err != nil {
		return expr{}, err
	}
	start := "1"
	if len(a) > 0 {
		start = coerce(a[0], TLong).sql
	}
	return expr{sql: "(row_number() OVER (" + partitionBy(seg) + "ORDER BY " + sc.rowOrder + ") - 1 + " + start + ")", t: TLong}, nil
}

func spRowCumsum(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, seg, err := t.windowCall(c, sc, 1, 2, 1)
	if err != nil {
		return expr{}, err
	}
	return expr{sql: "sum(" + a[0].sql + ") OVER (" + partitionBy(seg) + "ORDER BY " + sc.rowOrder + " ROWS UNBOUNDED PRECEDING)", t: a[0].t}, nil
}

// spRowRankMin is row_rank_min(Term [, restart]) on a row set sorted by Term: the
// position (within the segment) of the first row holding the row's value.
func spRowRankMin(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, seg, err := t.windowCall(c, sc, 1, 2, 1)
	if err != nil {
		return expr{}, err
	}
	by := a[0].sql
	if seg != "" {
		by = seg + ", " + by
	}
	return expr{sql: "(row_number() OVER (" + partitionBy(seg) + "ORDER BY " + sc.rowOrder + ") - row_number() OVER (PARTITION BY " + by + " ORDER BY " + sc.rowOrder + ") + 1)", t: TLong}, nil
}

// spRowRankDense is row_rank_dense(Term [, restart]): 1 on the first row (of each
// segment), one more each time Term changes from the row before.
func spRowRankDense(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, seg, err := t.windowCall(c, sc, 1, 2, 1)
	if err != nil {
		return expr{}, err
	}
	changed := "CASE WHEN " + a[0].sql + " IS NOT lag(" + a[0].sql + ") OVER (ORDER BY " + sc.rowOrder + ") THEN 1 ELSE 0 END"
	level := 0
	if seg != "" {
		// a restart also starts a new rank: the flag is at level 0, so this is level 1
		flag := sc.pre.levels[0][len(sc.pre.levels[0])-1].token
		changed = "CASE WHEN " + flag + " = 1 OR " + a[0].sql + " IS NOT lag(" + a[0].sql + ") OVER (ORDER BY " + sc.rowOrder + ") THEN 1 ELSE 0 END"
		level = 1
	}
	ch, ok := sc.helper(level, changed)
	if !ok {
		return expr{}, t.unsupported(c, "row_rank_dense() outside extend or project")
	}
	return expr{sql: "sum(" + ch + ") OVER (" + partitionBy(seg) + "ORDER BY " + sc.rowOrder + " ROWS UNBOUNDED PRECEDING)", t: TLong}, nil
}
