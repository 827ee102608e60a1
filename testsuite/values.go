package testsuite

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

// literals collects the literal values a query compares a column with (col = 5,
// col IN ('a', 'b'), col LIKE '%x%', col BETWEEN 1 AND 9), keyed by "table.column"
// (lower-case) when the column is qualified by a name of one table, else by column.
func literals(stmt rq.Statement, out map[string][]qeval.Value) {
	aliases := tableAliases(stmt)
	key := func(e rq.Expr) string {
		name := columnName(e)
		for {
			p, ok := e.(*rq.ParenExpr)
			if !ok {
				break
			}
			e = p.X
		}
		if r, ok := e.(*rq.QualifiedRef); ok && name != "" && r.Table != nil {
			if t := aliases[strings.ToLower(r.Table.Name)]; t != "" {
				return t + "." + name
			}
		}
		return name
	}
	visit(stmt, func(n rq.Node) {
		switch e := n.(type) {
		case *rq.BinaryExpr:
			col := key(e.X)
			other := e.Y
			if col == "" {
				col, other = key(e.Y), e.X
			}
			if col == "" {
				return
			}
			switch e.Op {
			case rq.IN, rq.NOTIN:
				if l, ok := other.(*rq.ExprList); ok {
					for _, x := range l.Exprs {
						if v, ok := literalValue(x); ok {
							out[col] = append(out[col], v)
						}
					}
				}
			case rq.LIKE, rq.NOTLIKE, rq.GLOB, rq.NOTGLOB:
				if v, ok := literalValue(other); ok && v.Kind == qeval.KindText {
					out[col] = append(out[col], likeExamples(v.Str)...)
				}
			case rq.BETWEEN, rq.NOTBETWEEN:
				if r, ok := other.(*rq.Range); ok {
					for _, x := range []rq.Expr{r.X, r.Y} {
						if v, ok := literalValue(x); ok {
							out[col] = append(out[col], v)
						}
					}
				}
			default:
				if v, ok := literalValue(other); ok {
					out[col] = append(out[col], v)
				}
			}
		}
	})
}

// visitFunc is a visitor for walkAll that looks and changes nothing.
type visitFunc func(rq.Node)

// walkAll walks n as rq.Walk does and also into subqueries used as expressions (x IN
// (SELECT …), x = (SELECT …)), which rq.Walk does not enter. f returns the node to put
// in place of the one visited and whether to walk into it; walkAll returns the root,
// replaced if f replaced it.
func walkAll(n rq.Node, f func(rq.Node) (rq.Node, bool)) rq.Node {
	out, err := rq.Walk(deep(f), n)
	if err != nil {
		return n
	}
	return out
}

// visit calls f on every node under n, subqueries included.
func visit(n rq.Node, f visitFunc) {
	walkAll(n, func(x rq.Node) (rq.Node, bool) { f(x); return x, true })
}

type deep func(rq.Node) (rq.Node, bool)

func (d deep) Visit(n rq.Node) (rq.Visitor, rq.Node, error) {
	r, descend := d(n)
	if !descend {
		return nil, r, nil
	}
	if se, ok := r.(rq.SelectExpr); ok && se.SelectStatement != nil {
		inner, err := rq.Walk(d, se.SelectStatement)
		if err != nil {
			return nil, r, err
		}
		if sel, ok := inner.(*rq.SelectStatement); ok {
			return nil, rq.SelectExpr{SelectStatement: sel}, nil
		}
		return nil, r, nil
	}
	return d, r, nil
}

func (d deep) VisitEnd(n rq.Node) (rq.Node, error) { return n, nil }

func columnName(e rq.Expr) string {
	switch e := e.(type) {
	case *rq.Ident:
		if !e.Quoted {
			return strings.ToLower(e.Name)
		}
	case *rq.QualifiedRef:
		if e.Column != nil {
			return strings.ToLower(e.Column.Name)
		}
	case *rq.ParenExpr:
		return columnName(e.X)
	}
	return ""
}

// literalValue reads a literal: a number, a string, or a double-quoted identifier (which
// SQLite takes as a string when no column has that name, as Spider's gold often writes).
func literalValue(e rq.Expr) (qeval.Value, bool) {
	switch e := e.(type) {
	case *rq.NumberLit:
		if i, err := strconv.ParseInt(e.Value, 10, 64); err == nil {
			return qeval.Int(i), true
		}
		if f, err := strconv.ParseFloat(e.Value, 64); err == nil {
			return qeval.Float(f), true
		}
	case *rq.StringLit:
		return qeval.Text(e.Value), true
	case *rq.Ident:
		if e.Quoted {
			return qeval.Text(e.Name), true
		}
	case *rq.UnaryExpr:
		if e.Op == rq.MINUS {
			if v, ok := literalValue(e.X); ok {
				switch v.Kind {
				case qeval.KindInt:
					return qeval.Int(-v.Int), true
				case qeval.KindFloat:
					return qeval.Float(-v.Float), true
				}
			}
		}
	case *rq.ParenExpr:
		return literalValue(e.X)
	}
	return qeval.Value{}, false
}

// likeExamples returns strings that a LIKE pattern matches and near misses.
func likeExamples(p string) []qeval.Value {
	core := strings.NewReplacer("%", "", "_", "").Replace(p)
	out := []qeval.Value{qeval.Text(core), qeval.Text("x" + core + "y"), qeval.Text(strings.ToUpper(core))}
	if len(core) > 1 {
		out = append(out, qeval.Text(core[:len(core)-1]))
	}
	return out
}

// neighbours returns v and the values next to it: ±1 for numbers, ±1 day for dates,
// other case and a longer string for text.
func neighbours(v qeval.Value) []qeval.Value {
	out := []qeval.Value{v}
	switch v.Kind {
	case qeval.KindInt:
		out = append(out, qeval.Int(v.Int-1), qeval.Int(v.Int+1))
	case qeval.KindFloat:
		out = append(out, qeval.Float(v.Float-1), qeval.Float(v.Float+1), qeval.Float(math.Round(v.Float*10+1)/10))
	case qeval.KindText:
		s := v.Str
		for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, s); err == nil {
				out = append(out, qeval.Text(t.AddDate(0, 0, -1).Format(layout)), qeval.Text(t.AddDate(0, 0, 1).Format(layout)))
			}
		}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, qeval.Int(i), qeval.Int(i-1), qeval.Int(i+1))
		} else if f, err := strconv.ParseFloat(s, 64); err == nil {
			out = append(out, qeval.Float(f), qeval.Float(f-1), qeval.Float(f+1))
		}
		if up := strings.ToUpper(s); up != s {
			out = append(out, qeval.Text(up))
		} else if low := strings.ToLower(s); low != s {
			out = append(out, qeval.Text(low))
		}
		out = append(out, qeval.Text(s+" x"))
	}
	return out
}

// tableAliases maps the names a statement gives its tables (aliases, and the table
// names themselves) to the lower-case table name; a name given to two tables in
// different parts of the statement maps to none.
func tableAliases(stmt rq.Node) map[string]string {
	out := map[string]string{}
	visit(stmt, func(n rq.Node) {
		t, ok := n.(*rq.QualifiedTableName)
		if !ok || t.Name == nil {
			return
		}
		name := strings.ToLower(t.Name.Name)
		for _, k := range []string{name, sourceName(t)} {
			if old, seen := out[k]; seen && old != name {
				out[k] = ""
			} else {
				out[k] = name
			}
		}
	})
	return out
}

// buildPools gives each column the values generation draws from: the distinct
// original values (a deterministic sample of at most maxOriginal), the gold literals
// compared with a column of that name and their neighbours, and the empty string for
// text. A table without rows gets values made from the declared types.
func buildPools(tables []*table, lits map[string][]qeval.Value) {
	const maxOriginal = 40
	// a literal compared with a foreign-key column matches a row only when the parent
	// key holds it: the referenced column draws it too
	byName := map[string]*table{}
	for _, t := range tables {
		byName[strings.ToLower(t.name)] = t
	}
	inherited := map[*column][]qeval.Value{}
	for _, t := range tables {
		for _, fk := range t.fks {
			p := byName[strings.ToLower(fk.parent)]
			if p == nil || len(fk.cols) != 1 || len(fk.pidx) != 1 {
				continue
			}
			pc := p.cols[fk.pidx[0]]
			child := strings.ToLower(t.cols[fk.cols[0]].name)
			inherited[pc] = append(inherited[pc], lits[child]...)
			inherited[pc] = append(inherited[pc], lits[strings.ToLower(t.name)+"."+child]...)
		}
	}
	for _, t := range tables {
		for ci, c := range t.cols {
			seen := map[qeval.Value]bool{}
			var pool []qeval.Value
			add := func(v qeval.Value) {
				if v.Kind == qeval.KindNull || seen[v] {
					return
				}
				seen[v] = true
				pool = append(pool, v)
			}
			var orig []qeval.Value
			for _, r := range t.rows {
				orig = append(orig, r[ci])
			}
			sort.SliceStable(orig, func(i, j int) bool { return lessValue(orig[i], orig[j]) })
			var distinct []qeval.Value
			for _, v := range orig {
				if v.Kind != qeval.KindNull && (len(distinct) == 0 || distinct[len(distinct)-1] != v) {
					distinct = append(distinct, v)
				}
			}
			if len(distinct) > maxOriginal {
				// keep the extremes and evenly spaced values between them
				step := float64(len(distinct)-1) / float64(maxOriginal-1)
				sample := make([]qeval.Value, 0, maxOriginal)
				for k := 0; k < maxOriginal; k++ {
					sample = append(sample, distinct[int(math.Round(float64(k)*step))])
				}
				distinct = sample
			}
			for _, v := range distinct {
				add(v)
			}
			c.literal = map[qeval.Value]bool{}
			c.exact = nil
			name := strings.ToLower(c.name)
			for _, l := range slices.Concat(lits[name], lits[strings.ToLower(t.name)+"."+name], inherited[c]) {
				if l.Kind != qeval.KindNull && !c.literal[l] {
					c.exact = append(c.exact, l)
				}
				for _, v := range neighbours(l) {
					add(v)
					c.literal[v] = true
				}
			}
			if len(distinct) == 0 {
				for _, v := range synthetic(c.affinity, c.typ) {
					add(v)
				}
			}
			if c.affinity == 't' || c.affinity == 'b' && len(distinct) > 0 && distinct[0].Kind == qeval.KindText {
				add(qeval.Text(""))
			}
			c.pool = pool
		}
	}
}

// synthetic values for a column of an empty table.
func synthetic(aff byte, typ string) []qeval.Value {
	var out []qeval.Value
	up := strings.ToUpper(typ)
	switch {
	case strings.Contains(up, "DATE") || strings.Contains(up, "TIME"):
		for i := 1; i <= 12; i++ {
			out = append(out, qeval.Text(time.Date(2000+i%3, time.Month(i), i*2, 0, 0, 0, 0, time.UTC).Format("2006-01-02")))
		}
	case aff == 'i' || aff == 'n' || aff == 'b':
		for i := 1; i <= 12; i++ {
			out = append(out, qeval.Int(int64(i)))
		}
	case aff == 'r':
		for i := 1; i <= 12; i++ {
			out = append(out, qeval.Float(float64(i)+0.5))
		}
	default:
		for i := 1; i <= 12; i++ {
			out = append(out, qeval.Text("v"+strconv.Itoa(i)))
		}
	}
	return out
}

// lessValue orders values by kind, then by value.
func lessValue(a, b qeval.Value) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	switch a.Kind {
	case qeval.KindInt, qeval.KindBool, qeval.KindTime:
		return a.Int < b.Int
	case qeval.KindFloat:
		return a.Float < b.Float
	}
	return a.Str < b.Str
}
