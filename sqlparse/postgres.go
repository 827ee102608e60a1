package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// parsePostgres parses text with the PostgreSQL server's own parser (libpg_query
// through github.com/pganalyze/pg_query_go) and converts each statement.
func parsePostgres(text string) ([]*statement, error) {
	res, err := pg.Parse(text)
	if err != nil {
		if e, ok := err.(*pgparser.Error); ok {
			line, col := runePos(text, e.Cursorpos)
			return nil, syntaxError(e.Message, line, col)
		}
		return nil, syntaxError(err.Error(), 0, 0)
	}
	c := &pgConv{lines: newLineIndex(text)}
	out := make([]*statement, 0, len(res.Stmts))
	for _, raw := range res.Stmts {
		st := c.statement(raw.Stmt)
		st.line, st.col = c.lines.pos(int(raw.StmtLocation))
		out = append(out, st)
	}
	return out, nil
}

type pgConv struct{ lines lineIndex }

func (c *pgConv) statement(n *pg.Node) *statement {
	st := &statement{}
	switch {
	case n.GetSelectStmt() != nil:
		s := n.GetSelectStmt()
		st.kind = "select"
		if s.IntoClause != nil {
			st.kind = "create" // SELECT ... INTO creates a table
		}
		st.query = c.query(s)
	case n.GetInsertStmt() != nil:
		s := n.GetInsertStmt()
		st.kind = "insert"
		st.target = c.rangeVar(s.Relation)
		if sel := s.SelectStmt.GetSelectStmt(); sel != nil {
			st.query = c.query(sel)
		}
	case n.GetUpdateStmt() != nil:
		s := n.GetUpdateStmt()
		st.kind = "update"
		st.target = c.rangeVar(s.Relation)
		st.from = c.fromList(s.FromClause)
		st.where = c.expr(s.WhereClause)
		for _, t := range s.TargetList {
			if rt := t.GetResTarget(); rt != nil {
				st.sets = append(st.sets, c.expr(rt.Val))
			}
		}
	case n.GetDeleteStmt() != nil:
		s := n.GetDeleteStmt()
		st.kind = "delete"
		st.target = c.rangeVar(s.Relation)
		st.from = c.fromList(s.UsingClause)
		st.where = c.expr(s.WhereClause)
	case n.GetExplainStmt() != nil:
		inner := c.statement(n.GetExplainStmt().Query)
		st.kind = "explain"
		st.query, st.target, st.from, st.where = inner.query, inner.target, inner.from, inner.where
	case n.GetCreateTableAsStmt() != nil:
		st.kind = "create"
		if sel := n.GetCreateTableAsStmt().Query.GetSelectStmt(); sel != nil {
			st.query = c.query(sel)
		}
	case n.GetViewStmt() != nil:
		st.kind = "create"
		if sel := n.GetViewStmt().Query.GetSelectStmt(); sel != nil {
			st.query = c.query(sel)
		}
	default:
		st.kind = pgKind(n)
	}
	return st
}

// pgKind names the other statements after their node type: CreateStmt → "create",
// DropStmt → "drop", VariableSetStmt → "set", CopyStmt → "copy", and so on.
func pgKind(n *pg.Node) string {
	m := pgInner(n)
	if m == nil {
		return "other"
	}
	name := string(m.Descriptor().Name())
	name = strings.TrimSuffix(name, "Stmt")
	for _, k := range []string{"Create", "Drop", "Alter", "Grant", "Revoke", "Truncate", "Copy", "Vacuum",
		"Transaction", "Variable", "Do", "Call", "Lock", "Listen", "Notify", "Load", "Cluster", "Reindex",
		"Comment", "Rename", "Discard", "Prepare", "Execute", "Deallocate", "Declare", "Fetch", "Checkpoint"} {
		if strings.HasPrefix(name, k) {
			switch k {
			case "Variable":
				if strings.HasPrefix(name, "VariableShow") {
					return "show"
				}
				return "set"
			case "Transaction":
				return "transaction"
			case "Rename":
				return "alter"
			}
			return strings.ToLower(k)
		}
	}
	return strings.ToLower(name)
}

func pgInner(n *pg.Node) protoreflect.Message {
	if n == nil {
		return nil
	}
	m := n.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("node")
	if od == nil {
		return nil
	}
	f := m.WhichOneof(od)
	if f == nil || f.Kind() != protoreflect.MessageKind {
		return nil
	}
	return m.Get(f).Message()
}

func (c *pgConv) query(s *pg.SelectStmt) *query {
	if s == nil {
		return nil
	}
	q := &query{}
	if w := s.WithClause; w != nil {
		q.recursive = w.Recursive
		for _, n := range w.Ctes {
			if ct := n.GetCommonTableExpr(); ct != nil {
				x := &cte{name: ct.Ctename}
				for _, col := range ct.Aliascolnames {
					x.cols = append(x.cols, col.GetString_().GetSval())
				}
				x.q = c.query(ct.Ctequery.GetSelectStmt())
				q.with = append(q.with, x)
			}
		}
	}
	c.flatten(s, q, false)
	for _, n := range s.SortClause {
		if sb := n.GetSortBy(); sb != nil {
			q.order = append(q.order, &orderTerm{e: c.expr(sb.Node), desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC})
		}
	}
	q.limit = c.expr(s.LimitCount)
	q.offset = c.expr(s.LimitOffset)
	return q
}

// flatten appends the cores of a (possibly compound) SELECT left to right.
func (c *pgConv) flatten(s *pg.SelectStmt, q *query, part bool) {
	if s.Op > pg.SetOperation_SETOP_NONE && s.Larg != nil && s.Rarg != nil {
		c.flatten(s.Larg, q, true)
		op := map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "union", pg.SetOperation_SETOP_INTERSECT: "intersect", pg.SetOperation_SETOP_EXCEPT: "except"}[s.Op]
		if s.All {
			op += " all"
		}
		q.ops = append(q.ops, op)
		c.flatten(s.Rarg, q, true)
		return
	}
	if part && (s.WithClause != nil || len(s.SortClause) > 0 || s.LimitCount != nil) {
		// A parenthesized part with its own WITH, ORDER BY or LIMIT: keep it whole.
		sub := c.query(s)
		q.cores = append(q.cores, &core{cols: []*resultCol{{star: true}}, from: &source{kind: srcQuery, q: sub}})
		return
	}
	k := &core{distinct: len(s.DistinctClause) > 0}
	for _, row := range s.ValuesLists {
		k.values = append(k.values, c.exprs(row.GetList().GetItems()))
	}
	for _, n := range s.TargetList {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		col := &resultCol{alias: rt.Name}
		if cr := rt.Val.GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if len(cr.Fields) == 1 {
				col.star = true
			} else {
				col.tableStar = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
			}
		} else {
			col.e = c.expr(rt.Val)
		}
		k.cols = append(k.cols, col)
	}
	k.from = c.fromList(s.FromClause)
	k.where = c.expr(s.WhereClause)
	k.group = c.exprs(s.GroupClause)
	k.having = c.expr(s.HavingClause)
	q.cores = append(q.cores, k)
}

// fromList joins the comma-separated items of a FROM clause.
func (c *pgConv) fromList(list []*pg.Node) *source {
	var out *source
	for _, n := range list {
		s := c.source(n)
		if s == nil {
			continue
		}
		if out == nil {
			out = s
		} else {
			out = &source{kind: srcJoin, left: out, right: s}
		}
	}
	return out
}

func (c *pgConv) rangeVar(r *pg.RangeVar) *source {
	if r == nil {
		return nil
	}
	s := &source{kind: srcTable, schema: r.Schemaname, name: r.Relname}
	if r.Alias != nil {
		s.alias = r.Alias.Aliasname
	}
	s.line, s.col = c.lines.pos(int(r.Location))
	return s
}

func (c *pgConv) source(n *pg.Node) *source {
	switch {
	case n == nil:
		return nil
	case n.GetRangeVar() != nil:
		return c.rangeVar(n.GetRangeVar())
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		s := &source{kind: srcJoin, left: c.source(j.Larg), right: c.source(j.Rarg), on: c.expr(j.Quals), natural: j.IsNatural}
		switch j.Jointype {
		case pg.JoinType_JOIN_LEFT:
			s.outer = "left"
		case pg.JoinType_JOIN_RIGHT:
			s.outer = "right"
		case pg.JoinType_JOIN_FULL:
			s.outer = "full"
		}
		for _, u := range j.UsingClause {
			s.using = append(s.using, u.GetString_().GetSval())
		}
		return s
	case n.GetRangeSubselect() != nil:
		r := n.GetRangeSubselect()
		s := &source{kind: srcQuery, q: c.query(r.Subquery.GetSelectStmt())}
		if r.Alias != nil {
			s.alias = r.Alias.Aliasname
		}
		return s
	case n.GetRangeFunction() != nil:
		r := n.GetRangeFunction()
		s := &source{kind: srcFunc}
		for _, f := range r.Functions {
			for _, item := range f.GetList().GetItems() {
				if e := c.expr(item); e != nil {
					if s.name == "" {
						s.name = e.fn
					}
					s.args = append(s.args, e.args...)
				}
			}
		}
		if r.Alias != nil {
			s.alias = r.Alias.Aliasname
		}
		return s
	}
	return nil
}

func (c *pgConv) exprs(list []*pg.Node) []*expr {
	out := make([]*expr, 0, len(list))
	for _, n := range list {
		if e := c.expr(n); e != nil {
			out = append(out, e)
		}
	}
	return out
}
