package kqlexec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
)

// The translator turns a parsed script into one SQLite statement:
//
//	WITH RECURSIVE s1(c0, c1, _o) AS (...), s2(...) AS (...) SELECT c0, c1 FROM s2 ORDER BY _o
//
// Every pipe stage is one CTE. In SQL a relation's columns are c0..cN-1 plus _o, the
// row order; the KQL names and types of the columns live in the translator (rel.cols),
// so names that SQL would find ambiguous (Kusto names are case-sensitive) never reach
// SQL, and every stage knows the schema it produces.

// column is one column of a relation: its KQL name and type.
type column struct {
	Name string
	Type Type
}

// rel is a relation: the SQL name to select from and its columns.
type rel struct {
	from string
	cols []column
	// graph is set on what make-graph returns: not a table, only graph operators
	// read it
	graph *graph
	// name is the table's name as union withsource= reports it: a table's or view's
	// name, or the name given by the as operator ("" for other expressions)
	name string
}

// named returns r under a name.
func (r *rel) named(name string) *rel {
	c := *r
	c.name = name
	return &c
}

func (r *rel) index(name string) int {
	for i, c := range r.cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// translator holds the state of one translation.
type translator struct {
	script *kql.Script
	ctes   []string
	n      int
	now    Datetime
	tables func(name string) (*rel, bool)
	// tableNames lists the database's tables (union T*); nil when there are none.
	tableNames func() []string
	// probe runs a SQL query during translation (for operators whose output columns
	// depend on the data, such as bag_unpack); nil when there is no engine.
	probe func(sql string) ([][]any, error)
	depth int
	// tabDepth counts the tabular expressions being translated, one inside the other:
	// a subquery cannot read the row of the expression around it.
	tabDepth int
	// sorted is set when the last operator of the query sorted its rows.
	sorted bool
	// props are the query's set statements (set query_bin_auto_size=1h), by name.
	props map[string]kql.Expr
	// part names the hidden column that groups the rows of an mv-apply subquery:
	// aggregation, sorting and limits then work per group ("" outside mv-apply).
	part string
	// once holds the value of each scalar toscalar() computed, by its call and its
	// translation: a function whose body is toscalar(rand()) gives one value however
	// often it is called (named-expressions.md)
	once map[onceKey]expr
}

// onceKey names a toscalar() of a scalar: the call in the script and its SQL.
type onceKey struct {
	call *kql.Call
	sql  string
}

// env is a lexical scope of let bindings.
type env struct {
	parent *env
	binds  map[string]*binding
}

type binding struct {
	scalar *expr
	tab    kql.Expr
	tabEnv *env
	rel    *rel
	fn     *kql.FuncDef
	fnEnv  *env
	// pattern is a declared pattern (declare pattern), its rules read in patEnv
	pattern *kql.PatternStmt
	patEnv  *env
	// rowDepth is set on a function's parameter bound to a value of the caller's row:
	// tabDepth+1 where it was bound; a subquery deeper than that cannot read it.
	rowDepth int
}

func (e *env) lookup(name string) *binding {
	for s := e; s != nil; s = s.parent {
		if b, ok := s.binds[name]; ok {
			return b
		}
	}
	return nil
}

func (e *env) child() *env { return &env{parent: e, binds: map[string]*binding{}} }

// translation is a translated query: the SQL and the result columns.
type translation struct {
	SQL     string
	Columns []column
}

// translate turns a KQL script into SQL.
func translate(src string, now Datetime, tables func(string) (*rel, bool), tableNames func() []string, probe func(string) ([][]any, error)) (*translation, error) {
	script, err := kql.Parse(src)
	if err != nil {
		if l, ok := err.(kql.ErrorList); ok {
			return nil, l.QevalError()
		}
		return nil, &qeval.Error{Code: qeval.CodeQuery, Op: "parse kql", Message: err.Error(), Err: err}
	}
	t := &translator{script: script, now: now, tables: tables, tableNames: tableNames, probe: probe}
	res, err := t.script1(script.Stmts)
	if err == nil && res.graph != nil {
		err = &qeval.Error{Code: qeval.CodeQuery, Message: "the query ends with a graph: a graph operator (graph-to-table, graph-match) turns it into a table"}
	}
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if len(t.ctes) > 0 {
		b.WriteString("WITH RECURSIVE ")
		b.WriteString(strings.Join(t.ctes, ",\n"))
		b.WriteByte('\n')
	}
	b.WriteString("SELECT ")
	for i := range res.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(colName(i))
	}
	if len(res.cols) == 0 {
		b.WriteString("NULL")
	}
	b.WriteString(" FROM ")
	b.WriteString(res.from)
	b.WriteString(" ORDER BY _o")
	return &translation{SQL: b.String(), Columns: res.cols}, nil
}

func (t *translator) script1(stmts []kql.Stmt) (*rel, error) {
	e := (&env{}).child()
	var last *rel
	for _, s := range stmts {
		switch s := s.(type) {
		case *kql.LetStmt:
			if err := t.let(s, e); err != nil {
				return nil, err
			}
		case *kql.QueryStmt:
			if last != nil {
				// Kusto returns one table per statement; the first is the primary result
				continue
			}
			r, err := t.tabularOrScalar(s.Query, e)
			if err != nil {
				return nil, err
			}
			last = r
		case *kql.SetStmt:
			// request properties do not change the result, but bin_auto reads two
			if t.props == nil {
				t.props = map[string]kql.Expr{}
			}
			t.props[strings.ToLower(s.Name)] = s.Value
		case *kql.DirectiveStmt:
			// client directives do not change the result
		case *kql.DeclareStmt:
			if err := t.declare(s, e); err != nil {
				return nil, err
			}
		case *kql.PatternStmt:
			e.binds[s.Name.Name] = &binding{pattern: s, patEnv: e}
		default:
			return nil, t.unsupported(s, "statement "+strings.TrimSpace(strings.SplitN(kql.Format(s), " ", 2)[0]))
		}
	}
	if last == nil {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "the query has no tabular expression statement"}
	}
	return last, nil
}

// declare binds query parameters that have defaults.
func (t *translator) declare(s *kql.DeclareStmt, e *env) error {
	for _, p := range s.Params {
		if p.Default == nil {
			return t.errAt(p, "query parameter %s has no value", p.Name.Name)
		}
		x, err := t.expr(p.Default, &scope{env: e})
		if err != nil {
			return err
		}
		if p.Type != nil {
			if ty, ok := ParseType(p.Type.Name); ok {
				x = coerce(x, ty)
			}
		}
		e.binds[p.Name.Name] = &binding{scalar: &x}
	}
	return nil
}

func (t *translator) let(s *kql.LetStmt, e *env) error {
	name := s.Name.Name
	switch v := s.Value.(type) {
	case *kql.FuncDef:
		e.binds[name] = &binding{fn: v, fnEnv: e}
		return nil
	}
	if isTabular(s.Value, e, t) {
		e.binds[name] = &binding{tab: s.Value, tabEnv: e}
		return nil
	}
	x, err := t.expr(s.Value, &scope{env: e})
	if err != nil {
		return err
	}
	e.binds[name] = &binding{scalar: &x}
	return nil
}

// tabularOrScalar translates the query statement; a scalar expression is returned as
// a one-row table with a print_0 column, as Kusto does.
func (t *translator) tabularOrScalar(q kql.Expr, e *env) (*rel, error) {
	if isTabular(q, e, t) {
		return t.tabular(q, e)
	}
	x, err := t.expr(q, &scope{env: e})
	if err != nil {
		return nil, err
	}
	return t.stage([]column{{"print_0", x.t}}, "SELECT "+x.sql+", 0"), nil
}

// stage appends a CTE with the given columns and SELECT, and returns it. The SELECT
// must produce the columns in order, then _o.
func (t *translator) stage(cols []column, sel string) *rel {
	t.n++
	name := "s" + strconv.Itoa(t.n)
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i := range cols {
		b.WriteString(colName(i))
		b.WriteByte(',')
	}
	// a stage that draws random values is computed once: SQLite would otherwise
	// inline it and draw again at each reference (r = rand() read twice, two values)
	if strings.Contains(sel, "kfv(") || strings.Contains(sel, "random()") {
		b.WriteString("_o) AS MATERIALIZED (")
	} else {
		b.WriteString("_o) AS (")
	}
	b.WriteString(sel)
	b.WriteByte(')')
	t.ctes = append(t.ctes, b.String())
	return &rel{from: name, cols: cols}
}

// materialize makes the stage r reads computed once, before the stages that read it:
// an operator that fans rows out (mv-expand) would otherwise recompute r's columns
// for every row it makes. A relation that is not a stage is left as it is.
func (t *translator) materialize(r *rel) {
	prefix := r.from + "("
	for i, c := range t.ctes {
		if strings.HasPrefix(c, prefix) {
			t.ctes[i] = strings.Replace(c, "_o) AS (", "_o) AS MATERIALIZED (", 1)
			return
		}
	}
}

func colName(i int) string { return "c" + strconv.Itoa(i) }

// declType reads a declared type (Name: type in datatable, parse, parse-kv, scan's
// declare); an absent type is def, an unknown one an error at the declaration.
func (t *translator) declType(at kql.Node, tr *kql.TypeRef, def Type) (Type, error) {
	if tr == nil {
		return def, nil
	}
	ty, ok := ParseType(tr.Name)
	if !ok {
		return "", t.errAt(at, "unknown type %q", tr.Name)
	}
	return ty, nil
}

// unsupported is the typed error for what the translator does not handle.
func (t *translator) unsupported(n kql.Node, what string) error {
	line, col := 0, 0
	if n != nil && t.script != nil {
		line, col = t.script.Position(n.Pos())
	}
	return &qeval.Error{Code: qeval.CodeUnsupported, Message: "unsupported: " + what, Line: line, Col: col,
		Hint: "the local KQL engine does not translate this; run the query on Azure Data Explorer"}
}

// errAt is a semantic error at a node.
func (t *translator) errAt(n kql.Node, format string, args ...any) error {
	line, col := 0, 0
	if n != nil && t.script != nil {
		line, col = t.script.Position(n.Pos())
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: fmt.Sprintf(format, args...), Line: line, Col: col}
}

// isTabular reports whether an expression denotes a table.
func isTabular(x kql.Expr, e *env, t *translator) bool {
	switch v := x.(type) {
	case *kql.PipeExpr, *kql.DatatableExpr, *kql.PrintOp, *kql.RangeOp, *kql.UnionOp,
		*kql.EvaluateOp, *kql.SearchOp, *kql.FindOp, *kql.ExternalDataExpr:
		return true
	case *kql.Paren:
		return isTabular(v.X, e, t)
	case *kql.Ident:
		if b := e.lookup(v.Name); b != nil {
			return b.tab != nil || b.rel != nil
		}
		if t.tables != nil {
			_, ok := t.tables(v.Name)
			return ok
		}
	case *kql.Member:
		if b, _, _ := patternCall(v, e); b != nil {
			return true
		}
	case *kql.Call:
		if b, _, _ := patternCall(v, e); b != nil {
			return true
		}
		switch v.Name() {
		case "materialize", "table", "view":
			return true
		}
		if id, ok := v.Func.(*kql.Ident); ok {
			if b := e.lookup(id.Name); b != nil && b.fn != nil {
				return funcIsTabular(b.fn, b.fnEnv, t)
			}
		}
	}
	return false
}

func funcIsTabular(f *kql.FuncDef, e *env, t *translator) bool {
	if f.Body == nil || len(f.Body.Stmts) == 0 {
		return false
	}
	inner := e.child()
	for _, p := range f.Params {
		if p.Type != nil && p.Type.Tabular {
			inner.binds[p.Name.Name] = &binding{rel: &rel{}}
		} else {
			inner.binds[p.Name.Name] = &binding{scalar: &expr{sql: "NULL", t: TDynamic}}
		}
	}
	for _, s := range f.Body.Stmts {
		switch s := s.(type) {
		case *kql.LetStmt:
			if fd, ok := s.Value.(*kql.FuncDef); ok {
				inner.binds[s.Name.Name] = &binding{fn: fd, fnEnv: inner}
			} else if isTabular(s.Value, inner, t) {
				inner.binds[s.Name.Name] = &binding{tab: s.Value, tabEnv: inner}
			} else {
				inner.binds[s.Name.Name] = &binding{scalar: &expr{sql: "NULL", t: TDynamic}}
			}
		case *kql.QueryStmt:
			return isTabular(s.Query, inner, t)
		}
	}
	return false
}
