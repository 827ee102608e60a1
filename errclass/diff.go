package errclass

import (
	"slices"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

// differ compares two outlines part by part and collects the differences as classes.
// Names compare case-insensitively and without their table qualifier (so singer.name
// and name read the same), unless both name a qualifier and the two tables are read by
// both queries (airlines.airline is not flights.airline); literals compare exactly.
type differ struct {
	out []qeval.ErrorClass
	// tables are those either query reads, both those both read (lower case)
	tables, both map[string]bool
}

func (d *differ) add(sub, expected, generated string) {
	d.out = append(d.out, qeval.ErrorClass{Class: qeval.ClassOfSubclass(sub), Subclass: sub,
		Expected: clip(expected), Generated: clip(generated)})
}

// compare is the entry point: it learns both queries' tables, then diffs them.
func (d *differ) compare(g, p *sqlparse.Outline) {
	gt, pt := map[string]bool{}, map[string]bool{}
	collectTables(g, gt)
	collectTables(p, pt)
	d.tables, d.both = map[string]bool{}, map[string]bool{}
	for t := range gt {
		d.tables[t] = true
		d.both[t] = pt[t]
	}
	for t := range pt {
		d.tables[t] = true
	}
	d.query(g, p)
}

func collectTables(o *sqlparse.Outline, into map[string]bool) {
	if o == nil {
		return
	}
	for _, s := range o.From {
		into[strings.ToLower(s.Table)] = true
		collectTables(s.Sub, into)
	}
	for _, c := range append(slices.Clone(o.Where), o.Having...) {
		collectTables(c.Sub, into)
	}
	for _, x := range o.Others {
		collectTables(x, into)
	}
}

// quiet says whether two nested outlines show no difference.
func (d *differ) quiet(g, p *sqlparse.Outline) bool {
	if g == nil || p == nil {
		return g == p
	}
	sub := &differ{tables: d.tables, both: d.both}
	sub.query(g, p)
	return len(sub.out) == 0
}

func (d *differ) query(g, p *sqlparse.Outline) {
	if !slices.Equal(g.SetOps, p.SetOps) {
		d.add(SubquerySetOperation, upperJoin(g.SetOps), upperJoin(p.SetOps))
	}
	for i := 0; i < len(g.Others) && i < len(p.Others); i++ {
		d.query(g.Others[i], p.Others[i])
	}
	if g.Distinct != p.Distinct {
		d.add(ClauseDistinct, distinctWord(g), distinctWord(p))
	}
	d.terms(g.Select, p.Select)
	d.sources(g.From, p.From)
	d.conds(g.Where, p.Where, g.WhereOps, p.WhereOps)
	d.group(g.GroupBy, p.GroupBy)
	d.conds(g.Having, p.Having, g.HavingOps, p.HavingOps)
	d.order(g.OrderBy, p.OrderBy)
	if g.Limit != p.Limit || g.Offset != p.Offset {
		d.add(ClauseLimit, limitText(g), limitText(p))
	}
}

func (d *differ) terms(g, p []sqlparse.Term) {
	gu, pu := d.unmatched(len(g), len(p), func(i, j int) bool { return d.same(g[i].Text, p[j].Text) })
	if len(gu) == 0 && len(pu) == 0 {
		for i := range g {
			if !d.same(g[i].Text, p[i].Text) {
				d.add(AttributeOrder, termsText(g), termsText(p))
				break
			}
		}
		return
	}
	n := min(len(gu), len(pu))
	for k := 0; k < n; k++ {
		gt, pt := g[gu[k]], p[pu[k]]
		switch {
		case !slices.Equal(lowerAll(gt.Aggs), lowerAll(pt.Aggs)):
			d.add(FunctionAggregate, gt.Text, pt.Text)
		case !slices.Equal(lowerAll(gt.Funcs), lowerAll(pt.Funcs)):
			d.add(FunctionScalar, gt.Text, pt.Text)
		default:
			d.add(AttributeMismatch, gt.Text, pt.Text)
		}
	}
	for _, i := range gu[n:] {
		d.add(AttributeMissing, g[i].Text, "")
	}
	for _, j := range pu[n:] {
		d.add(AttributeExtra, "", p[j].Text)
	}
}

// unmatched pairs the items of two lists that are the same (each used once, in
// order) and returns the indexes of those left over on each side.
func (d *differ) unmatched(ng, np int, same func(i, j int) bool) (gu, pu []int) {
	used := make([]bool, np)
	for i := 0; i < ng; i++ {
		found := false
		for j := 0; j < np; j++ {
			if !used[j] && same(i, j) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			gu = append(gu, i)
		}
	}
	for j, u := range used {
		if !u {
			pu = append(pu, j)
		}
	}
	return gu, pu
}

func (d *differ) sources(g, p []sqlparse.Source) {
	gu, pu := d.unmatched(len(g), len(p), func(i, j int) bool { return d.same(g[i].Table, p[j].Table) })
	n := min(len(gu), len(pu))
	for k := 0; k < n; k++ {
		d.add(TableMismatch, g[gu[k]].Table, p[pu[k]].Table)
	}
	for _, i := range gu[n:] {
		d.add(TableMissing, g[i].Table, "")
	}
	for _, j := range pu[n:] {
		d.add(TableExtra, "", p[j].Table)
	}
	// nested queries in FROM, in order
	var gs, ps []*sqlparse.Outline
	for _, s := range g {
		if s.Sub != nil {
			gs = append(gs, s.Sub)
		}
	}
	for _, s := range p {
		if s.Sub != nil {
			ps = append(ps, s.Sub)
		}
	}
	for k := 0; k < len(gs) && k < len(ps); k++ {
		d.query(gs[k], ps[k])
	}
	if len(gu) > 0 || len(pu) > 0 {
		return // the joins differ with the tables
	}
	gj, pj := d.joinsText(g), d.joinsText(p)
	ju, pju := d.unmatched(len(gj), len(pj), func(i, j int) bool { return strings.EqualFold(gj[i], pj[j]) })
	if len(ju) == 0 && len(pju) == 0 {
		return
	}
	// the same joins but for the comparison of their conditions: an operator
	if len(ju) == len(pju) {
		var ops [][2]string
		for k := range ju {
			gs, ps := g[ju[k]+1], p[pju[k]+1]
			if !d.same(gs.Table, ps.Table) || gs.Join != ps.Join || !d.onlyOperators(gs.OnConds, ps.OnConds, &ops) {
				ops = nil
				break
			}
		}
		for _, o := range ops {
			d.add(OperatorComparison, o[0], o[1])
		}
		if len(ops) > 0 {
			return
		}
	}
	d.add(TableJoin, pick(gj, ju), pick(pj, pju))
}

// onlyOperators says whether two lists of join conditions compare the same things in
// the same order (either side first) and collects the pairs whose operator differs.
func (d *differ) onlyOperators(g, p []sqlparse.Condition, ops *[][2]string) bool {
	if len(g) != len(p) {
		return false
	}
	for i := range g {
		straight := d.same(g[i].Left, p[i].Left) && d.same(g[i].Right, p[i].Right)
		swapped := d.same(g[i].Left, p[i].Right) && d.same(g[i].Right, p[i].Left)
		if !straight && !swapped || g[i].Op == "" || p[i].Op == "" {
			return false
		}
		if g[i].Op != p[i].Op {
			*ops = append(*ops, [2]string{g[i].Text, p[i].Text})
		}
	}
	return true
}

// joinsText renders each join (kind, table, condition) the same way for both
// queries: qualifiers dropped, the sides of an equality in a fixed order.
func (d *differ) joinsText(list []sqlparse.Source) []string {
	var out []string
	for i, s := range list {
		if i == 0 {
			continue
		}
		on := d.norm(s.On)
		if l, r, ok := strings.Cut(on, " = "); ok && !strings.Contains(r, " = ") && l > r {
			on = r + " = " + l
		}
		out = append(out, strings.ToUpper(s.Join)+" "+s.Table+onWord(on))
	}
	return out
}

func (d *differ) group(g, p []string) {
	gu, pu := d.unmatched(len(g), len(p), func(i, j int) bool { return d.same(g[i], p[j]) })
	if len(gu) > 0 || len(pu) > 0 {
		d.add(ClauseGroupBy, prefixed("GROUP BY ", strings.Join(g, ", ")), prefixed("GROUP BY ", strings.Join(p, ", ")))
	}
}

func (d *differ) order(g, p []sqlparse.Order) {
	if len(g) == 0 || len(p) == 0 {
		if len(g) != len(p) {
			d.add(ClauseOrderBy, orderText(g), orderText(p))
		}
		return
	}
	for k := 0; k < len(g) || k < len(p); k++ {
		switch {
		case k >= len(g) || k >= len(p):
			d.add(ClauseOrderBy, orderText(g), orderText(p))
			return
		case d.same(g[k].Text, p[k].Text):
			if g[k].Desc != p[k].Desc {
				d.add(ClauseOrderDirection, orderText(g[k:k+1]), orderText(p[k:k+1]))
			}
		case len(g[k].Aggs) > 0 && len(p[k].Aggs) > 0 && !slices.Equal(lowerAll(g[k].Aggs), lowerAll(p[k].Aggs)):
			d.add(FunctionAggregate, g[k].Text, p[k].Text)
		default:
			d.add(ClauseOrderBy, orderText(g[k:k+1]), orderText(p[k:k+1]))
		}
	}
}

func orderText(list []sqlparse.Order) string {
	parts := make([]string, len(list))
	for i, o := range list {
		parts[i] = o.Text
		if o.Desc {
			parts[i] += " DESC"
		} else {
			parts[i] += " ASC"
		}
	}
	return prefixed("ORDER BY ", strings.Join(parts, ", "))
}

func limitText(o *sqlparse.Outline) string {
	s := prefixed("LIMIT ", o.Limit)
	if o.Offset != "" {
		s += " OFFSET " + o.Offset
	}
	return strings.TrimSpace(s)
}

func distinctWord(o *sqlparse.Outline) string {
	if o.Distinct {
		return "SELECT DISTINCT"
	}
	return "SELECT"
}

func termsText(list []sqlparse.Term) string {
	parts := make([]string, len(list))
	for i, t := range list {
		parts[i] = t.Text
	}
	return strings.Join(parts, ", ")
}

func upperJoin(list []string) string { return strings.ToUpper(strings.Join(list, ", ")) }

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func onWord(on string) string {
	if on == "" || strings.HasPrefix(on, "using (") {
		return strings.ToUpper(prefixed(" ", on))
	}
	return " ON " + on
}

func pick(list []string, idx []int) string {
	parts := make([]string, len(idx))
	for i, k := range idx {
		parts[i] = list[k]
	}
	return strings.Join(parts, "; ")
}

func lowerAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}
