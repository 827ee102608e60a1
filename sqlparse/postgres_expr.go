package sqlparse

import (
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func (c *pgConv) expr(n *pg.Node) *expr {
	if n == nil || n.Node == nil {
		return nil
	}
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return c.columnRef(v.ColumnRef)
	case *pg.Node_AConst:
		return pgConst(v.AConst)
	case *pg.Node_ParamRef:
		return &expr{kind: exprParam, text: "$" + strconv.Itoa(int(v.ParamRef.Number))}
	case *pg.Node_AExpr:
		return c.aExpr(v.AExpr)
	case *pg.Node_BoolExpr:
		return c.boolExpr(v.BoolExpr)
	case *pg.Node_NullTest:
		return &expr{kind: exprIsNull, x: c.expr(v.NullTest.Arg), not: v.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL}
	case *pg.Node_FuncCall:
		return c.funcCall(v.FuncCall)
	case *pg.Node_SubLink:
		return c.subLink(v.SubLink)
	case *pg.Node_TypeCast:
		return &expr{kind: exprOther, op: "cast", x: c.expr(v.TypeCast.Arg)}
	case *pg.Node_CollateClause:
		return c.expr(v.CollateClause.Arg)
	case *pg.Node_CaseExpr:
		return c.caseExpr(v.CaseExpr)
	case *pg.Node_CoalesceExpr:
		return &expr{kind: exprCall, fn: "coalesce", args: c.exprs(v.CoalesceExpr.Args)}
	case *pg.Node_RowExpr:
		return &expr{kind: exprList, args: c.exprs(v.RowExpr.Args)}
	case *pg.Node_List:
		return &expr{kind: exprList, args: c.exprs(v.List.Items)}
	case *pg.Node_AStar:
		return &expr{kind: exprStar, name: "*"}
	case *pg.Node_SelectStmt:
		return &expr{kind: exprSubquery, q: c.query(v.SelectStmt)}
	}
	return c.generic(n)
}

// boolExpr converts NOT, AND and OR; an AND or OR of n arguments becomes a left-deep
// chain of binary expressions.
func (c *pgConv) boolExpr(b *pg.BoolExpr) *expr {
	args := c.exprs(b.Args)
	switch b.Boolop {
	case pg.BoolExprType_NOT_EXPR:
		if len(args) == 1 {
			return &expr{kind: exprUnary, op: "not", x: args[0]}
		}
	case pg.BoolExprType_AND_EXPR, pg.BoolExprType_OR_EXPR:
		op := "and"
		if b.Boolop == pg.BoolExprType_OR_EXPR {
			op = "or"
		}
		if len(args) == 0 {
			return nil
		}
		out := args[0]
		for _, a := range args[1:] {
			out = &expr{kind: exprBinary, op: op, x: out, y: a}
		}
		return out
	}
	return &expr{kind: exprOther, args: args}
}

// funcCall converts a function call, aggregate or window call; a name qualified by
// pg_catalog alone is the plain name.
func (c *pgConv) funcCall(f *pg.FuncCall) *expr {
	var parts []string
	for _, p := range f.Funcname {
		parts = append(parts, p.GetString_().GetSval())
	}
	name := strings.ToLower(parts[len(parts)-1:][0])
	if len(parts) == 2 && strings.EqualFold(parts[0], "pg_catalog") {
		parts = parts[1:]
	}
	x := &expr{kind: exprCall, fn: name, star: f.AggStar, distinct: f.AggDistinct, over: f.Over != nil,
		args: c.exprs(f.Args), y: c.expr(f.AggFilter)}
	if len(parts) > 1 {
		x.fn = strings.ToLower(strings.Join(parts, "."))
	}
	x.line, x.col = c.lines.pos(int(f.Location))
	return x
}

// caseExpr converts CASE [arg] WHEN ... THEN ... [ELSE ...] END: x is the arg, y the
// ELSE, args the WHEN and THEN pairs.
func (c *pgConv) caseExpr(ce *pg.CaseExpr) *expr {
	x := &expr{kind: exprOther, op: "case", x: c.expr(ce.Arg), y: c.expr(ce.Defresult)}
	for _, w := range ce.Args {
		if cw := w.GetCaseWhen(); cw != nil {
			x.args = append(x.args, c.expr(cw.Expr), c.expr(cw.Result))
		}
	}
	return x
}

// generic converts a node the cases above do not know to an exprOther holding every
// expression and subquery found in its fields, so no column inside goes unseen.
func (c *pgConv) generic(n *pg.Node) *expr {
	m := pgInner(n)
	if m == nil {
		return nil
	}
	x := &expr{kind: exprOther, op: strings.ToLower(string(m.Descriptor().Name()))}
	c.collect(m, x)
	return x
}

func (c *pgConv) collect(m protoreflect.Message, x *expr) {
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f.Kind() != protoreflect.MessageKind {
			return true
		}
		add := func(msg protoreflect.Message) {
			switch t := msg.Interface().(type) {
			case *pg.Node:
				if e := c.expr(t); e != nil {
					x.args = append(x.args, e)
				}
			case *pg.SelectStmt:
				x.args = append(x.args, &expr{kind: exprSubquery, q: c.query(t)})
			default:
				c.collect(msg, x)
			}
		}
		if f.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				add(l.Get(i).Message())
			}
		} else if !f.IsMap() {
			add(v.Message())
		}
		return true
	})
}

func (c *pgConv) columnRef(cr *pg.ColumnRef) *expr {
	var parts []string
	star := false
	for _, f := range cr.Fields {
		if f.GetAStar() != nil {
			star = true
			continue
		}
		parts = append(parts, f.GetString_().GetSval())
	}
	x := &expr{kind: exprColumn}
	x.line, x.col = c.lines.pos(int(cr.Location))
	if star {
		x.kind, x.name = exprStar, "*"
		if len(parts) > 0 {
			x.table = parts[len(parts)-1]
		}
		return x
	}
	switch len(parts) {
	case 0:
		return nil
	case 1:
		x.name = parts[0]
	case 2:
		x.table, x.name = parts[0], parts[1]
	default:
		x.schema, x.table, x.name = parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	}
	return x
}

func pgConst(a *pg.A_Const) *expr {
	if a.Isnull {
		return &expr{kind: exprLiteral, text: "NULL"}
	}
	switch v := a.Val.(type) {
	case *pg.A_Const_Ival:
		return &expr{kind: exprLiteral, text: strconv.Itoa(int(v.Ival.GetIval()))}
	case *pg.A_Const_Fval:
		return &expr{kind: exprLiteral, text: v.Fval.GetFval()}
	case *pg.A_Const_Sval:
		return &expr{kind: exprLiteral, text: v.Sval.GetSval(), str: true}
	case *pg.A_Const_Boolval:
		if v.Boolval.GetBoolval() {
			return &expr{kind: exprLiteral, text: "TRUE"}
		}
		return &expr{kind: exprLiteral, text: "FALSE"}
	case *pg.A_Const_Bsval:
		return &expr{kind: exprLiteral, text: v.Bsval.GetBsval(), str: true}
	}
	return &expr{kind: exprLiteral, text: "NULL"}
}

func (c *pgConv) aExpr(a *pg.A_Expr) *expr {
	op := ""
	if len(a.Name) > 0 {
		op = a.Name[len(a.Name)-1].GetString_().GetSval()
	}
	l, r := c.expr(a.Lexpr), c.expr(a.Rexpr)
	line, col := c.lines.pos(int(a.Location))
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_IN:
		x := &expr{kind: exprIn, x: l, not: op == "<>", line: line, col: col}
		if r != nil && r.kind == exprList {
			x.args = r.args
		} else if r != nil {
			x.args = []*expr{r}
		}
		return x
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		x := &expr{kind: exprBetween, x: l, not: a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM}
		if r != nil && r.kind == exprList {
			x.args = r.args
		}
		return x
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
		name := map[pg.A_Expr_Kind]string{pg.A_Expr_Kind_AEXPR_LIKE: "like", pg.A_Expr_Kind_AEXPR_ILIKE: "ilike", pg.A_Expr_Kind_AEXPR_SIMILAR: "similar"}[a.Kind]
		return &expr{kind: exprBinary, op: name, not: strings.HasPrefix(op, "!"), x: l, y: r, line: line, col: col}
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return &expr{kind: exprBinary, op: "is", not: a.Kind == pg.A_Expr_Kind_AEXPR_DISTINCT, x: l, y: r, line: line, col: col}
	case pg.A_Expr_Kind_AEXPR_OP:
		if l == nil {
			return &expr{kind: exprUnary, op: op, x: r}
		}
		return &expr{kind: exprBinary, op: strings.ToLower(op), x: l, y: r, line: line, col: col}
	}
	return &expr{kind: exprOther, op: strings.ToLower(op), x: l, y: r}
}

func (c *pgConv) subLink(s *pg.SubLink) *expr {
	q := c.query(s.Subselect.GetSelectStmt())
	switch s.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return &expr{kind: exprExists, q: q}
	case pg.SubLinkType_ANY_SUBLINK:
		op := "="
		if len(s.OperName) > 0 {
			op = s.OperName[len(s.OperName)-1].GetString_().GetSval()
		}
		if op == "=" {
			return &expr{kind: exprIn, x: c.expr(s.Testexpr), q: q}
		}
		return &expr{kind: exprBinary, op: op, x: c.expr(s.Testexpr), y: &expr{kind: exprSubquery, q: q}}
	case pg.SubLinkType_ALL_SUBLINK:
		op := "="
		if len(s.OperName) > 0 {
			op = s.OperName[len(s.OperName)-1].GetString_().GetSval()
		}
		if op == "<>" {
			return &expr{kind: exprIn, not: true, x: c.expr(s.Testexpr), q: q}
		}
		return &expr{kind: exprBinary, op: op, x: c.expr(s.Testexpr), y: &expr{kind: exprSubquery, q: q}}
	}
	return &expr{kind: exprSubquery, q: q}
}

// lineIndex turns byte offsets into 1-based line and column (in characters) in
// O(log lines + 64): the lines' starts are binary-searched and characters counted from
// a checkpoint every 64 bytes. Counting from the start of the text for each token made
// parsing quadratic (a 1.7 MB OR chain took 48 s).
type lineIndex struct {
	text   string
	starts []int
	// chars[k] is the number of characters (bytes that are not UTF-8 continuation
	// bytes) in text[:k*64].
	chars []int32
}

func newLineIndex(text string) lineIndex {
	li := lineIndex{text: text, starts: []int{0}, chars: make([]int32, 0, len(text)/64+1)}
	n := int32(0)
	for i := 0; i < len(text); i++ {
		if i%64 == 0 {
			li.chars = append(li.chars, n)
		}
		c := text[i]
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return li
}

// charsTo returns the number of characters in text[:off].
func (li lineIndex) charsTo(off int) int {
	k := off / 64
	if k >= len(li.chars) {
		k = len(li.chars) - 1
	}
	if k < 0 {
		return 0
	}
	n := int(li.chars[k])
	for i := k * 64; i < off; i++ {
		if li.text[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

func (li lineIndex) pos(off int) (line, col int) {
	if off < 0 || off > len(li.text) {
		return 0, 0
	}
	line = sort.SearchInts(li.starts, off+1) // the first line starting after off, 1-based
	start := li.starts[line-1]
	return line, li.charsTo(off) - li.charsTo(start) + 1
}

// runePos turns a 1-based character position (as PostgreSQL reports) into line and
// column; 0 gives 0, 0.
func runePos(text string, cursor int) (line, col int) {
	if cursor <= 0 {
		return 0, 0
	}
	line, col = 1, 1
	n := 1
	for _, r := range text {
		if n == cursor {
			return line, col
		}
		n++
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
