package sqlparse

import "strings"

// Piece is one statement of a text as the lexer sees it, before any parsing.
type Piece struct {
	Text string
	// Line and Col are where its first token starts (1-based).
	Line, Col int
	// Keyword is its first word in lower case ("select", "attach", ...), "" when it
	// starts with something else (a parenthesis, say).
	Keyword string
}

type start struct{ line, col int }

// Split cuts sql into statements at the semicolons outside strings, quoted names and
// comments, by the quoting rules of the dialect. Empty statements are dropped. It never
// fails: an unterminated string runs to the end of the text.
func Split(dialect, sql string) []Piece {
	d, err := normDialect(dialect)
	if err != nil {
		d = SQLite
	}
	var out []Piece
	line, col := 1, 1
	first := -1 // byte offset of the statement's first token
	var fl, fc int
	flush := func(end int) {
		if first >= 0 {
			text := strings.TrimSpace(sql[first:end])
			out = append(out, Piece{Text: text, Line: fl, Col: fc, Keyword: leadingWord(text)})
		}
		first = -1
	}
	advance := func(i, j int) { // move the position over sql[i:j]
		for k := i; k < j; k++ {
			if sql[k] == '\n' {
				line, col = line+1, 1
			} else if sql[k]&0xC0 != 0x80 {
				col++
			}
		}
	}
	for i := 0; i < len(sql); {
		c := sql[i]
		j := i + 1
		token := true
		switch {
		case c == ';':
			flush(i)
			token = false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			token = false
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#' && d == MySQL:
			j = indexFrom(sql, i, "\n", 0)
			token = false
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j = indexFrom(sql, i+2, "*/", 2)
			token = false
		case c == '\'':
			j = skipQuoted(sql, i, '\'', d == MySQL)
		case c == '"':
			j = skipQuoted(sql, i, '"', d == MySQL)
		case c == '`' && d != Postgres:
			j = skipQuoted(sql, i, '`', false)
		case c == '[' && d == SQLite:
			j = indexFrom(sql, i+1, "]", 1)
		case c == '$' && d == Postgres:
			j = skipDollar(sql, i)
		}
		if token && first < 0 {
			first, fl, fc = i, line, col
		}
		advance(i, j)
		i = j
	}
	flush(len(sql))
	return out
}

func splitStatements(dialect, sql string) []start {
	pieces := Split(dialect, sql)
	out := make([]start, len(pieces))
	for i, p := range pieces {
		out[i] = start{p.Line, p.Col}
	}
	return out
}

// indexFrom returns the offset just past the first sep at or after i (plus extra
// bytes of sep), or len(s) when there is none.
func indexFrom(s string, i int, sep string, extra int) int {
	k := strings.Index(s[i:], sep)
	if k < 0 {
		return len(s)
	}
	return i + k + extra
}

// skipQuoted returns the offset just past the quoted run starting at s[i] == q; a
// doubled quote is an escaped one, and so is a backslash escape where allowed.
func skipQuoted(s string, i int, q byte, backslash bool) int {
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			if backslash {
				k++
			}
		case q:
			if k+1 < len(s) && s[k+1] == q {
				k++
				continue
			}
			return k + 1
		}
	}
	return len(s)
}

// skipDollar skips a PostgreSQL dollar-quoted string $tag$...$tag$; a lone $ (as in
// $1) is one byte.
func skipDollar(s string, i int) int {
	k := i + 1
	for k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || k > i+1 && s[k] >= '0' && s[k] <= '9') {
		k++
	}
	if k >= len(s) || s[k] != '$' {
		return i + 1
	}
	tag := s[i : k+1]
	end := strings.Index(s[k+1:], tag)
	if end < 0 {
		return len(s)
	}
	return k + 1 + end + len(tag)
}

func leadingWord(text string) string {
	k := 0
	for k < len(text) && (text[k] == '_' || text[k] >= 'a' && text[k] <= 'z' || text[k] >= 'A' && text[k] <= 'Z') {
		k++
	}
	return strings.ToLower(text[:k])
}

// Statements is Split with the body of a trigger kept in its statement: SQLite and
// MySQL write CREATE TRIGGER … BEGIN stmt; stmt; END, whose inner semicolons do not
// end it. The statements of a body are joined with ";\n".
func Statements(dialect, sql string) []Piece {
	pieces := Split(dialect, sql)
	out := pieces[:0]
	for i := 0; i < len(pieces); i++ {
		p := pieces[i]
		if p.Keyword == "create" && opensTriggerBody(p.Text) {
			for i+1 < len(pieces) {
				i++
				p.Text += ";\n" + pieces[i].Text
				if strings.EqualFold(strings.TrimSpace(pieces[i].Text), "end") {
					break
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// opensTriggerBody reports whether a CREATE statement is a trigger whose body (BEGIN …)
// goes on past its first semicolon.
func opensTriggerBody(text string) bool {
	words := strings.Fields(strings.ToLower(text))
	trigger, begin := -1, -1
	for i, w := range words {
		if w == "trigger" && trigger < 0 && i < 6 {
			trigger = i
		}
		if w == "begin" && trigger >= 0 {
			begin = i
			break
		}
	}
	return begin > 0
}
