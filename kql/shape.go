package kql

import (
	"strings"

	"github.com/qeval/qeval"
)

// ParseShape parses src and returns its shape. On a syntax error it returns the shape of
// what could be parsed together with a *qeval.Error (code qeval.CodeQuery) whose Err is
// the ErrorList.
func ParseShape(src string) (*qeval.Shape, error) {
	s, err := Parse(src)
	sh := ShapeOf(s)
	if err != nil {
		return sh, err.(ErrorList).QevalError()
	}
	return sh, nil
}

// ShapeOf extracts what the metrics read from a parsed script:
//
//   - Tables: the first source of every pipeline after let resolution, union members,
//     join and lookup right sides, materialize() arguments, table("T"),
//     database("d").T and cluster("c").database("d").T, search/find in (...); names
//     bound by let, function parameters and as are not tables.
//   - Columns: names used as columns anywhere, qualified with the pipeline's source
//     table while it is the only table in play; names the query itself defines
//     (extend x = ..., summarize n = ...) are left out.
//   - Filters: every comparison of every where/filter, split on and/or, with the
//     column on the left; Value is the canonical text of the constant side (see
//     timespan.go: ago(1h), ago(60m) and ago(2*30m) all read "ago(1h)"; let-bound
//     constants are substituted), "" when the other side is not constant. A predicate
//     written as a call (isnotempty(x)) has Operator = the function name; a bare
//     boolean column has Operator "istrue"; not(...) negates the operator (== → !=,
//     has → !has, isempty → isnotempty, any other f → "not f").
//   - Aggregates: the aggregate calls of summarize, make-series and top-nested, and the
//     count operator (Func "count", Arg "*"); Arg is the canonical argument text, "*"
//     for count().
//   - GroupBy: the by keys of summarize and make-series and the of keys of top-nested.
//   - OrderBy, Limit and Output: from the main pipeline (the last query statement).
//     sort and top default to descending, so Desc is true unless asc is written.
//     Output is followed through project, extend, summarize, project-away/-keep/
//     -rename/-reorder, distinct, count, parse and mv-expand, with Kusto's names for
//     unnamed columns (count_, sum_x, Column1); it is nil after an operator whose
//     columns cannot be told from the text (join, union, evaluate, arg_max(x, *)...).
//   - Operators: every tabular operator in source order, as written ("order" stays
//     "order"), nested ones included; source operators (print, range, union, search,
//     find, evaluate) count, datatable and externaldata do not. This matches the
//     operator lists of Microsoft's parser without its let and set statements.
//
// s may be a partial script from a failed Parse.
func ShapeOf(s *Script) *qeval.Shape {
	x := &shaper{
		sh:     &qeval.Shape{Dialect: "kql", Kind: "query", Source: "parser", Tables: []string{}, Columns: []qeval.ColumnRef{}, Filters: []qeval.Filter{}, Aggregates: []qeval.Aggregate{}},
		tables: map[string]bool{},
		cols:   map[string]bool{},
		scope:  &scope{},
	}
	if s == nil {
		return x.sh
	}
	var main *QueryStmt
	for _, st := range s.Stmts {
		if q, ok := st.(*QueryStmt); ok {
			main = q
		}
	}
	for _, st := range s.Stmts {
		x.stmt(st, st == Stmt(main))
	}
	if len(x.aliases) > 0 {
		x.sh.Aliases = x.aliases
	}
	return x.sh
}

// bindKind says what a name bound by let, a parameter or as stands for.
type bindKind uint8

const (
	bindScalar bindKind = iota + 1
	bindTabular
	bindFunc
	bindEntity // a macro-expand alias: X.Table names a table
)

type binding struct {
	kind    bindKind
	table   string // base table of a tabular binding, when known
	value   string // canonical text of a constant scalar binding, substituted into filter values
	tabular []bool // for a function: which parameters take a table
}

// scope is a chain of name bindings; KQL names are case-sensitive.
type scope struct {
	parent *scope
	names  map[string]binding
}

func (sc *scope) lookup(name string) (binding, bool) {
	for ; sc != nil; sc = sc.parent {
		if b, ok := sc.names[name]; ok {
			return b, true
		}
	}
	return binding{}, false
}

func (sc *scope) bind(name string, b binding) {
	if sc.names == nil {
		sc.names = map[string]binding{}
	}
	sc.names[name] = b
}

type shaper struct {
	sh      *qeval.Shape
	tables  map[string]bool
	cols    map[string]bool
	aliases map[string]string
	scope   *scope
}

// pipeCtx is what the shaper knows inside one pipeline.
type pipeCtx struct {
	table   string          // the only base table in play, or ""
	derived map[string]bool // column names the pipeline defined
	main    bool            // the main pipeline: record order, limit and output
	out     []string        // output columns, when known
	outOK   bool
	autoCol int // next ColumnN for unnamed projections
}

func (c *pipeCtx) derive(name string) {
	if c.derived == nil {
		c.derived = map[string]bool{}
	}
	c.derived[name] = true
}

func (x *shaper) push() { x.scope = &scope{parent: x.scope} }
func (x *shaper) pop()  { x.scope = x.scope.parent }

func (x *shaper) stmt(st Stmt, main bool) {
	switch st := st.(type) {
	case *LetStmt:
		x.let(st)
	case *QueryStmt:
		ctx := &pipeCtx{main: main}
		x.source(st.Query, ctx)
		if main && ctx.outOK {
			x.sh.Output = ctx.out
		}
	case *PatternStmt:
		x.scope.bind(st.Name.Name, binding{kind: bindFunc})
		for _, r := range st.Rules {
			x.block(r.Body, nil)
		}
	case *SetStmt:
		x.scalar(st.Value, &pipeCtx{})
	case *AliasStmt:
		x.scope.bind(st.Name.Name, binding{kind: bindEntity})
	case *RestrictStmt:
		for _, e := range st.Entities {
			x.source(e, &pipeCtx{})
		}
	}
}

func (x *shaper) let(st *LetStmt) {
	name := st.Name.Name
	switch v := st.Value.(type) {
	case *FuncDef:
		b := binding{kind: bindFunc}
		for _, p := range v.Params {
			b.tabular = append(b.tabular, p.Type != nil && p.Type.Tabular)
		}
		x.scope.bind(name, b)
		x.block(v.Body, v.Params)
		return
	case *EntityGroup:
		x.scope.bind(name, binding{kind: bindEntity})
		return
	}
	if x.isTabular(st.Value) {
		table := x.source(st.Value, &pipeCtx{})
		x.scope.bind(name, binding{kind: bindTabular, table: table})
		if table != "" {
			if x.aliases == nil {
				x.aliases = map[string]string{}
			}
			x.aliases[name] = table
		}
		return
	}
	x.scalar(st.Value, &pipeCtx{})
	b := binding{kind: bindScalar}
	if x.isConstant(st.Value) {
		// Format now, with the names bound so far: let n = n + 1 refers to the
		// previous n, and a later lookup must not recurse into itself.
		b.value = x.format(st.Value)
	}
	x.scope.bind(name, b)
}

// block walks a function or pattern body with its parameters in scope.
func (x *shaper) block(b *Block, params []*Param) {
	x.push()
	defer x.pop()
	for _, p := range params {
		if p.Name == nil {
			continue
		}
		k := bindScalar
		if p.Type != nil && p.Type.Tabular {
			k = bindTabular
		}
		x.scope.bind(p.Name.Name, binding{kind: k})
	}
	if b == nil {
		return
	}
	for i, st := range b.Stmts {
		if q, ok := st.(*QueryStmt); ok && i == len(b.Stmts)-1 {
			// A body's result is tabular when it reads like a table.
			if x.isTabular(q.Query) {
				x.source(q.Query, &pipeCtx{})
			} else {
				x.scalar(q.Query, &pipeCtx{})
			}
			continue
		}
		x.stmt(st, false)
	}
}

// isTabular reports whether an expression in let or body position is a table
// (a pipeline, a source operator, a table name...) rather than a scalar.
func (x *shaper) isTabular(e Expr) bool {
	switch e := e.(type) {
	case *PipeExpr, *UnionOp, *PrintOp, *RangeOp, *EvaluateOp, *SearchOp, *FindOp,
		*DatatableExpr, *ExternalDataExpr, *MacroExpandOp:
		return true
	case *Paren:
		return x.isTabular(e.X)
	case *Ident:
		if b, ok := x.scope.lookup(e.Name); ok {
			return b.kind == bindTabular
		}
		return !strings.HasPrefix(e.Name, "$")
	case *Call:
		switch e.Name() {
		case "materialize", "table", "view", "external_table", "materialized_view", "graph":
			return true
		}
	case *Member:
		return x.tableRef(e) != ""
	}
	return false
}

func (x *shaper) addTable(name string) {
	if name == "" {
		return
	}
	k := strings.ToLower(name)
	if !x.tables[k] {
		x.tables[k] = true
		x.sh.Tables = append(x.sh.Tables, name)
	}
}

func (x *shaper) addColumn(table, name string) {
	if name == "" || strings.ContainsRune(name, '*') {
		return
	}
	k := strings.ToLower(table) + "\x00" + strings.ToLower(name)
	if !x.cols[k] {
		x.cols[k] = true
		x.sh.Columns = append(x.sh.Columns, qeval.ColumnRef{Table: table, Name: name})
	}
}

// tableRef returns T for database("d").T, cluster("c").database("d").T and X.T where X
// is a macro-expand alias; "" otherwise.
func (x *shaper) tableRef(m *Member) string {
	switch r := m.X.(type) {
	case *Call:
		switch r.Name() {
		case "database", "cluster":
			return m.Name.Name
		}
	case *Ident:
		if b, ok := x.scope.lookup(r.Name); ok && b.kind == bindEntity {
			return m.Name.Name
		}
	}
	return ""
}
