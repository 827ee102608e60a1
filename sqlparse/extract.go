package sqlparse

import (
	"strings"

	"github.com/qeval/qeval"
)

// extractor turns one statement of the shared tree into a Shape. It resolves names
// through scopes: a scope holds the sources of one SELECT core (by alias or name) and
// the CTEs visible there, and points at the scope it is nested in.
type extractor struct {
	schema  *qeval.Schema
	shape   *qeval.Shape
	tables  map[string]bool
	columns map[string]bool
	aggs    map[string]bool
	funcs   map[string]bool
	st      *Statement
}

type scope struct {
	parent  *scope
	ctes    map[string]*binding // lower-case CTE name → its binding template
	sources []*binding
	aliases map[string]bool // explicit result-column aliases of this core, lower case
	// joined are the columns of USING joins, which name one column though two sources
	// have it; natural says a NATURAL join makes that true of more.
	joined  map[string]bool
	natural bool
}

// binding is one source of a FROM clause as seen from the rest of the query.
type binding struct {
	name  string // alias, else table name (as written)
	table string // the base table; "" for a CTE, subquery or table function
	// cols are the columns it offers; known for derived sources and, with a schema,
	// for base tables. star says a derived source's columns are not all known.
	cols []string
	star bool
}

func extract(dialect string, t *statement, schema *qeval.Schema) *Statement {
	x := &extractor{
		schema:  schema,
		shape:   &qeval.Shape{Dialect: dialect, Kind: t.kind, Source: "parser", Tables: []string{}, Columns: []qeval.ColumnRef{}, Filters: []qeval.Filter{}, Aggregates: []qeval.Aggregate{}},
		tables:  map[string]bool{},
		columns: map[string]bool{},
		aggs:    map[string]bool{},
		funcs:   map[string]bool{},
	}
	x.st = &Statement{Shape: x.shape, Line: t.line, Col: t.col}
	root := &scope{}
	if t.query != nil {
		out := x.query(t.query, root, true)
		if t.kind == "select" || t.kind == "explain" {
			x.shape.Output = out
		}
	}
	if t.target != nil {
		s := &scope{parent: root}
		x.bindSource(t.target, s)
		x.bindSource(t.from, s)
		x.cond(t.where, s, "where")
		for _, e := range t.sets {
			x.walk(e, s, "")
		}
	}
	for _, e := range t.exprs {
		x.walk(e, root, "")
	}
	if len(x.shape.Aliases) == 0 {
		x.shape.Aliases = nil
	}
	return x.st
}

// query walks q and returns the names of its result columns.
func (x *extractor) query(q *query, parent *scope, top bool) []string {
	if q == nil {
		return nil
	}
	s := x.withScope(q, parent)
	var out []string
	var first *scope
	for i, c := range q.cores {
		cs, names := x.core(c, s, top)
		if i == 0 {
			out, first = names, cs
		}
	}
	// ORDER BY of a single SELECT sees its sources; of a compound, only its result
	// columns (by name or position).
	os := first
	if len(q.cores) != 1 || os == nil {
		os = &scope{parent: s, aliases: map[string]bool{}}
		for _, n := range out {
			os.aliases[strings.ToLower(n)] = true
		}
	}
	for _, t := range q.order {
		x.walk(t.e, os, "order")
		if top {
			x.shape.OrderBy = append(x.shape.OrderBy, qeval.OrderTerm{Expr: x.render(t.e, os), Desc: t.desc})
		}
	}
	x.walk(q.limit, s, "")
	x.walk(q.offset, s, "")
	if top && q.limit != nil {
		x.shape.Limit = x.render(q.limit, s)
	}
	return out
}

// withScope is the scope q's cores are read in: parent, or a scope holding q's CTEs.
func (x *extractor) withScope(q *query, parent *scope) *scope {
	if len(q.with) == 0 {
		return parent
	}
	s := &scope{parent: parent, ctes: map[string]*binding{}}
	if q.recursive {
		for _, c := range q.with {
			s.ctes[strings.ToLower(c.name)] = &binding{name: c.name, cols: c.cols, star: len(c.cols) == 0}
		}
	}
	for _, c := range q.with {
		out := x.query(c.q, s, false)
		b := &binding{name: c.name, cols: c.cols}
		if len(b.cols) == 0 {
			b.cols, b.star = derivedCols(out)
		}
		s.ctes[strings.ToLower(c.name)] = b
	}
	return s
}

// derivedCols turns result-column names into the columns a derived source offers.
func derivedCols(out []string) ([]string, bool) {
	var cols []string
	star := false
	for _, n := range out {
		if n == "*" || strings.HasSuffix(n, ".*") {
			star = true
			continue
		}
		cols = append(cols, n)
	}
	return cols, star
}

func (x *extractor) core(c *core, parent *scope, top bool) (*scope, []string) {
	s := &scope{parent: parent, aliases: map[string]bool{}}
	x.bindSource(c.from, s)
	for _, col := range c.cols {
		if col.alias != "" {
			s.aliases[strings.ToLower(col.alias)] = true
		}
	}
	var out []string
	for _, col := range c.cols {
		switch {
		case col.star:
			out = append(out, x.starCols(s, "")...)
		case col.tableStar != "":
			out = append(out, x.starCols(s, col.tableStar)...)
		default:
			x.walk(col.e, s, "select")
			switch {
			case col.alias != "":
				out = append(out, col.alias)
			case col.e != nil && col.e.kind == exprColumn:
				out = append(out, col.e.name)
			default:
				out = append(out, x.render(col.e, s))
			}
		}
	}
	for _, row := range c.values {
		for _, e := range row {
			x.walk(e, s, "")
		}
		if out == nil {
			for i := range row {
				out = append(out, "column"+itoa(i+1))
			}
		}
	}
	x.cond(c.where, s, "where")
	for _, g := range c.group {
		x.walk(g, s, "group")
		if top {
			x.shape.GroupBy = append(x.shape.GroupBy, x.render(g, s))
		}
	}
	x.cond(c.having, s, "having")
	return s, out
}

// starCols expands * (or t.*) to the columns the sources offer, when they are known,
// else returns "*".
func (x *extractor) starCols(s *scope, qual string) []string {
	var out []string
	for _, b := range s.sources {
		if qual != "" && !strings.EqualFold(b.name, qual) {
			continue
		}
		if b.star || (b.table != "" && b.cols == nil) {
			return []string{"*"}
		}
		out = append(out, b.cols...)
	}
	if len(out) == 0 {
		return []string{"*"}
	}
	return out
}

// bindSource walks a FROM clause, records its tables and adds its sources to s.
func (x *extractor) bindSource(src *source, s *scope) {
	if src == nil {
		return
	}
	switch src.kind {
	case srcJoin:
		x.bindSource(src.left, s)
		x.bindSource(src.right, s)
		x.cond(src.on, s, "join")
		s.natural = s.natural || src.natural
		for _, u := range src.using {
			if s.joined == nil {
				s.joined = map[string]bool{}
			}
			s.joined[lower(u)] = true
			for _, side := range []*source{src.left, src.right} {
				if side != nil && side.kind == srcTable {
					if b := x.lookupBinding(s, nameOf(side)); b != nil && b.table != "" {
						x.addColumn(b.table, u)
					}
				}
			}
		}
	case srcQuery:
		out := x.query(src.q, s.parent, false)
		b := &binding{name: src.alias}
		b.cols, b.star = derivedCols(out)
		s.sources = append(s.sources, b)
	case srcFunc:
		x.addFunc(src.name)
		for _, a := range src.args {
			x.walk(a, s, "")
		}
		s.sources = append(s.sources, &binding{name: firstNonEmpty(src.alias, src.name), star: true})
	case srcTable:
		if src.schema == "" {
			if c := findCTE(s, src.name); c != nil {
				b := *c
				b.name = firstNonEmpty(src.alias, src.name)
				s.sources = append(s.sources, &b)
				return
			}
		}
		table := x.tableName(src)
		b := &binding{name: firstNonEmpty(src.alias, src.name), table: table}
		if x.schema != nil {
			if ts := x.schemaTable(src); ts != nil {
				for _, c := range ts.Columns {
					b.cols = append(b.cols, c.Name)
				}
			} else {
				x.st.Unresolved = append(x.st.Unresolved, Unresolved{Table: table, Line: src.line, Col: src.col})
				b.star = true
			}
		}
		if src.alias != "" {
			if x.shape.Aliases == nil {
				x.shape.Aliases = map[string]string{}
			}
			x.shape.Aliases[src.alias] = table
		}
		x.addTable(table)
		s.sources = append(s.sources, b)
	}
}

func nameOf(src *source) string { return firstNonEmpty(src.alias, src.name) }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// tableName is the name a table is listed under: schema.table, without the schema
// every connection starts in (main for SQLite, public for PostgreSQL).
func (x *extractor) tableName(src *source) string {
	switch strings.ToLower(src.schema) {
	case "", "main", "public":
		return src.name
	}
	return src.schema + "." + src.name
}

func (x *extractor) schemaTable(src *source) *qeval.TableSchema {
	if t := x.schema.Table(x.tableName(src)); t != nil {
		return t
	}
	return x.schema.Table(src.name)
}

func findCTE(s *scope, name string) *binding {
	for ; s != nil; s = s.parent {
		if c, ok := s.ctes[strings.ToLower(name)]; ok {
			return c
		}
	}
	return nil
}

func (x *extractor) lookupBinding(s *scope, name string) *binding {
	for ; s != nil; s = s.parent {
		for i := len(s.sources) - 1; i >= 0; i-- {
			if strings.EqualFold(s.sources[i].name, name) {
				return s.sources[i]
			}
		}
	}
	return nil
}

func (x *extractor) addTable(name string) {
	k := strings.ToLower(name)
	if !x.tables[k] {
		x.tables[k] = true
		x.shape.Tables = append(x.shape.Tables, name)
	}
}

func (x *extractor) addColumn(table, name string) {
	k := strings.ToLower(table) + "." + strings.ToLower(name)
	if !x.columns[k] {
		x.columns[k] = true
		x.shape.Columns = append(x.shape.Columns, qeval.ColumnRef{Table: table, Name: name})
	}
}

func (x *extractor) addFunc(name string) {
	name = strings.ToLower(name)
	if name != "" && !x.funcs[name] {
		x.funcs[name] = true
		x.st.Funcs = append(x.st.Funcs, name)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
