package sqlparse

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

func reflectTypeName(v any) string { return reflect.TypeOf(v).String() }

func (c *myConv) expr(n ast.ExprNode) *expr {
	switch e := n.(type) {
	case nil:
		return nil
	case *ast.ColumnNameExpr:
		x := &expr{kind: exprColumn, schema: e.Name.Schema.O, table: e.Name.Table.O, name: e.Name.Name.O}
		x.line, x.col = c.lines.pos(e.OriginTextPosition())
		return x
	case ast.ParamMarkerExpr: // before ValueExpr, which it also satisfies
		return &expr{kind: exprParam, text: "?"}
	case ast.ValueExpr:
		return myValue(e)
	case *ast.ParenthesesExpr:
		return c.expr(e.Expr)
	case *ast.BinaryOperationExpr:
		op, ok := mysqlBinary[e.Op]
		if !ok {
			op = strings.ToLower(e.Op.String())
		}
		return &expr{kind: exprBinary, op: op, x: c.expr(e.L), y: c.expr(e.R)}
	case *ast.UnaryOperationExpr:
		return c.unary(e)
	case *ast.BetweenExpr:
		return &expr{kind: exprBetween, x: c.expr(e.Expr), not: e.Not, args: []*expr{c.expr(e.Left), c.expr(e.Right)}}
	case *ast.PatternInExpr:
		x := &expr{kind: exprIn, x: c.expr(e.Expr), not: e.Not}
		if e.Sel != nil {
			x.q = c.subquery(e.Sel)
		} else {
			x.args = c.exprs(e.List)
		}
		return x
	case *ast.IsNullExpr:
		return &expr{kind: exprIsNull, x: c.expr(e.Expr), not: e.Not}
	case *ast.PatternLikeOrIlikeExpr:
		op := "like"
		if !e.IsLike {
			op = "ilike"
		}
		return &expr{kind: exprBinary, op: op, not: e.Not, x: c.expr(e.Expr), y: c.expr(e.Pattern)}
	case *ast.PatternRegexpExpr:
		return &expr{kind: exprBinary, op: "regexp", not: e.Not, x: c.expr(e.Expr), y: c.expr(e.Pattern)}
	case *ast.ExistsSubqueryExpr:
		return &expr{kind: exprExists, not: e.Not, q: c.subquery(e.Sel)}
	case *ast.SubqueryExpr:
		return &expr{kind: exprSubquery, q: c.query(e.Query)}
	case *ast.CompareSubqueryExpr:
		return c.compareSubquery(e)
	case *ast.AggregateFuncExpr:
		x := &expr{kind: exprCall, fn: strings.ToLower(e.F), distinct: e.Distinct, args: c.exprs(e.Args)}
		myCountStar(x)
		return x
	case *ast.WindowFuncExpr:
		x := &expr{kind: exprCall, fn: strings.ToLower(e.Name), distinct: e.Distinct, over: true, args: c.exprs(e.Args)}
		myCountStar(x)
		return x
	case *ast.FuncCallExpr:
		return &expr{kind: exprCall, fn: e.FnName.L, args: c.exprs(e.Args)}
	case *ast.FuncCastExpr:
		return &expr{kind: exprOther, op: "cast", x: c.expr(e.Expr)}
	case *ast.RowExpr:
		return &expr{kind: exprList, args: c.exprs(e.Values)}
	case *ast.CaseExpr:
		return c.caseExpr(e)
	}
	return c.generic(n)
}

// unary converts NOT, unary minus and plus, and ~; a minus before a number literal
// becomes part of the literal.
func (c *myConv) unary(e *ast.UnaryOperationExpr) *expr {
	op := map[opcode.Op]string{opcode.Not: "not", opcode.Not2: "not", opcode.Minus: "-", opcode.Plus: "+", opcode.BitNeg: "~"}[e.Op]
	x := c.expr(e.V)
	if op == "-" && x != nil && x.kind == exprLiteral && !x.str {
		x.text = "-" + x.text
		return x
	}
	return &expr{kind: exprUnary, op: op, x: x}
}

// compareSubquery converts x op ANY/ALL (subquery); = ANY is IN.
func (c *myConv) compareSubquery(e *ast.CompareSubqueryExpr) *expr {
	op := mysqlBinary[e.Op]
	sub := &expr{kind: exprSubquery, q: c.subquery(e.R)}
	if op == "=" && !e.All {
		return &expr{kind: exprIn, x: c.expr(e.L), q: sub.q}
	}
	return &expr{kind: exprBinary, op: op, x: c.expr(e.L), y: sub}
}

// caseExpr converts CASE [value] WHEN ... THEN ... [ELSE ...] END: x is the value,
// y the ELSE, args the WHEN and THEN pairs.
func (c *myConv) caseExpr(e *ast.CaseExpr) *expr {
	x := &expr{kind: exprOther, op: "case", x: c.expr(e.Value), y: c.expr(e.ElseClause)}
	for _, w := range e.WhenClauses {
		x.args = append(x.args, c.expr(w.Expr), c.expr(w.Result))
	}
	return x
}

// myCountStar undoes TiDB's rewrite of count(*) to count(1).
func myCountStar(x *expr) {
	if x.fn == "count" && !x.distinct && len(x.args) == 1 && x.args[0].kind == exprLiteral && x.args[0].text == "1" {
		x.star, x.args = true, nil
	}
}

func (c *myConv) subquery(n ast.ExprNode) *query {
	if s, ok := n.(*ast.SubqueryExpr); ok {
		return c.query(s.Query)
	}
	return nil
}

func myValue(v ast.ValueExpr) *expr {
	val := v.GetValue()
	switch t := val.(type) {
	case nil:
		return &expr{kind: exprLiteral, text: "NULL"}
	case string:
		return &expr{kind: exprLiteral, text: t, str: true}
	case []byte:
		return &expr{kind: exprLiteral, text: string(t), str: true}
	}
	return &expr{kind: exprLiteral, text: fmt.Sprint(val)}
}

// generic converts an expression the cases above do not know to an exprOther holding
// the expressions directly inside it, so no column inside goes unseen.
func (c *myConv) generic(n ast.ExprNode) *expr {
	x := &expr{kind: exprOther, op: strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(reflectTypeName(n), "*ast."), "Expr"))}
	v := &childVisitor{root: n, conv: c, out: x}
	n.Accept(v)
	return x
}

type childVisitor struct {
	root ast.Node
	conv *myConv
	out  *expr
}

func (v *childVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if n == v.root {
		return n, false
	}
	switch t := n.(type) {
	case ast.ExprNode:
		if e := v.conv.expr(t); e != nil {
			v.out.args = append(v.out.args, e)
		}
		return n, true
	case ast.ResultSetNode:
		v.out.args = append(v.out.args, &expr{kind: exprSubquery, q: v.conv.query(t)})
		return n, true
	}
	return n, false
}

func (v *childVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
