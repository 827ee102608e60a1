package sqlparse

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
)

// Outline is a query clause by clause, each part rendered as text with columns named
// by their base table (so T1.name and singer.name read the same): what package
// errclass compares to say how a generated query differs from its gold. A compound
// query (UNION, INTERSECT, EXCEPT) is its first SELECT with SetOps and Others; its
// ORDER BY and LIMIT are the first's.
type Outline struct {
	Kind     string // the statement kind, as Shape.Kind
	Distinct bool
	Select   []Term
	// From are the sources of FROM in order, joins flattened.
	From []Source
	// Where are the conditions of WHERE split on AND and OR; WhereOps the connectives
	// between them, in order (len(Where)-1 entries).
	Where     []Condition
	WhereOps  []string
	GroupBy   []string
	Having    []Condition
	HavingOps []string
	OrderBy   []Order
	Limit     string
	Offset    string
	// SetOps are the set operations ("union", "union all", "intersect", "except")
	// joining this SELECT to Others.
	SetOps []string
	Others []*Outline
}

// Term is one result column.
type Term struct {
	Text string
	// Aggs are the aggregate functions the term calls (lower case), AggArgs their
	// arguments; Funcs the other functions it calls.
	Aggs    []string
	AggArgs []string
	Funcs   []string
}

// Order is one ORDER BY term.
type Order struct {
	Term
	Desc bool
}

// Source is one source of a FROM clause.
type Source struct {
	// Table is the base table (or CTE) read; "(SELECT ...)" for a subquery, name(...)
	// for a table function.
	Table string
	// Join is how it is joined to the sources before it: "" for the first, "join",
	// "left join", "right join", "full join", "natural join"; On its condition (ON
	// rendered, or USING (a, b)).
	Join string
	On   string
	// OnConds are the conditions of ON split on AND and OR.
	OnConds []Condition
	Sub     *Outline
}

// Condition is one comparison of WHERE, HAVING or ON.
type Condition struct {
	Text string
	// Left is the column or expression compared, Op the comparison in lower case
	// ("=", "!=", "<", "like", "in", "not in", "between", "is null", "exists"...),
	// Right the other side; Literal says Right is made of constants only.
	Left, Op, Right string
	Literal         bool
	// LeftAggs are the aggregate functions Left calls (a HAVING condition).
	LeftAggs []string
	// Sub is the subquery of IN (SELECT ...), EXISTS (...) or = (SELECT ...).
	Sub *Outline
}

// ParseOutline reads one SQL statement into its Outline. With a schema, unqualified
// columns are named by the table in scope that has them. Errors are as for Parse.
func ParseOutline(dialect, sql string, schema *qeval.Schema) (*Outline, error) {
	d, err := normDialect(dialect)
	if err != nil {
		return nil, err
	}
	if err := (Limits{}).Check(sql); err != nil {
		return nil, err
	}
	tree, err := parseTree(d, sql)
	if err != nil {
		return nil, err
	}
	switch len(tree) {
	case 0:
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "no statement in the text"}
	case 1:
	default:
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: fmt.Sprintf("expected one statement, found %d", len(tree))}
	}
	t := tree[0]
	// extract first: it settles which double-quoted names are strings, in the tree
	st := extract(d, t, schema)
	x := &extractor{schema: schema, shape: &qeval.Shape{}, tables: map[string]bool{}, columns: map[string]bool{}, aggs: map[string]bool{}, funcs: map[string]bool{}, st: &Statement{}}
	o := &Outline{}
	if t.query != nil {
		o = x.outlineQuery(t.query, &scope{})
	}
	o.Kind = st.Shape.Kind
	return o, nil
}

func (x *extractor) outlineQuery(q *query, parent *scope) *Outline {
	s := x.withScope(q, parent)
	var first *Outline
	var firstScope *scope
	for i, c := range q.cores {
		o, cs := x.outlineCore(c, s)
		if i == 0 {
			first, firstScope = o, cs
		} else {
			first.Others = append(first.Others, o)
		}
	}
	if first == nil {
		first = &Outline{}
	}
	first.SetOps = q.ops
	os := firstScope
	if len(q.cores) != 1 || os == nil {
		os = &scope{parent: s}
	}
	for _, t := range q.order {
		first.OrderBy = append(first.OrderBy, Order{Term: x.term(t.e, os), Desc: t.desc})
	}
	if q.limit != nil {
		first.Limit = x.render(q.limit, s)
	}
	if q.offset != nil {
		first.Offset = x.render(q.offset, s)
	}
	return first
}

func (x *extractor) outlineCore(c *core, parent *scope) (*Outline, *scope) {
	s := &scope{parent: parent, aliases: map[string]bool{}}
	x.bindSource(c.from, s)
	for _, col := range c.cols {
		if col.alias != "" {
			s.aliases[strings.ToLower(col.alias)] = true
		}
	}
	o := &Outline{Distinct: c.distinct}
	x.outlineSources(c.from, s, "", &o.From)
	for _, col := range c.cols {
		switch {
		case col.star:
			o.Select = append(o.Select, Term{Text: "*"})
		case col.tableStar != "":
			t := col.tableStar
			if b := x.lookupBinding(s, t); b != nil && b.table != "" {
				t = b.table
			}
			o.Select = append(o.Select, Term{Text: t + ".*"})
		default:
			o.Select = append(o.Select, x.term(col.e, s))
		}
	}
	o.Where, o.WhereOps = x.outlineConds(c.where, s)
	for _, g := range c.group {
		o.GroupBy = append(o.GroupBy, x.render(g, s))
	}
	o.Having, o.HavingOps = x.outlineConds(c.having, s)
	return o, s
}

func (x *extractor) term(e *expr, s *scope) Term {
	t := Term{Text: x.render(e, s)}
	var visit func(e *expr)
	visit = func(e *expr) {
		if e == nil {
			return
		}
		if e.kind == exprCall {
			if e.isAggregate() {
				t.Aggs = append(t.Aggs, e.fn)
				t.AggArgs = append(t.AggArgs, x.aggArg(e, s))
			} else {
				t.Funcs = append(t.Funcs, e.fn)
			}
		}
		e.children(visit)
	}
	visit(e)
	return t
}

// outlineSources flattens a FROM tree into out, each source with how it is joined.
func (x *extractor) outlineSources(src *source, s *scope, join string, out *[]Source) {
	if src == nil {
		return
	}
	switch src.kind {
	case srcJoin:
		x.outlineSources(src.left, s, join, out)
		n := len(*out)
		x.outlineSources(src.right, s, joinWord(src), out)
		if len(*out) > n {
			r := &(*out)[n]
			switch {
			case src.on != nil:
				r.On = x.render(src.on, s)
				r.OnConds, _ = x.outlineConds(src.on, s)
			case len(src.using) > 0:
				r.On = "USING (" + strings.Join(src.using, ", ") + ")"
			}
		}
	case srcTable:
		*out = append(*out, Source{Table: x.tableName(src), Join: join})
	case srcQuery:
		*out = append(*out, Source{Table: "(SELECT ...)", Join: join, Sub: x.outlineQuery(src.q, s.parent)})
	case srcFunc:
		*out = append(*out, Source{Table: src.name + "(...)", Join: join})
	}
}

func joinWord(src *source) string {
	switch {
	case src.natural:
		return "natural join"
	case src.outer != "":
		return src.outer + " join"
	}
	return "join"
}

// outlineConds splits a condition on AND and OR, left to right, with a stack of its
// own (a generated OR chain may be very long).
func (x *extractor) outlineConds(e *expr, s *scope) ([]Condition, []string) {
	if e == nil {
		return nil, nil
	}
	type item struct {
		e  *expr
		op string // a connective to record, when e is nil
	}
	var conds []Condition
	var ops []string
	stack := []item{{e: e}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case it.e == nil:
			ops = append(ops, it.op)
		case it.e.kind == exprBinary && (it.e.op == "and" || it.e.op == "or"):
			stack = append(stack, item{e: it.e.y}, item{op: it.e.op}, item{e: it.e.x})
		default:
			conds = append(conds, x.condition(it.e, s))
		}
	}
	return conds, ops
}

var comparisons = map[string]bool{"=": true, "==": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"like": true, "glob": true, "regexp": true, "match": true, "is": true, "ilike": true, "~": true, "~*": true, "similar": true}

func (x *extractor) condition(e *expr, s *scope) Condition {
	c := Condition{Text: x.render(e, s)}
	switch e.kind {
	case exprBinary:
		if !comparisons[e.op] {
			c.Left = c.Text
			return c
		}
		l, r, op := e.x, e.y, normOp(e.op)
		if isValue(l) && !isValue(r) {
			l, r, op = r, l, flipOp(op)
		}
		if e.not {
			op = "not " + op
		}
		c.Left, c.Op, c.Right, c.Literal = x.render(l, s), op, x.render(r, s), isValue(r)
		c.LeftAggs = x.term(l, s).Aggs
		if r != nil && r.kind == exprSubquery {
			c.Sub = x.outlineQuery(r.q, s)
		}
	case exprBetween:
		c.Left, c.Op, c.LeftAggs = x.render(e.x, s), "between", x.term(e.x, s).Aggs
		if e.not {
			c.Op = "not between"
		}
		if len(e.args) == 2 {
			c.Right = x.render(e.args[0], s) + " AND " + x.render(e.args[1], s)
			c.Literal = isValue(e.args[0]) && isValue(e.args[1])
		}
	case exprIn:
		c.Left, c.Op, c.LeftAggs = x.render(e.x, s), "in", x.term(e.x, s).Aggs
		if e.not {
			c.Op = "not in"
		}
		c.Right = strings.TrimPrefix(x.render(e, s), x.render(e.x, s)+notWord(e.not)+" IN ")
		if e.q != nil {
			c.Sub = x.outlineQuery(e.q, s)
		} else {
			c.Literal = true
			for _, a := range e.args {
				c.Literal = c.Literal && isValue(a)
			}
		}
	case exprIsNull:
		c.Left, c.Op = x.render(e.x, s), "is"+notWord(e.not)+" null"
	case exprExists:
		c.Op = "exists"
		if e.not {
			c.Op = "not exists"
		}
		if e.q != nil {
			c.Sub = x.outlineQuery(e.q, s)
		}
	case exprUnary:
		if e.op == "not" && e.x != nil {
			inner := x.condition(e.x, s)
			inner.Text, inner.Op = c.Text, "not "+inner.Op
			return inner
		}
		c.Left = c.Text
	default:
		c.Left = c.Text
	}
	return c
}
