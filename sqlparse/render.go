package sqlparse

import "strings"

// render writes e back as text for the shape (group, order, filter and aggregate
// terms), with columns named by their base table where it is known, so that the same
// term written with different aliases renders the same.
func (x *extractor) render(e *expr, s *scope) string {
	var b strings.Builder
	x.renderTo(&b, e, s)
	return b.String()
}

func (x *extractor) renderTo(b *strings.Builder, e *expr, s *scope) {
	if e == nil {
		return
	}
	switch e.kind {
	case exprColumn:
		x.renderColumn(b, e, s)
	case exprStar:
		if e.table != "" {
			b.WriteString(e.table + ".")
		}
		b.WriteByte('*')
	case exprLiteral:
		renderLiteral(b, e)
	case exprParam:
		b.WriteString(e.text)
	case exprCall:
		x.renderCall(b, e, s)
	case exprBinary:
		x.renderTo(b, e.x, s)
		b.WriteByte(' ')
		if e.not {
			b.WriteString("NOT ")
		}
		b.WriteString(strings.ToUpper(e.op))
		b.WriteByte(' ')
		x.renderTo(b, e.y, s)
	case exprUnary:
		if e.op == "not" {
			b.WriteString("NOT ")
		} else {
			b.WriteString(e.op)
		}
		x.renderTo(b, e.x, s)
	case exprBetween:
		x.renderTo(b, e.x, s)
		b.WriteString(notWord(e.not) + " BETWEEN ")
		if len(e.args) == 2 {
			x.renderTo(b, e.args[0], s)
			b.WriteString(" AND ")
			x.renderTo(b, e.args[1], s)
		}
	case exprIn:
		x.renderTo(b, e.x, s)
		b.WriteString(notWord(e.not) + " IN (")
		if e.q != nil {
			b.WriteString("SELECT ...")
		} else {
			x.renderList(b, e.args, s)
		}
		b.WriteByte(')')
	case exprIsNull:
		x.renderTo(b, e.x, s)
		b.WriteString(" IS" + notWord(e.not) + " NULL")
	case exprExists:
		b.WriteString(strings.TrimSpace(notWord(e.not)+" EXISTS") + " (SELECT ...)")
	case exprSubquery:
		b.WriteString("(SELECT ...)")
	case exprList:
		b.WriteByte('(')
		x.renderList(b, e.args, s)
		b.WriteByte(')')
	default:
		x.renderOther(b, e, s)
	}
}

// renderColumn writes a column with the base table it belongs to; a qualifier that
// names no source in scope is kept as written.
func (x *extractor) renderColumn(b *strings.Builder, e *expr, s *scope) {
	table, _ := x.column(e, s, "", false)
	if table == "" && e.table != "" && x.lookupBinding(s, e.table) == nil {
		table = e.table
	}
	if table != "" {
		b.WriteString(table)
		b.WriteByte('.')
	}
	b.WriteString(e.name)
}

// renderLiteral writes a string in single quotes (doubling the quotes inside), any
// other literal as it is.
func renderLiteral(b *strings.Builder, e *expr) {
	if e.str {
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(e.text, "'", "''"))
		b.WriteByte('\'')
	} else {
		b.WriteString(e.text)
	}
}

func (x *extractor) renderCall(b *strings.Builder, e *expr, s *scope) {
	b.WriteString(e.fn)
	b.WriteByte('(')
	if e.star {
		b.WriteByte('*')
	}
	if e.distinct {
		b.WriteString("DISTINCT ")
	}
	x.renderList(b, e.args, s)
	b.WriteByte(')')
}

// renderOther writes an expression of another kind as its operator (upper case) over
// its direct sub-expressions in parentheses.
func (x *extractor) renderOther(b *strings.Builder, e *expr, s *scope) {
	if e.op != "" {
		b.WriteString(strings.ToUpper(e.op))
	}
	b.WriteByte('(')
	var parts []*expr
	e.children(func(c *expr) { parts = append(parts, c) })
	x.renderList(b, parts, s)
	b.WriteByte(')')
}

func (x *extractor) renderList(b *strings.Builder, list []*expr, s *scope) {
	for i, a := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		x.renderTo(b, a, s)
	}
}

func notWord(not bool) string {
	if not {
		return " NOT"
	}
	return ""
}
