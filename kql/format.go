package kql

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Format returns canonical KQL text for a node: one statement per line, single spaces
// around binary operators, " | " between operators, double-quoted strings, and the
// canonical time-span and datetime forms described in timespan.go. Formatting the
// result of Parse and parsing it again gives the same text.
func Format(n Node) string {
	var f formatter
	f.node(n)
	return f.b.String()
}

type formatter struct {
	b     strings.Builder
	subst func(*Ident) string // when set, names it maps to a text are printed as that text
	fold  bool                // print constant time-span arithmetic (2*1h) as its value (2h)
}

func (f *formatter) str(s string) { f.b.WriteString(s) }

func (f *formatter) node(n Node) {
	switch n := n.(type) {
	case nil:
	case *Script:
		for i, s := range n.Stmts {
			if i > 0 {
				f.str(";\n")
			}
			f.node(s)
		}
	case Stmt:
		f.stmt(n)
	case Expr:
		f.expr(n)
	case Operator:
		f.op(n)
	case *SortTerm:
		f.sortTerm(n)
	case *TypeRef:
		f.typeRef(n)
	case *Param:
		f.param(n)
	case *OpParam:
		f.opParam(n)
	default:
		f.str("?")
	}
}

func (f *formatter) stmt(s Stmt) {
	switch s := s.(type) {
	case *LetStmt:
		f.str("let ")
		f.ident(s.Name)
		f.str(" = ")
		f.expr(s.Value)
	case *QueryStmt:
		f.expr(s.Query)
	case *SetStmt:
		f.str("set ")
		f.str(s.Name)
		if s.Value != nil {
			f.str(" = ")
			f.expr(s.Value)
		}
	case *DeclareStmt:
		f.str("declare " + s.Kind + " (")
		f.params(s.Params)
		f.str(")")
	case *PatternStmt:
		f.str("declare pattern ")
		f.ident(s.Name)
		if s.Params != nil || s.Rules != nil {
			f.str(" = (")
			f.params(s.Params)
			f.str(")")
			if s.PathParams != nil {
				f.str("[")
				f.params(s.PathParams)
				f.str("]")
			}
			f.str(" {")
			for _, r := range s.Rules {
				f.str(" (")
				f.exprs(r.Args)
				f.str(")")
				if r.Path != nil {
					f.str(".[")
					f.exprs(r.Path)
					f.str("]")
				}
				f.str(" = ")
				f.block(r.Body)
				f.str(";")
			}
			f.str(" }")
		}
	case *AliasStmt:
		f.str("alias " + s.Kind + " ")
		f.ident(s.Name)
		f.str(" = ")
		f.expr(s.Value)
	case *RestrictStmt:
		f.str("restrict access to (")
		f.exprs(s.Entities)
		f.str(")")
	case *DirectiveStmt:
		f.str(s.Text + "\n")
	}
}

func (f *formatter) block(b *Block) {
	if b == nil {
		f.str("{ }")
		return
	}
	f.str("{ ")
	for i, s := range b.Stmts {
		if i > 0 {
			f.str("; ")
		}
		f.stmt(s)
	}
	f.str(" }")
}

func (f *formatter) params(ps []*Param) {
	for i, p := range ps {
		if i > 0 {
			f.str(", ")
		}
		f.param(p)
	}
}

func (f *formatter) param(p *Param) {
	f.ident(p.Name)
	if p.Type != nil {
		f.str(":")
		f.typeRef(p.Type)
	}
	if p.Default != nil {
		f.str(" = ")
		f.expr(p.Default)
	}
}

func (f *formatter) typeRef(t *TypeRef) {
	if t == nil {
		return
	}
	if !t.Tabular {
		f.str(t.Name)
		return
	}
	f.str("(")
	f.schema(t)
	f.str(")")
}

func (f *formatter) schema(t *TypeRef) {
	n := 0
	if t.Star {
		f.str("*")
		n++
	}
	for _, c := range t.Columns {
		if n > 0 {
			f.str(", ")
		}
		f.columnDecl(c)
		n++
	}
}

func (f *formatter) columnDecl(c *ColumnDecl) {
	f.ident(c.Name)
	if c.Type != nil {
		f.str(":")
		f.typeRef(c.Type)
	}
}

func (f *formatter) exprs(list []Expr) {
	for i, e := range list {
		if i > 0 {
			f.str(", ")
		}
		f.expr(e)
	}
}

// reservedNames are words that must stay bracketed when used as names.
var reservedNames = map[string]bool{
	"and": true, "or": true, "by": true, "on": true, "with": true, "of": true, "to": true,
	"from": true, "step": true, "asc": true, "desc": true, "nulls": true, "default": true,
	"let": true, "view": true, "true": true, "false": true, "null": true, "typeof": true,
	"dynamic": true, "datatable": true, "matches": true, "limit": true, "as": true,
	"where": true, "project": true, "others": true, "granny": true, "in": true,
}

func (f *formatter) ident(id *Ident) {
	if id == nil {
		return
	}

	if plainName(id.Name) || strings.ContainsRune(id.Name, '*') && !id.Bracketed {
		f.str(id.Name)
		return
	}
	f.str("[")
	f.str(quote(id.Name))
	f.str("]")
}

// plainName reports whether name can be written without brackets.
func plainName(name string) bool {
	if name == "" || reservedNames[name] || isBinaryWord(name) || typedLiteralNames[name] {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_' || r == '$' && i == 0:
		case r < utf8.RuneSelf && (r|0x20 >= 'a' && r|0x20 <= 'z'):
		case unicode.IsLetter(r):
		case unicode.IsDigit(r) && i > 0:
		case r >= '0' && r <= '9' && i == 0 && startsIdent(name):
		default:
			return false
		}
	}
	return true
}

// quote writes s as a double-quoted KQL string.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u`)
				h := strconv.FormatInt(int64(r), 16)
				b.WriteString(strings.Repeat("0", 4-len(h)) + h)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (f *formatter) literal(l *Literal) {
	switch l.Kind {
	case LitString:
		f.str(quote(l.Value))
	case LitTimespan:
		if l.Null {
			f.str("timespan(null)")
		} else if c, ok := CanonicalTimespan(l.Value); ok {
			f.str(c)
		} else {
			f.str("timespan(" + l.Value + ")")
		}
	case LitDatetime:
		if c, ok := CanonicalDatetime(l.Value); ok {
			f.str("datetime(" + c + ")")
		} else {
			f.str("datetime(" + l.Value + ")")
		}
	case LitGuid:
		f.str("guid(" + l.Value + ")")
	case LitNull:
		f.str("null")
	default:
		if name := typedName(l.Raw); name != "" {
			f.str(name + "(" + l.Value + ")")
		} else {
			f.str(l.Value)
		}
	}
}

// typedName returns the canonical type name of a typed literal's source text
// (int(5) → "int", double(1) → "real"), or "" for a plain literal.
func typedName(raw string) string {
	i := strings.IndexByte(raw, '(')
	if i <= 0 || !isIdentStart(raw[0]) {
		return ""
	}
	switch name := strings.TrimSpace(raw[:i]); name {
	case "double":
		return "real"
	case "boolean":
		return "bool"
	default:
		return name
	}
}

// startsIdent reports whether a name beginning with digits still lexes as an
// identifier (digits followed by a letter or underscore that is not a number suffix).
func startsIdent(name string) bool {
	toks, errs := lex(name)
	return len(errs) == 0 && len(toks) == 2 && toks[0].kind == tIdent
}
