package sqlparse

import (
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values without the TiDB server's types
	"github.com/qeval/qeval/internal/lazyregexp"
)

// parseMySQL parses text with TiDB's MySQL grammar (github.com/pingcap/tidb/pkg/parser)
// and converts each statement.
func parseMySQL(text string) ([]*statement, error) {
	// A Parser is not safe for concurrent use; each call takes one from the pool, and
	// gives it back only once the statements are converted: the nodes it returns live
	// in memory the parser reuses for its next text.
	p := mysqlParsers.Get().(*parser.Parser)
	defer mysqlParsers.Put(p)
	nodes, _, err := p.ParseSQL(text)
	if err != nil {
		return nil, mysqlError(text, err)
	}
	c := &myConv{lines: newLineIndex(text)}
	out := make([]*statement, 0, len(nodes))
	for _, n := range nodes {
		st := c.statement(n)
		st.line, st.col = c.lines.pos(n.OriginTextPosition())
		out = append(out, st)
	}
	return out, nil
}

var mysqlErrPos = lazyregexp.New(`^line (\d+) column (\d+) near "((?s).*)"\s*$`)

// mysqlError turns TiDB's `line 1 column 15 near "t" ` into a syntax error at the
// offending token. "near" quotes the input from that token on, so its offset is where
// that suffix starts; TiDB's own column points past the token.
func mysqlError(text string, err error) error {
	msg := err.Error()
	m := mysqlErrPos.FindStringSubmatch(msg)
	if m == nil {
		return syntaxError(msg, 0, 0)
	}
	near := m[3]
	li := newLineIndex(text)
	if near == "" {
		line, col := li.pos(len(strings.TrimRight(text, " \t\r\n;")))
		return syntaxError("syntax error at end of input", line, col)
	}
	if strings.HasSuffix(text, near) {
		line, col := li.pos(len(text) - len(near))
		return syntaxError("syntax error at or near \""+firstToken(near)+"\"", line, col)
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	return syntaxError("syntax error near \""+firstToken(near)+"\"", line, col)
}

// firstToken is the start of s up to the first space, at most 30 bytes.
func firstToken(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 30 {
		s = s[:30]
	}
	return s
}

var mysqlParsers = sync.Pool{New: func() any { return parser.New() }}

type myConv struct{ lines lineIndex }

func (c *myConv) statement(n ast.StmtNode) *statement {
	st := &statement{}
	switch s := n.(type) {
	case *ast.SelectStmt:
		st.kind = "select"
		if s.SelectIntoOpt != nil {
			st.kind = "select_into" // INTO OUTFILE / DUMPFILE writes a file
		}
		st.query = c.query(s)
	case *ast.SetOprStmt:
		st.kind = "select"
		st.query = c.query(s)
	case *ast.InsertStmt:
		st.kind = "insert"
		if s.IsReplace {
			st.kind = "replace"
		}
		if s.Table != nil && s.Table.TableRefs != nil {
			st.target = c.source(s.Table.TableRefs)
		}
		if s.Select != nil {
			st.query = c.query(s.Select)
		}
		for _, row := range s.Lists {
			st.exprs = append(st.exprs, c.exprs(row)...)
		}
	case *ast.UpdateStmt:
		st.kind = "update"
		if s.TableRefs != nil {
			st.target = c.source(s.TableRefs.TableRefs)
		}
		st.where = c.expr(s.Where)
		for _, a := range s.List {
			st.sets = append(st.sets, c.expr(a.Expr))
		}
	case *ast.DeleteStmt:
		st.kind = "delete"
		if s.TableRefs != nil {
			st.target = c.source(s.TableRefs.TableRefs)
		}
		st.where = c.expr(s.Where)
	case *ast.ExplainStmt:
		inner := c.statement(s.Stmt)
		st.kind = "explain"
		st.query, st.target, st.from, st.where = inner.query, inner.target, inner.from, inner.where
	default:
		st.kind = mysqlKind(n)
	}
	return st
}

// mysqlKind names the other statements after their node type: CreateTableStmt →
// "create", DropTableStmt → "drop", ShowStmt → "show", SetStmt → "set", and so on.
func mysqlKind(n ast.StmtNode) string {
	name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(typeName(n), "Stmt"), "*ast."), "ast.")
	for _, k := range []string{"Create", "Drop", "Alter", "Rename", "Truncate", "Grant", "Revoke", "Show",
		"Set", "Use", "Begin", "Commit", "Rollback", "Load", "Lock", "Unlock", "Flush", "Kill", "Call",
		"Prepare", "Execute", "Deallocate", "Analyze", "Admin", "Import", "Do", "Help", "Savepoint", "Release"} {
		if strings.HasPrefix(name, k) {
			if k == "Rename" {
				return "alter"
			}
			return strings.ToLower(k)
		}
	}
	return strings.ToLower(name)
}

func (c *myConv) query(n ast.Node) *query {
	q := &query{}
	switch s := n.(type) {
	case *ast.SelectStmt:
		c.with(s.With, q)
		q.cores = append(q.cores, c.core(s))
		c.orderLimit(s.OrderBy, s.Limit, q)
	case *ast.SetOprStmt:
		c.with(s.With, q)
		if s.SelectList != nil {
			c.flatten(s.SelectList, q)
		}
		c.orderLimit(s.OrderBy, s.Limit, q)
	case *ast.SetOprSelectList:
		c.with(s.With, q)
		c.flatten(s, q)
		c.orderLimit(s.OrderBy, s.Limit, q)
	case *ast.SubqueryExpr:
		return c.query(s.Query)
	case *ast.TableSource:
		return c.query(s.Source)
	default:
		return nil
	}
	return q
}

func (c *myConv) with(w *ast.WithClause, q *query) {
	if w == nil {
		return
	}
	q.recursive = w.IsRecursive
	for _, ct := range w.CTEs {
		x := &cte{name: ct.Name.O}
		for _, col := range ct.ColNameList {
			x.cols = append(x.cols, col.O)
		}
		if ct.Query != nil {
			x.q = c.query(ct.Query.Query)
		}
		q.with = append(q.with, x)
	}
}

func (c *myConv) orderLimit(o *ast.OrderByClause, l *ast.Limit, q *query) {
	if o != nil {
		for _, it := range o.Items {
			q.order = append(q.order, &orderTerm{e: c.expr(it.Expr), desc: it.Desc})
		}
	}
	if l != nil {
		q.limit, q.offset = c.expr(l.Count), c.expr(l.Offset)
	}
}

// flatten appends the parts of a set operation left to right.
func (c *myConv) flatten(l *ast.SetOprSelectList, q *query) {
	for _, part := range l.Selects {
		var after *ast.SetOprType
		switch p := part.(type) {
		case *ast.SelectStmt:
			after = p.AfterSetOperator
		case *ast.SetOprSelectList:
			after = p.AfterSetOperator
		}
		if len(q.cores) > 0 {
			op := "union"
			if after != nil {
				op = strings.ToLower(after.String())
			}
			q.ops = append(q.ops, op)
		}
		switch p := part.(type) {
		case *ast.SelectStmt:
			if p.With == nil && p.OrderBy == nil && p.Limit == nil {
				q.cores = append(q.cores, c.core(p))
				continue
			}
			q.cores = append(q.cores, &core{cols: []*resultCol{{star: true}}, from: &source{kind: srcQuery, q: c.query(p)}})
		case *ast.SetOprSelectList:
			q.cores = append(q.cores, &core{cols: []*resultCol{{star: true}}, from: &source{kind: srcQuery, q: c.query(p)}})
		}
	}
}

func (c *myConv) core(s *ast.SelectStmt) *core {
	k := &core{distinct: s.Distinct}
	for _, row := range s.Lists {
		k.values = append(k.values, c.exprs(row.Values))
	}
	if s.Fields != nil {
		for _, f := range s.Fields.Fields {
			col := &resultCol{alias: f.AsName.O}
			switch {
			case f.WildCard != nil && f.WildCard.Table.O == "":
				col.star = true
			case f.WildCard != nil:
				col.tableStar = f.WildCard.Table.O
			default:
				col.e = c.expr(f.Expr)
			}
			k.cols = append(k.cols, col)
		}
	}
	if s.From != nil {
		k.from = c.source(s.From.TableRefs)
	}
	k.where = c.expr(s.Where)
	if s.GroupBy != nil {
		for _, it := range s.GroupBy.Items {
			k.group = append(k.group, c.expr(it.Expr))
		}
	}
	if s.Having != nil {
		k.having = c.expr(s.Having.Expr)
	}
	return k
}

func (c *myConv) source(n ast.ResultSetNode) *source {
	switch s := n.(type) {
	case nil:
		return nil
	case *ast.Join:
		if s.Right == nil {
			return c.source(s.Left)
		}
		j := &source{kind: srcJoin, left: c.source(s.Left), right: c.source(s.Right), natural: s.NaturalJoin}
		switch s.Tp {
		case ast.LeftJoin:
			j.outer = "left"
		case ast.RightJoin:
			j.outer = "right"
		}
		if s.On != nil {
			j.on = c.expr(s.On.Expr)
		}
		for _, u := range s.Using {
			j.using = append(j.using, u.Name.O)
		}
		return j
	case *ast.TableSource:
		inner := c.source(s.Source)
		if inner != nil && s.AsName.O != "" {
			inner.alias = s.AsName.O
		}
		return inner
	case *ast.TableName:
		src := &source{kind: srcTable, schema: s.Schema.O, name: s.Name.O}
		if off := s.OriginTextPosition(); off > 0 { // TiDB records no position for table names (0)
			src.line, src.col = c.lines.pos(off)
		}
		return src
	case *ast.SelectStmt, *ast.SetOprStmt:
		return &source{kind: srcQuery, q: c.query(s)}
	}
	return nil
}

func (c *myConv) exprs(list []ast.ExprNode) []*expr {
	out := make([]*expr, 0, len(list))
	for _, n := range list {
		if e := c.expr(n); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func typeName(v any) string { return strings.TrimPrefix(reflectTypeName(v), "*") }

// mysqlBinary names TiDB's binary operators in the tree's spelling.
var mysqlBinary = map[opcode.Op]string{
	opcode.LogicAnd: "and", opcode.LogicOr: "or", opcode.LogicXor: "xor", opcode.GE: ">=", opcode.LE: "<=",
	opcode.EQ: "=", opcode.NE: "!=", opcode.LT: "<", opcode.GT: ">", opcode.Plus: "+", opcode.Minus: "-",
	opcode.Mul: "*", opcode.Div: "/", opcode.Mod: "%", opcode.IntDiv: "div", opcode.NullEQ: "<=>",
	opcode.And: "&", opcode.Or: "|", opcode.Xor: "^", opcode.LeftShift: "<<", opcode.RightShift: ">>",
}
