package equiv

import (
	"sort"
	"strconv"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval/z3"
)

// obligation is a property the encoding relies on (a bare column is the same in its
// group, a scalar subquery has one row, an ORDER BY leaves no ties): checked apart,
// the pair is unsupported, naming it, when some database breaks it.
type obligation struct {
	what string
	hold z3.Term
}

// enc encodes queries over one model.
type enc struct {
	m           *model
	obligations []obligation
	// depth is the nesting of the query being encoded (1: the top)
	depth int
	// inGold is set while the gold is encoded
	inGold bool
	// assumptions restrict the databases considered: the gold's ORDER BY leaves no
	// two different rows tied where it matters
	assumptions []z3.Term
	// uncorrelated are the subqueries encoded once for all the rows (see subquery)
	uncorrelated map[*rq.SelectStatement]*relation
}

// query encodes a whole statement: its SELECTs, compound operators, ORDER BY and
// LIMIT. outer is the enclosing query's row, for a correlated subquery.
func (e *enc) query(s *rq.SelectStatement, outer *env) *relation {
	e.depth++
	defer func() { e.depth-- }()
	if s.WithClause != nil {
		fail("WITH")
	}
	if len(s.ValueLists) > 0 {
		fail("VALUES")
	}
	if s.Compound == nil {
		rel, keys := e.core(s, outer, s.OrderingTerms)
		return e.limit(s, rel, keys)
	}
	rel, _ := e.core(s, outer, nil)
	for cur := s; cur.Compound != nil; cur = cur.Compound {
		right, _ := e.core(cur.Compound, outer, nil)
		if len(right.cols) != len(rel.cols) {
			fail("a compound SELECT whose parts have different column counts")
		}
		switch {
		case cur.UnionAll.IsValid():
			rel = &relation{cols: rel.cols, rows: append(append([]row(nil), rel.rows...), right.rows...)}
		case cur.Union.IsValid():
			rel = e.distinct(&relation{cols: rel.cols, rows: append(append([]row(nil), rel.rows...), right.rows...)})
		case cur.Intersect.IsValid():
			rel = e.setOp(e.distinct(rel), right, true)
		case cur.Except.IsValid():
			rel = e.setOp(e.distinct(rel), right, false)
		default:
			fail("compound operator")
		}
	}
	var keys [][]val
	if len(s.OrderingTerms) > 0 {
		// a compound's ORDER BY names result columns, by position or name
		for _, r := range rel.rows {
			var k []val
			for _, t := range s.OrderingTerms {
				k = append(k, r.vals[e.outputIndex(t.X, rel, s)])
			}
			keys = append(keys, k)
		}
	}
	return e.limit(s, rel, keys)
}

// outputIndex is the result column an ORDER BY term of a compound names.
func (e *enc) outputIndex(x rq.Expr, rel *relation, s *rq.SelectStatement) int {
	if lit, ok := x.(*rq.NumberLit); ok {
		if k, err := strconv.Atoi(lit.Value); err == nil && k >= 1 && k <= len(rel.cols) {
			return k - 1
		}
	}
	name := strings.ToLower(strings.Trim(x.String(), `"`))
	for i, c := range s.Columns {
		if c.Alias != nil && strings.EqualFold(c.Alias.Name, name) || c.Expr != nil && strings.EqualFold(c.Expr.String(), x.String()) {
			return i
		}
	}
	for i, c := range rel.cols {
		if c.name == name {
			return i
		}
	}
	fail("ORDER BY %s of a compound SELECT", exprText(x))
	return 0
}

// core encodes one SELECT without its compound parts: FROM, WHERE, GROUP BY, HAVING,
// the result columns and DISTINCT; it returns the sort keys of each row for the
// ordering terms given.
func (e *enc) core(s *rq.SelectStatement, outer *env, order []*rq.OrderingTerm) (*relation, [][]val) {
	m := e.m
	ctx := m.ctx
	if len(s.Windows) > 0 {
		fail("WINDOW")
	}
	in := &relation{rows: []row{{exists: ctx.True()}}}
	if s.Source != nil {
		in = e.source(s.Source, outer)
	}
	if s.WhereExpr != nil {
		rows := make([]row, len(in.rows))
		for i, r := range in.rows {
			p := e.cond(s.WhereExpr, &env{cols: in.cols, vals: r.vals, parent: outer})
			rows[i] = row{exists: ctx.And(r.exists, p.t), vals: r.vals, key: r.key}
		}
		in = &relation{cols: in.cols, rows: rows}
	}
	aliases := map[string]rq.Expr{}
	for _, c := range s.Columns {
		if c.Alias != nil && c.Expr != nil {
			aliases[strings.ToLower(c.Alias.Name)] = c.Expr
		}
	}
	grouped := len(s.GroupByExprs) > 0 || s.HavingExpr != nil || hasAggregate(s.Columns, order)
	out := &relation{}
	var keys [][]val
	emit := func(exists z3.Term, en *env, key string) {
		vals, cols := e.project(s, en, in)
		if out.cols == nil {
			out.cols = cols
		}
		out.rows = append(out.rows, row{exists: exists, vals: vals, key: key})
		if len(order) > 0 {
			keys = append(keys, e.sortKeys(order, vals, s, en))
		}
	}
	switch {
	case !grouped:
		for _, r := range in.rows {
			emit(r.exists, &env{cols: in.cols, vals: r.vals, parent: outer, aliases: aliases}, r.key)
		}
	case len(s.GroupByExprs) == 0:
		// one group of every row, present even when there are none
		g := &group{in: in, rep: -1}
		for _, r := range in.rows {
			g.member = append(g.member, r.exists)
		}
		en := &env{cols: in.cols, parent: outer, group: g, aliases: aliases}
		exists := ctx.True()
		if s.HavingExpr != nil {
			exists = e.cond(s.HavingExpr, en).t
		}
		emit(exists, en, "*")
	default:
		e.groups(s, in, outer, aliases, emit)
	}
	if out.cols == nil {
		// no row at all (a FROM of no rows cannot happen: K ≥ 1); keep the columns
		_, out.cols = e.project(s, &env{cols: in.cols, vals: nullRow(m, in), parent: outer}, in)
	}
	if s.Distinct.IsValid() {
		if len(order) > 0 {
			for _, t := range order {
				if _, ok := e.resultPosition(t.X, s); !ok {
					fail("DISTINCT with ORDER BY a column it does not return")
				}
			}
			d := e.distinct(out)
			return d, keys
		}
		return e.distinct(out), nil
	}
	return out, keys
}

func nullRow(m *model, in *relation) []val {
	out := make([]val, len(in.cols))
	for i := range out {
		out[i] = m.nullVal()
	}
	return out
}

// groups emits one row per group of GROUP BY: the first row of each group stands for
// it; its members are the rows with the same keys (NULL keys group together).
func (e *enc) groups(s *rq.SelectStatement, in *relation, outer *env, aliases map[string]rq.Expr, emit func(z3.Term, *env, string)) {
	ctx := e.m.ctx
	keys := make([][]val, len(in.rows))
	grouped := map[int]bool{}
	for _, x := range s.GroupByExprs {
		if i, ok := columnIndex(x, in); ok {
			grouped[i] = true
		}
	}
	for i, r := range in.rows {
		en := &env{cols: in.cols, vals: r.vals, parent: outer, aliases: aliases}
		for _, x := range s.GroupByExprs {
			if lit, ok := x.(*rq.NumberLit); ok {
				// GROUP BY 2: the second result column
				k, _ := strconv.Atoi(lit.Value)
				if k < 1 || k > len(s.Columns) || s.Columns[k-1].Expr == nil {
					fail("GROUP BY %s", lit.Value)
				}
				x = s.Columns[k-1].Expr
			}
			keys[i] = append(keys[i], e.expr(x, en))
		}
	}
	// the primary key of a table grouped: its other columns are grouped too
	for i, c := range in.cols {
		if c.table == nil || grouped[i] {
			continue
		}
		pk := c.table.info.PrimaryKey
		all := len(pk) > 0
		for _, p := range pk {
			found := false
			for j, d := range in.cols {
				if grouped[j] && d.inst == c.inst && d.col == p {
					found = true
				}
			}
			all = all && found
		}
		if all {
			grouped[i] = true
		}
	}
	sameKeys := func(a, b int) z3.Term {
		var eq []z3.Term
		for k := range keys[a] {
			eq = append(eq, e.nullSafeEq(keys[a][k], keys[b][k]))
		}
		return ctx.And(eq...)
	}
	for i, r := range in.rows {
		first := []z3.Term{r.exists}
		for j := 0; j < i; j++ {
			first = append(first, ctx.And(in.rows[j].exists, sameKeys(i, j)).Not())
		}
		g := &group{in: in, rep: i, grouped: grouped}
		for j, o := range in.rows {
			if j == i {
				g.member = append(g.member, o.exists)
				continue
			}
			g.member = append(g.member, ctx.And(o.exists, sameKeys(i, j)))
		}
		en := &env{cols: in.cols, vals: r.vals, parent: outer, group: g, aliases: aliases}
		exists := ctx.And(first...)
		if s.HavingExpr != nil {
			exists = ctx.And(exists, e.cond(s.HavingExpr, en).t)
		}
		emit(exists, en, r.key)
	}
}

// columnIndex is the input column a plain column reference names.
func columnIndex(x rq.Expr, in *relation) (int, bool) {
	var qual, name string
	switch x := x.(type) {
	case *rq.Ident:
		name = x.Name
	case *rq.QualifiedRef:
		if x.Table == nil || x.Column == nil {
			return 0, false
		}
		qual, name = x.Table.Name, x.Column.Name
	case *rq.ParenExpr:
		return columnIndex(x.X, in)
	default:
		return 0, false
	}
	qual, name = strings.ToLower(qual), strings.ToLower(name)
	for i, c := range in.cols {
		if c.name == name && (qual == "" || c.qual == qual) {
			return i, true
		}
	}
	return 0, false
}

// project evaluates the result columns (expanding *).
func (e *enc) project(s *rq.SelectStatement, en *env, in *relation) ([]val, []colInfo) {
	var vals []val
	var cols []colInfo
	for _, c := range s.Columns {
		if c.Star.IsValid() {
			for i, ci := range in.cols {
				vals = append(vals, valueAt(e, en, i))
				cols = append(cols, colInfo{name: ci.name})
			}
			continue
		}
		if q, ok := c.Expr.(*rq.QualifiedRef); ok && q.Star.IsValid() {
			t := strings.ToLower(q.Table.Name)
			for i, ci := range in.cols {
				if ci.qual == t {
					vals = append(vals, valueAt(e, en, i))
					cols = append(cols, colInfo{name: ci.name})
				}
			}
			continue
		}
		v := e.expr(c.Expr, en)
		v.column = false
		vals = append(vals, v)
		name := ""
		switch x := c.Expr.(type) {
		case *rq.Ident:
			name = strings.ToLower(x.Name)
		case *rq.QualifiedRef:
			if x.Column != nil {
				name = strings.ToLower(x.Column.Name)
			}
		}
		if c.Alias != nil {
			name = strings.ToLower(c.Alias.Name)
		}
		cols = append(cols, colInfo{name: name})
	}
	return vals, cols
}

// valueAt reads input column i of the row the env stands for (a grouped SELECT's *
// reads bare columns).
func valueAt(e *enc, en *env, i int) val {
	if en.group != nil && !en.group.grouped[i] {
		e.bare(en, i)
	}
	if en.vals == nil {
		fail("* beside an aggregate without GROUP BY")
	}
	if en.vals[i].bad != "" {
		fail("%s", en.vals[i].bad)
	}
	return en.vals[i]
}

// resultPosition is the result column an ORDER BY term names: by position or alias.
func (e *enc) resultPosition(x rq.Expr, s *rq.SelectStatement) (int, bool) {
	if lit, ok := x.(*rq.NumberLit); ok {
		if k, err := strconv.Atoi(lit.Value); err == nil && k >= 1 && k <= len(s.Columns) {
			return k - 1, true
		}
		return 0, false
	}
	if id, ok := x.(*rq.Ident); ok {
		for i, c := range s.Columns {
			if c.Alias != nil && strings.EqualFold(c.Alias.Name, id.Name) {
				return i, true
			}
		}
	}
	for i, c := range s.Columns {
		if c.Expr != nil && strings.EqualFold(c.Expr.String(), x.String()) {
			return i, true
		}
	}
	return 0, false
}

// sortKeys evaluates the ORDER BY terms for one result row.
func (e *enc) sortKeys(order []*rq.OrderingTerm, vals []val, s *rq.SelectStatement, en *env) []val {
	var out []val
	for _, t := range order {
		if t.Nulls.IsValid() {
			fail("NULLS FIRST or LAST")
		}
		if i, ok := e.resultPosition(t.X, s); ok && i < len(vals) {
			out = append(out, vals[i])
			continue
		}
		out = append(out, e.expr(t.X, en))
	}
	return out
}

// source encodes a FROM clause.
func (e *enc) source(src rq.Source, outer *env) *relation {
	m := e.m
	switch x := src.(type) {
	case *rq.QualifiedTableName:
		t := m.table(x.Name.Name)
		m.insts++
		qual := strings.ToLower(x.Name.Name)
		if x.Alias != nil {
			qual = strings.ToLower(x.Alias.Name)
		}
		rel := &relation{}
		for ci, c := range t.info.Columns {
			if t.mixed[ci] {
				// read lazily: only a query that uses it is unsupported
				rel.cols = append(rel.cols, colInfo{qual: qual, name: strings.ToLower(c.Name), inst: m.insts, col: ci, table: t})
				continue
			}
			rel.cols = append(rel.cols, colInfo{qual: qual, name: strings.ToLower(c.Name), inst: m.insts, col: ci, table: t})
		}
		for ri, r := range t.rows {
			vals := make([]val, len(r.vals))
			copy(vals, r.vals)
			for ci := range vals {
				if t.mixed[ci] {
					vals[ci] = e.mixedColumn(t, ci)
				}
			}
			rel.rows = append(rel.rows, row{exists: r.exists, vals: vals, key: strings.ToLower(t.info.Name) + "#" + strconv.Itoa(ri)})
		}
		if len(t.info.PrimaryKey) > 0 {
			rel.uniq = append(rel.uniq, t.info.PrimaryKey)
		}
		rel.uniq = append(rel.uniq, t.info.Unique...)
		return rel
	case *rq.ParenSource:
		if sel, ok := x.X.(*rq.SelectStatement); ok {
			sub := e.query(sel, nil)
			qual := ""
			if x.Alias != nil {
				qual = strings.ToLower(x.Alias.Name)
			}
			rel := &relation{rows: sub.rows}
			for _, c := range sub.cols {
				rel.cols = append(rel.cols, colInfo{qual: qual, name: c.name})
			}
			return rel
		}
		return e.source(x.X, outer)
	case *rq.JoinClause:
		return e.join(x, outer)
	}
	fail("FROM %T", src)
	return nil
}

// mixedColumn is a column whose original values are of several kinds: the model
// cannot read it.
func (e *enc) mixedColumn(t *table, ci int) val {
	return val{null: e.m.ctx.True(), v: e.m.zero, column: true, bad: "column " + t.info.Columns[ci].Name + " of " + t.info.Name + " holds values of several kinds"}
}

// distinct keeps the first of each set of equal rows (NULLs equal).
func (e *enc) distinct(rel *relation) *relation {
	ctx := e.m.ctx
	out := &relation{cols: rel.cols}
	for i, r := range rel.rows {
		keep := []z3.Term{r.exists}
		for j := 0; j < i; j++ {
			keep = append(keep, ctx.And(rel.rows[j].exists, e.rowEq(r.vals, rel.rows[j].vals)).Not())
		}
		out.rows = append(out.rows, row{exists: ctx.And(keep...), vals: r.vals, key: r.key})
	}
	return out
}

// joinKey is the key of a joined row: the keys of its parts, sorted.
func joinKey(a, b string) string {
	parts := append(strings.Split(a, "|"), strings.Split(b, "|")...)
	sort.Strings(parts)
	return strings.Join(parts, "|")
}

// setOp is INTERSECT (keep the rows of left found in right) or EXCEPT (those not).
func (e *enc) setOp(left, right *relation, intersect bool) *relation {
	ctx := e.m.ctx
	out := &relation{cols: left.cols}
	for _, l := range left.rows {
		var found []z3.Term
		for _, r := range right.rows {
			found = append(found, ctx.And(r.exists, e.rowEq(l.vals, r.vals)))
		}
		f := ctx.Or(found...)
		if !intersect {
			f = f.Not()
		}
		out.rows = append(out.rows, row{exists: ctx.And(l.exists, f), vals: l.vals, key: l.key})
	}
	return out
}

// rowEq is equality of rows with NULLs equal (DISTINCT, GROUP BY, set operators).
func (e *enc) rowEq(a, b []val) z3.Term {
	ctx := e.m.ctx
	var eq []z3.Term
	for i := range a {
		eq = append(eq, e.nullSafeEq(a[i], b[i]))
	}
	return ctx.And(eq...)
}

// before is x sorting strictly before y in one key: NULLs first ascending (last
// descending), numbers before texts.
func (e *enc) before(x, y val, desc bool) z3.Term {
	ctx := e.m.ctx
	if desc {
		x, y = y, x
	}
	if x.kind != y.kind && x.kind != kNull && y.kind != kNull {
		both := ctx.And(x.null.Not(), y.null.Not())
		return ctx.Or(ctx.And(x.null, y.null.Not()), ctx.And(both, ctx.BoolVal(x.kind == kNum)))
	}
	return ctx.Or(ctx.And(x.null, y.null.Not()), ctx.And(x.null.Not(), y.null.Not(), x.v.Lt(y.v)))
}

func constInt(x rq.Expr, what string) int64 {
	if p, ok := x.(*rq.ParenExpr); ok {
		return constInt(p.X, what)
	}
	lit, ok := x.(*rq.NumberLit)
	if !ok {
		fail("%s %s", what, exprText(x))
	}
	n, err := strconv.ParseInt(lit.Value, 10, 64)
	if err != nil || n < 0 {
		fail("%s %s", what, lit.Value)
	}
	return n
}

// hasAggregate reports whether the result columns or ORDER BY terms call an aggregate
// (outside subqueries).
func hasAggregate(cols []*rq.ResultColumn, order []*rq.OrderingTerm) bool {
	found := false
	var walk func(x rq.Expr)
	walk = func(x rq.Expr) {
		if x == nil || found {
			return
		}
		switch x := x.(type) {
		case *rq.Call:
			if isAggregate(x) {
				found = true
				return
			}
			for _, a := range x.Args {
				walk(a)
			}
		case *rq.BinaryExpr:
			walk(x.X)
			walk(x.Y)
		case *rq.UnaryExpr:
			walk(x.X)
		case *rq.ParenExpr:
			walk(x.X)
		case *rq.CastExpr:
			walk(x.X)
		}
	}
	for _, c := range cols {
		walk(c.Expr)
	}
	for _, t := range order {
		walk(t.X)
	}
	return found
}

func isAggregate(c *rq.Call) bool {
	switch strings.ToLower(c.Name.Name) {
	case "count", "sum", "avg", "min", "max", "total", "group_concat":
		return c.Name != nil && (len(c.Args) == 1 || c.Star.IsValid() || strings.EqualFold(c.Name.Name, "group_concat"))
	}
	return false
}
