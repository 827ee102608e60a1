package sqlparse

import "strings"

// sqliteFixup prepares text for the rqlite grammar, which lacks two things of SQLite's:
// it does not know [bracketed] names (SQL Server style, which SQLite accepts and models
// write), and it accepts "(a" without the closing parenthesis. Brackets become double
// quotes, which keeps every offset; unbalanced parentheses are a syntax error here.
func sqliteFixup(text string) (string, error) {
	var b []byte // copy on first change
	depth := 0
	var open []int // offsets of the unclosed '('
	for i := 0; i < len(text); {
		c := text[i]
		j := i + 1
		switch {
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j = indexFrom(text, i, "\n", 0)
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j = indexFrom(text, i+2, "*/", 2)
		case c == '\'' || c == '"' || c == '`':
			j = skipQuoted(text, i, c, false)
		case c == '[':
			k := strings.IndexByte(text[i+1:], ']')
			if k >= 0 && !strings.ContainsAny(text[i+1:i+1+k], "\"\n") {
				if b == nil {
					b = []byte(text)
				}
				b[i], b[i+1+k] = '"', '"'
				j = i + 2 + k
			}
		case c == '(':
			depth++
			open = append(open, i)
		case c == ')':
			if depth == 0 {
				line, col := newLineIndex(text).pos(i)
				return "", syntaxError("unexpected ')'", line, col)
			}
			depth--
			open = open[:len(open)-1]
		case c == ';':
			if depth > 0 {
				line, col := newLineIndex(text).pos(open[len(open)-1])
				return "", syntaxError("'(' is never closed", line, col)
			}
		}
		i = j
	}
	if depth > 0 {
		line, col := newLineIndex(text).pos(open[len(open)-1])
		return "", syntaxError("'(' is never closed", line, col)
	}
	if b != nil {
		return string(b), nil
	}
	return text, nil
}
