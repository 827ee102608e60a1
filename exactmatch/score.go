package exactmatch

import (
	"sort"
	"strings"
)

// Components are the partial-match components, in the official printout's order.
var Components = []string{"select", "select(no AGG)", "where", "where(no OP)", "group(no Having)",
	"group", "order", "and/or", "IUEN", "keywords"}

// Score is one component's partial match: accuracy, recall and F1 are each 0 or 1 under
// the official rules (all three are 1 only when the component matches as a whole), and
// the totals say whether the prediction and the gold have the component at all, which
// decides whether the item counts toward the averaged accuracy and recall.
type Score struct {
	Acc        float64 `json:"acc"`
	Rec        float64 `json:"rec"`
	F1         float64 `json:"f1"`
	LabelTotal int     `json:"label_total"`
	PredTotal  int     `json:"pred_total"`
}

// Result is the exact-set-match verdict of one prediction.
type Result struct {
	Exact bool `json:"exact"`
	// Hardness is the official difficulty of the gold query.
	Hardness string `json:"hardness"`
	// Partial holds a Score for each of Components.
	Partial map[string]Score `json:"partial"`
	// ParseError says why the official parser could not read the prediction; it was
	// then scored as an empty query, as the official evaluator does.
	ParseError string `json:"parse_error,omitempty"`
}

// Match scores pred against gold with the rules of the official evaluator (evaluation.py
// in taoyds/test-suite-sql-eval, default flags): in the prediction "value" becomes "1";
// both are parsed against schema; literal values are masked; DISTINCT is ignored; columns
// linked by foreign keys (fks, from LoadForeignKeys for this database) count as one; then
// each clause is compared as a set. The error is the gold query's parse error: the
// official evaluator stops there, qeval reports the item as not judged.
func Match(schema *Schema, fks map[string]string, gold, pred string) (Result, error) {
	p, err := ParsePair(schema, gold, pred)
	if err != nil {
		return Result{}, err
	}
	return p.Score(fks), nil
}

// Pair is a gold and a predicted query parsed against their database's schema: the
// first half of Match, which needs no foreign keys, so a caller can parse while
// tables.json is still being read.
type Pair struct {
	schema     *Schema
	gold, pred *SQL
	res        Result
}

// ParsePair parses gold and pred (with "value" made "1") against schema, as Match
// does; the error is the gold query's.
func ParsePair(schema *Schema, gold, pred string) (*Pair, error) {
	g, err := Parse(schema, gold)
	if err != nil {
		return nil, err
	}
	pr := &Pair{schema: schema, gold: g, res: Result{Hardness: Hardness(g)}}
	if pr.pred, err = Parse(schema, strings.ReplaceAll(pred, "value", "1")); err != nil {
		pr.res.ParseError = err.Error()
		pr.pred = &SQL{}
	}
	return pr, nil
}

// Score is the second half of Match: both queries normalised with the database's
// foreign keys, then compared. It changes the parsed queries: call it once.
func (pr *Pair) Score(fks map[string]string) Result {
	res := pr.res
	normalize(pr.gold, pr.schema, fks)
	normalize(pr.pred, pr.schema, fks)
	res.Partial = partial(pr.pred, pr.gold)
	res.Exact = exact(pr.pred, pr.gold, res.Partial)
	return res
}

// normalize applies the evaluator's two rebuild passes: values masked, then column ids
// unified through foreign keys and DISTINCT flags dropped.
func normalize(s *SQL, schema *Schema, fks map[string]string) {
	maskValues(s)
	valid := map[string]bool{}
	for _, t := range s.tables {
		if t.sub == nil && len(t.table) >= 2 {
			valid[t.table[:len(t.table)-2]] = true
		}
	}
	unifyColumns(s, valid, fks)
}

// maskValues is rebuild_sql_val: condition values other than subqueries become None,
// in the query and, recursively, in its subqueries of conditions and set operations
// (subqueries in FROM keep theirs).
func maskValues(s *SQL) {
	if s == nil {
		return
	}
	for _, c := range []*condition{&s.fromCond, &s.having, &s.where} {
		for i := range c.units {
			u := &c.units[i]
			u.val1 = maskValue(u.val1)
			u.val2 = maskValue(u.val2)
		}
	}
	maskValues(s.intersect)
	maskValues(s.except)
	maskValues(s.union)
}

func maskValue(v value) value {
	if sub, ok := v.(*SQL); ok {
		maskValues(sub)
		return sub
	}
	return nil
}

// unifyColumns is rebuild_sql_col. It reaches set operations (with the outer query's
// tables) but not subqueries in conditions or FROM, as in the original.
func unifyColumns(s *SQL, valid map[string]bool, fks map[string]string) {
	if s == nil {
		return
	}
	s.distinct = flagNone
	for i := range s.sel {
		unifyValUnit(&s.sel[i].val, valid, fks)
	}
	for _, c := range []*condition{&s.fromCond, &s.where, &s.having} {
		for i := range c.units {
			unifyValUnit(&c.units[i].val, valid, fks)
		}
	}
	for i := range s.groupBy {
		unifyColUnit(&s.groupBy[i], valid, fks)
	}
	for i := range s.order.units {
		unifyValUnit(&s.order.units[i], valid, fks)
	}
	unifyColumns(s.intersect, valid, fks)
	unifyColumns(s.except, valid, fks)
	unifyColumns(s.union, valid, fks)
}

func unifyValUnit(v *valUnit, valid map[string]bool, fks map[string]string) {
	unifyColUnit(&v.col1, valid, fks)
	if v.col2 != nil {
		unifyColUnit(v.col2, valid, fks)
	}
}

func unifyColUnit(c *colUnit, valid map[string]bool, fks map[string]string) {
	if to, ok := fks[c.col]; ok {
		if table, _, found := strings.Cut(c.col, "."); found && valid[table] {
			c.col = to
		}
	}
	c.distinct = flagNone
}

func scores(count, predTotal, labelTotal int) Score {
	s := Score{LabelTotal: labelTotal, PredTotal: predTotal}
	if predTotal == labelTotal && count == predTotal {
		s.Acc, s.Rec, s.F1 = 1, 1, 1
	}
	return s
}

// multisetHits counts the elements of pred found in label, each label element used once.
func multisetHits[T any](pred, label []T, eq func(a, b T) bool) int {
	left := append([]T(nil), label...)
	n := 0
	for _, x := range pred {
		for i, y := range left {
			if eq(x, y) {
				n++
				left = append(left[:i], left[i+1:]...)
				break
			}
		}
	}
	return n
}

// partial is eval_partial_match: a Score for each of Components, prediction p against
// gold g.
func partial(p, g *SQL) map[string]Score {
	res := make(map[string]Score, len(Components))
	res["select"], res["select(no AGG)"] = selectScores(p, g)
	res["where"], res["where(no OP)"] = whereScores(p, g)
	res["group(no Having)"] = groupNoHavingScore(p, g)
	res["group"] = groupScore(p, g)
	res["order"] = orderScore(p, g)
	res["and/or"] = andOrScore(p, g)
	res["IUEN"] = iuenScore(p, g)
	res["keywords"] = keywordsScore(p, g)
	return res
}

// selectScores compares the SELECT items with and without their aggregates.
func selectScores(p, g *SQL) (sel, noAgg Score) {
	cnt := multisetHits(p.sel, g.sel, eqSelectItem)
	pv, gv := make([]valUnit, len(p.sel)), make([]valUnit, len(g.sel))
	for i, x := range p.sel {
		pv[i] = x.val
	}
	for i, x := range g.sel {
		gv[i] = x.val
	}
	cntNoAgg := multisetHits(pv, gv, eqValUnit)
	return scores(cnt, len(p.sel), len(g.sel)), scores(cntNoAgg, len(p.sel), len(g.sel))
}

// whereScores compares the WHERE conditions with and without their operators.
func whereScores(p, g *SQL) (where, noOp Score) {
	cnt := multisetHits(p.where.units, g.where.units, eqCondUnit)
	pw, gw := make([]valUnit, len(p.where.units)), make([]valUnit, len(g.where.units))
	for i, u := range p.where.units {
		pw[i] = u.val
	}
	for i, u := range g.where.units {
		gw[i] = u.val
	}
	cntNoOp := multisetHits(pw, gw, eqValUnit)
	return scores(cnt, len(p.where.units), len(g.where.units)), scores(cntNoOp, len(p.where.units), len(g.where.units))
}

// groupNoHavingScore compares the GROUP BY column names without their table.
func groupNoHavingScore(p, g *SQL) Score {
	// a closure, inlined here, so that the short lists can live on the stack
	short := func(cs []colUnit) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.col
			if parts := strings.Split(c.col, "."); len(parts) > 1 {
				out[i] = parts[1]
			}
		}
		return out
	}
	cnt := multisetHits(short(p.groupBy), short(g.groupBy), func(a, b string) bool { return a == b })
	return scores(cnt, len(p.groupBy), len(g.groupBy))
}

// groupScore compares GROUP BY columns and HAVING together.
func groupScore(p, g *SQL) Score {
	pt, lt, cnt := boolInt(len(p.groupBy) > 0), boolInt(len(g.groupBy) > 0), 0
	if pt == 1 && lt == 1 && eqSlice(colIDs(p.groupBy), colIDs(g.groupBy), func(a, b string) bool { return a == b }) &&
		eqCondition(p.having, g.having) {
		cnt = 1
	}
	return scores(cnt, pt, lt)
}

// orderScore compares ORDER BY and whether both or neither have a LIMIT.
func orderScore(p, g *SQL) Score {
	pt, lt, cnt := boolInt(p.order.present), boolInt(g.order.present), 0
	if g.order.present && eqOrder(p.order, g.order) && p.limit == g.limit {
		cnt = 1
	}
	return scores(cnt, pt, lt)
}

// andOrScore compares the sets of connectives in WHERE. The original returns the two
// totals in swapped places when the sets differ; the totals only decide which averages
// count the item, so the swap is kept.
func andOrScore(p, g *SQL) Score {
	pa, ga := connectives(p.where.ops), connectives(g.where.ops)
	if pa == ga {
		return scores(1, 1, 1)
	}
	return scores(0, popcount(ga), popcount(pa))
}

// iuenScore compares the set operation (INTERSECT, EXCEPT, UNION), by exact match of
// the two parts.
func iuenScore(p, g *SQL) Score {
	lt, pt, cnt := 0, 0, 0
	for _, pair := range [][2]*SQL{{p.intersect, g.intersect}, {p.except, g.except}, {p.union, g.union}} {
		if pair[0] != nil {
			pt++
		}
		if pair[1] != nil {
			lt++
		}
		if pair[0] != nil && pair[1] != nil && exact(pair[0], pair[1], partial(pair[0], pair[1])) {
			cnt++
		}
	}
	return scores(cnt, pt, lt)
}

// keywordsScore compares the sets of keywords the two queries use.
func keywordsScore(p, g *SQL) Score {
	pk, gk := keywords(p), keywords(g)
	cnt := 0
	for k := range pk {
		if gk[k] {
			cnt++
		}
	}
	return scores(cnt, len(pk), len(gk))
}

// exact is eval_exact_match: every component's F1 is 1 and, when the gold reads tables,
// the sorted table units are equal.
func exact(p, g *SQL, parts map[string]Score) bool {
	for _, s := range parts {
		if s.F1 != 1 {
			return false
		}
	}
	if len(g.tables) == 0 {
		return true
	}
	return eqSlice(sortedTables(p.tables), sortedTables(g.tables), eqTableUnit)
}

// sortedTables orders table units as Python sorts (type, id) tuples: subqueries ("sql")
// before tables, tables by id. (Python cannot order two subqueries; they keep their order.)
func sortedTables(ts []tableUnit) []tableUnit {
	out := append([]tableUnit(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.sub != nil) != (b.sub != nil) {
			return a.sub != nil
		}
		return a.sub == nil && a.table < b.table
	})
	return out
}

const (
	hasAnd = 1 << iota
	hasOr
)

func connectives(ops []string) int {
	m := 0
	for _, o := range ops {
		if o == "and" {
			m |= hasAnd
		} else if o == "or" {
			m |= hasOr
		}
	}
	return m
}

func popcount(m int) int { return m&1 + m>>1&1 }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func colIDs(cs []colUnit) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.col
	}
	return out
}

// keywords is get_keywords: the clauses and operators a query uses.
func keywords(s *SQL) map[string]bool {
	k := map[string]bool{}
	set := func(name string, on bool) {
		if on {
			k[name] = true
		}
	}
	set("where", !s.where.empty())
	set("group", len(s.groupBy) > 0)
	set("having", !s.having.empty())
	if s.order.present {
		k[s.order.dir] = true
		k["order"] = true
	}
	set("limit", s.limit)
	set("except", s.except != nil)
	set("union", s.union != nil)
	set("intersect", s.intersect != nil)
	conds := []condition{s.fromCond, s.where, s.having}
	for _, c := range conds {
		for _, o := range c.ops {
			set("or", o == "or")
		}
		for _, u := range c.units {
			set("not", u.not)
			set("in", u.op == opIn)
			set("like", u.op == opLike)
		}
	}
	return k
}
