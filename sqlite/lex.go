package sqlite

// firstStatement splits query after its first statement, following SQLite's lexical
// rules for strings, quoted identifiers and comments. It returns the first statement
// without its terminating semicolon, and the byte offset of the first token after it
// (-1 when nothing but whitespace and comments follows). A tail of a lone ";" counts
// as another statement, as it does for Python's sqlite3 (the official Spider evaluator).
func firstStatement(query string) (stmt string, next int) {
	i, n := 0, len(query)
	for i < n {
		switch c := query[i]; c {
		case '\'', '"', '`':
			i = skipQuoted(query, i, c)
		case '[':
			i = skipUntil(query, i+1, ']')
		case '-':
			if i+1 < n && query[i+1] == '-' {
				i = skipLineComment(query, i)
			} else {
				i++
			}
		case '/':
			if i+1 < n && query[i+1] == '*' {
				i = skipBlockComment(query, i)
			} else {
				i++
			}
		case ';':
			return query[:i], nextToken(query, i+1)
		default:
			i++
		}
	}
	return query, -1
}

// nextToken returns the offset of the first byte at or after i that is not
// whitespace or inside a comment, or -1.
func nextToken(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			i++
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				i = skipLineComment(s, i)
				continue
			}
			return i
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				i = skipBlockComment(s, i)
				continue
			}
			return i
		default:
			return i
		}
	}
	return -1
}

// isBlank reports whether s holds only whitespace and comments.
func isBlank(s string) bool { return nextToken(s, 0) < 0 }

func skipQuoted(s string, i int, q byte) int {
	for i++; i < len(s); i++ {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

func skipUntil(s string, i int, c byte) int {
	for ; i < len(s); i++ {
		if s[i] == c {
			return i + 1
		}
	}
	return len(s)
}

func skipLineComment(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '\n' {
			return i + 1
		}
	}
	return len(s)
}

func skipBlockComment(s string, i int) int {
	for i += 2; i+1 < len(s); i++ {
		if s[i] == '*' && s[i+1] == '/' {
			return i + 2
		}
	}
	return len(s)
}

// position returns the 1-based line and column of byte offset off in s.
func position(s string, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(s); i++ {
		if s[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
