package sqlparse

import (
	"strings"

	rq "github.com/rqlite/sql"
)

// parseSQLite parses text with the SQLite grammar of github.com/rqlite/sql and converts
// each statement to the shared tree.
func parseSQLite(text string) ([]*statement, error) {
	text, err := sqliteFixup(text)
	if err != nil {
		return nil, err
	}
	stmts, err := rq.NewParser(strings.NewReader(text)).ParseStatements()
	if err != nil {
		if e, ok := err.(*rq.Error); ok {
			line, col := e.Pos.Line, e.Pos.Column
			if strings.HasSuffix(e.Msg, "found 'EOF'") {
				// Point just past the last token, where something was missing.
				line, col = newLineIndex(text).pos(len(strings.TrimRight(text, " \t\r\n;")))
				return nil, syntaxError(strings.TrimSuffix(e.Msg, "found 'EOF'")+"found the end of the text", line, col)
			}
			return nil, syntaxError(e.Msg, line, col)
		}
		return nil, syntaxError(err.Error(), 0, 0)
	}
	cv := &sqliteConv{text: text}
	out := make([]*statement, 0, len(stmts))
	for _, s := range stmts {
		out = append(out, cv.sqliteStatement(s))
	}
	return out, nil
}

// sqliteConv converts rqlite's tree; it keeps the text to tell how a name was quoted.
type sqliteConv struct{ text string }

func (cv *sqliteConv) sqliteStatement(s rq.Statement) *statement {
	st := &statement{}
	switch s := s.(type) {
	case *rq.SelectStatement:
		st.kind = "select"
		st.query = cv.sqliteQuery(s)
		st.line, st.col = s.Select.Line, s.Select.Column
		if s.WithClause != nil {
			st.line, st.col = s.WithClause.With.Line, s.WithClause.With.Column
		}
		if !s.Values.IsValid() && !s.Select.IsValid() {
			st.line, st.col = 0, 0
		}
	case *rq.ExplainStatement:
		st.kind = "explain"
		if inner := cv.sqliteStatement(s.Stmt); inner != nil {
			st.query, st.target, st.from, st.where = inner.query, inner.target, inner.from, inner.where
		}
		st.line, st.col = s.Explain.Line, s.Explain.Column
	case *rq.InsertStatement:
		st.kind = "insert"
		if s.Replace.IsValid() || s.InsertOrReplace.IsValid() {
			st.kind = "replace"
		}
		st.target = &source{kind: srcTable, schema: identName(s.Schema), name: identName(s.Table), alias: identName(s.Alias)}
		if s.Select != nil {
			st.query = cv.sqliteQuery(s.Select)
		}
		for _, l := range s.ValueLists {
			st.exprs = append(st.exprs, cv.sqliteExprs(l.Exprs)...)
		}
	case *rq.UpdateStatement:
		st.kind = "update"
		st.target = cv.sqliteTableName(s.Table)
		st.from = cv.sqliteSource(s.Source)
		st.where = cv.sqliteExpr(s.WhereExpr)
		for _, a := range s.Assignments {
			st.sets = append(st.sets, cv.sqliteExpr(a.Expr))
		}
	case *rq.DeleteStatement:
		st.kind = "delete"
		st.target = cv.sqliteTableName(s.Table)
		st.where = cv.sqliteExpr(s.WhereExpr)
	case *rq.CreateTableStatement:
		st.kind = "create"
		st.target = &source{kind: srcTable, schema: identName(s.Schema), name: identName(s.Name)}
		if s.Select != nil {
			st.query = cv.sqliteQuery(s.Select)
		}
	case *rq.CreateViewStatement:
		st.kind = "create"
		st.target = &source{kind: srcTable, name: identName(s.Name)}
		if s.Select != nil {
			st.query = cv.sqliteQuery(s.Select)
		}
	default:
		st.kind = sqliteKind(s)
	}
	return st
}

// sqliteKind is the kind of a statement of which the tree keeps nothing else.
func sqliteKind(s rq.Statement) string {
	switch s.(type) {
	case *rq.CreateIndexStatement, *rq.CreateTriggerStatement, *rq.CreateVirtualTableStatement:
		return "create"
	case *rq.DropTableStatement, *rq.DropViewStatement, *rq.DropIndexStatement, *rq.DropTriggerStatement:
		return "drop"
	case *rq.AlterTableStatement:
		return "alter"
	case *rq.PragmaStatement:
		return "pragma"
	case *rq.AnalyzeStatement:
		return "analyze"
	case *rq.ReindexStatement:
		return "reindex"
	case *rq.BeginStatement:
		return "begin"
	case *rq.CommitStatement:
		return "commit"
	case *rq.RollbackStatement:
		return "rollback"
	case *rq.SavepointStatement:
		return "savepoint"
	case *rq.ReleaseStatement:
		return "release"
	}
	return "other"
}

func identName(i *rq.Ident) string {
	if i == nil {
		return ""
	}
	return i.Name
}

func (cv *sqliteConv) sqliteQuery(s *rq.SelectStatement) *query {
	if s == nil {
		return nil
	}
	q := &query{}
	if w := s.WithClause; w != nil {
		q.recursive = w.Recursive.IsValid()
		for _, c := range w.CTEs {
			x := &cte{name: identName(c.TableName), q: cv.sqliteQuery(c.Select)}
			for _, col := range c.Columns {
				x.cols = append(x.cols, identName(col))
			}
			q.with = append(q.with, x)
		}
	}
	for cur := s; cur != nil; cur = cur.Compound {
		q.cores = append(q.cores, cv.sqliteCore(cur))
		switch {
		case cur.Compound == nil:
		case cur.UnionAll.IsValid():
			q.ops = append(q.ops, "union all")
		case cur.Union.IsValid():
			q.ops = append(q.ops, "union")
		case cur.Intersect.IsValid():
			q.ops = append(q.ops, "intersect")
		default:
			q.ops = append(q.ops, "except")
		}
	}
	for _, t := range s.OrderingTerms {
		q.order = append(q.order, &orderTerm{e: cv.sqliteExpr(t.X), desc: t.Desc.IsValid()})
	}
	q.limit = cv.sqliteExpr(s.LimitExpr)
	q.offset = cv.sqliteExpr(s.OffsetExpr)
	return q
}

func (cv *sqliteConv) sqliteCore(s *rq.SelectStatement) *core {
	c := &core{distinct: s.Distinct.IsValid()}
	for _, l := range s.ValueLists {
		c.values = append(c.values, cv.sqliteExprs(l.Exprs))
	}
	for _, rc := range s.Columns {
		col := &resultCol{star: rc.Star.IsValid(), alias: identName(rc.Alias)}
		if ref, ok := rc.Expr.(*rq.QualifiedRef); ok && ref.Star.IsValid() {
			col.tableStar = identName(ref.Table)
		} else {
			col.e = cv.sqliteExpr(rc.Expr)
		}
		c.cols = append(c.cols, col)
	}
	c.from = cv.sqliteSource(s.Source)
	c.where = cv.sqliteExpr(s.WhereExpr)
	c.group = cv.sqliteExprs(s.GroupByExprs)
	c.having = cv.sqliteExpr(s.HavingExpr)
	return c
}

func (cv *sqliteConv) sqliteTableName(t *rq.QualifiedTableName) *source {
	if t == nil {
		return nil
	}
	return &source{kind: srcTable, schema: identName(t.Schema), name: identName(t.Name), alias: identName(t.Alias),
		line: t.Name.NamePos.Line, col: t.Name.NamePos.Column}
}

func (cv *sqliteConv) sqliteSource(s rq.Source) *source {
	switch s := s.(type) {
	case nil:
		return nil
	case *rq.QualifiedTableName:
		if s == nil || s.Name == nil {
			return nil
		}
		return cv.sqliteTableName(s)
	case *rq.QualifiedTableFunctionName:
		return &source{kind: srcFunc, name: identName(s.Name), alias: identName(s.Alias), args: cv.sqliteExprs(s.Args)}
	case *rq.SelectStatement:
		return &source{kind: srcQuery, q: cv.sqliteQuery(s)}
	case *rq.ParenSource:
		inner := cv.sqliteSource(s.X)
		if inner != nil && s.Alias != nil {
			inner.alias = identName(s.Alias)
		}
		return inner
	case *rq.JoinClause:
		j := &source{kind: srcJoin, left: cv.sqliteSource(s.X), right: cv.sqliteSource(s.Y)}
		j.natural = s.Operator != nil && s.Operator.Natural.IsValid()
		if s.Operator != nil && s.Operator.Left.IsValid() {
			j.outer = "left"
		}
		switch c := s.Constraint.(type) {
		case *rq.OnConstraint:
			j.on = cv.sqliteExpr(c.X)
		case *rq.UsingConstraint:
			for _, id := range c.Columns {
				j.using = append(j.using, identName(id))
			}
		}
		return j
	}
	return nil
}

func (cv *sqliteConv) sqliteExprs(list []rq.Expr) []*expr {
	out := make([]*expr, 0, len(list))
	for _, e := range list {
		if x := cv.sqliteExpr(e); x != nil {
			out = append(out, x)
		}
	}
	return out
}

// sqliteOps names the binary operators of the tree; the negated ones set expr.not.
var sqliteOps = map[rq.Token]string{
	rq.EQ: "=", rq.NE: "!=", rq.LT: "<", rq.LE: "<=", rq.GT: ">", rq.GE: ">=",
	rq.AND: "and", rq.OR: "or", rq.PLUS: "+", rq.MINUS: "-", rq.STAR: "*", rq.SLASH: "/",
	rq.REM: "%", rq.CONCAT: "||", rq.BITAND: "&", rq.BITOR: "|", rq.LSHIFT: "<<", rq.RSHIFT: ">>",
	rq.LIKE: "like", rq.NOTLIKE: "like", rq.GLOB: "glob", rq.NOTGLOB: "glob",
	rq.REGEXP: "regexp", rq.NOTREGEXP: "regexp", rq.MATCH: "match", rq.NOTMATCH: "match",
	rq.IS: "is", rq.ISNOT: "is", rq.JSON_EXTRACT_JSON: "->", rq.JSON_EXTRACT_SQL: "->>",
}

func (cv *sqliteConv) sqliteExpr(e rq.Expr) *expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *rq.Ident:
		if e == nil {
			return nil
		}
		x := &expr{kind: exprColumn, name: e.Name, line: e.NamePos.Line, col: e.NamePos.Column}
		// SQLite reads a "double-quoted" name that is no column as a string.
		x.quoted = e.Quoted && e.NamePos.Offset < len(cv.text) && cv.text[e.NamePos.Offset] == '"'
		return x
	case *rq.QualifiedRef:
		x := &expr{kind: exprColumn, schema: identName(e.Schema), table: identName(e.Table), name: identName(e.Column)}
		if e.Table != nil {
			x.line, x.col = e.Table.NamePos.Line, e.Table.NamePos.Column
		}
		if e.Star.IsValid() {
			x.kind, x.name = exprStar, "*"
		}
		return x
	case *rq.StringLit:
		return &expr{kind: exprLiteral, text: e.Value, str: true}
	case *rq.NumberLit:
		return &expr{kind: exprLiteral, text: e.Value}
	case *rq.NullLit:
		return &expr{kind: exprLiteral, text: "NULL"}
	case *rq.BoolLit:
		if e.Value {
			return &expr{kind: exprLiteral, text: "TRUE"}
		}
		return &expr{kind: exprLiteral, text: "FALSE"}
	case *rq.BlobLit:
		return &expr{kind: exprLiteral, text: "x'" + e.Value + "'"}
	case *rq.TimestampLit:
		return &expr{kind: exprCall, fn: strings.ToLower(e.Value)}
	case *rq.BindExpr:
		return &expr{kind: exprParam, text: e.Name}
	case *rq.ParenExpr:
		if s, ok := e.X.(rq.SelectExpr); ok {
			return &expr{kind: exprSubquery, q: cv.sqliteQuery(s.SelectStatement)}
		}
		return cv.sqliteExpr(e.X)
	case rq.SelectExpr:
		return &expr{kind: exprSubquery, q: cv.sqliteQuery(e.SelectStatement)}
	case *rq.ExprList:
		return &expr{kind: exprList, args: cv.sqliteExprs(e.Exprs)}
	case *rq.UnaryExpr:
		return cv.sqliteUnary(e)
	case *rq.Null:
		return &expr{kind: exprIsNull, x: cv.sqliteExpr(e.X), not: e.Op == rq.NOTNULL}
	case *rq.Exists:
		return &expr{kind: exprExists, not: e.Not.IsValid(), q: cv.sqliteQuery(e.Select)}
	case *rq.Call:
		return cv.sqliteCall(e)
	case *rq.CastExpr:
		return &expr{kind: exprOther, op: "cast", x: cv.sqliteExpr(e.X)}
	case *rq.CollateExpr:
		return cv.sqliteExpr(e.X)
	case *rq.CaseExpr:
		return cv.sqliteCase(e)
	case *rq.BinaryExpr:
		return cv.sqliteBinary(e)
	case *rq.Range:
		return &expr{kind: exprList, args: []*expr{cv.sqliteExpr(e.X), cv.sqliteExpr(e.Y)}}
	}
	return &expr{kind: exprOther}
}

// sqliteUnary converts NOT, unary minus and plus, and ~; a minus before a number
// literal becomes part of the literal.
func (cv *sqliteConv) sqliteUnary(e *rq.UnaryExpr) *expr {
	op := map[rq.Token]string{rq.NOT: "not", rq.MINUS: "-", rq.PLUS: "+", rq.BITNOT: "~"}[e.Op]
	x := cv.sqliteExpr(e.X)
	if op == "-" && x != nil && x.kind == exprLiteral && !x.str {
		x.text = "-" + x.text
		return x
	}
	return &expr{kind: exprUnary, op: op, x: x}
}

// sqliteCall converts a function, aggregate or window call; y is its FILTER condition.
func (cv *sqliteConv) sqliteCall(e *rq.Call) *expr {
	x := &expr{kind: exprCall, fn: strings.ToLower(identName(e.Name)), distinct: e.Distinct.IsValid(),
		star: e.Star.IsValid(), over: e.Over != nil, args: cv.sqliteExprs(e.Args)}
	if e.Filter != nil {
		x.y = cv.sqliteExpr(e.Filter.X)
	}
	if e.Name != nil {
		x.line, x.col = e.Name.NamePos.Line, e.Name.NamePos.Column
	}
	return x
}

// sqliteCase converts CASE [operand] WHEN ... THEN ... [ELSE ...] END: x is the
// operand, y the ELSE, args the WHEN and THEN pairs.
func (cv *sqliteConv) sqliteCase(e *rq.CaseExpr) *expr {
	x := &expr{kind: exprOther, op: "case", x: cv.sqliteExpr(e.Operand), y: cv.sqliteExpr(e.ElseExpr)}
	for _, b := range e.Blocks {
		x.args = append(x.args, cv.sqliteExpr(b.Condition), cv.sqliteExpr(b.Body))
	}
	return x
}

func (cv *sqliteConv) sqliteBinary(e *rq.BinaryExpr) *expr {
	x := cv.sqliteExpr(e.X)
	switch e.Op {
	case rq.IN, rq.NOTIN:
		in := &expr{kind: exprIn, x: x, not: e.Op == rq.NOTIN}
		switch y := e.Y.(type) {
		case *rq.ExprList:
			if len(y.Exprs) == 1 {
				if s, ok := y.Exprs[0].(rq.SelectExpr); ok {
					in.q = cv.sqliteQuery(s.SelectStatement)
					return in
				}
			}
			in.args = cv.sqliteExprs(y.Exprs)
		case *rq.Ident:
			in.q = tableQuery(&source{kind: srcTable, name: y.Name, line: y.NamePos.Line, col: y.NamePos.Column})
		case *rq.QualifiedRef:
			in.q = tableQuery(&source{kind: srcTable, schema: identName(y.Table), name: identName(y.Column)})
		case *rq.Call:
			in.q = tableQuery(&source{kind: srcFunc, name: identName(y.Name), args: cv.sqliteExprs(y.Args)})
		}
		return in
	case rq.BETWEEN, rq.NOTBETWEEN:
		b := &expr{kind: exprBetween, x: x, not: e.Op == rq.NOTBETWEEN}
		r, ok := e.Y.(*rq.Range)
		if !ok {
			return b
		}
		// The grammar reads "x BETWEEN 1 AND 2 AND y = 3" as x BETWEEN (1 AND 2) AND
		// (y = 3): the range swallows the conditions after it. Its operands are the
		// left-leaning AND chain; the first two are the bounds, the rest are ANDed on.
		ops := append(andChain(r.X), r.Y)
		if len(ops) < 2 {
			return b
		}
		b.args = []*expr{cv.sqliteExpr(ops[0]), cv.sqliteExpr(ops[1])}
		out := b
		for _, rest := range ops[2:] {
			out = &expr{kind: exprBinary, op: "and", x: out, y: cv.sqliteExpr(rest)}
		}
		return out
	}
	op, ok := sqliteOps[e.Op]
	if !ok {
		op = strings.ToLower(e.Op.String())
	}
	neg := e.Op == rq.NOTLIKE || e.Op == rq.NOTGLOB || e.Op == rq.NOTREGEXP || e.Op == rq.NOTMATCH || e.Op == rq.ISNOT
	return &expr{kind: exprBinary, op: op, not: neg, x: x, y: cv.sqliteExpr(e.Y), line: e.OpPos.Line, col: e.OpPos.Column}
}

// tableQuery is SELECT * FROM src, for SQLite's "x IN table".
func tableQuery(src *source) *query {
	return &query{cores: []*core{{cols: []*resultCol{{star: true}}, from: src}}}
}

// andChain flattens the left spine of a chain of ANDs: ((a AND b) AND c) → a, b, c.
func andChain(e rq.Expr) []rq.Expr {
	if b, ok := e.(*rq.BinaryExpr); ok && b.Op == rq.AND {
		return append(andChain(b.X), b.Y)
	}
	return []rq.Expr{e}
}
