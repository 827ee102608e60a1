package postgres

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lexbyte"
	"github.com/qeval/qeval/internal/sqlguard"
)

// The statement check is the first line of defence: it refuses empty queries, several
// statements and statements that are not reads, with a message a person can act on,
// before anything reaches the server. The read-only transaction is the real guard.

// The lexer's tokens are sqlguard's, which the two server executors share.
type token = sqlguard.Token

const (
	tokWord   = sqlguard.Word
	tokQuoted = sqlguard.Quoted
	tokString = sqlguard.String
	tokPunct  = sqlguard.Punct
)

// readKeywords may start a statement the executor runs.
var readKeywords = map[string]bool{
	"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "SHOW": true, "EXPLAIN": true,
}

// otherKeywords start PostgreSQL statements that are not reads.
var otherKeywords = map[string]bool{
	"ABORT": true, "ALTER": true, "ANALYZE": true, "ANALYSE": true, "BEGIN": true, "CALL": true,
	"CHECKPOINT": true, "CLOSE": true, "CLUSTER": true, "COMMENT": true, "COMMIT": true,
	"COPY": true, "CREATE": true, "DEALLOCATE": true, "DECLARE": true, "DELETE": true,
	"DISCARD": true, "DO": true, "DROP": true, "END": true, "EXECUTE": true, "FETCH": true,
	"GRANT": true, "IMPORT": true, "INSERT": true, "LISTEN": true, "LOAD": true, "LOCK": true,
	"MERGE": true, "MOVE": true, "NOTIFY": true, "PREPARE": true, "REASSIGN": true,
	"REFRESH": true, "REINDEX": true, "RELEASE": true, "RESET": true, "REVOKE": true,
	"ROLLBACK": true, "SAVEPOINT": true, "SECURITY": true, "SET": true, "START": true,
	"TRUNCATE": true, "UNLISTEN": true, "UPDATE": true, "VACUUM": true,
}

// mainKeywords can be the statement that follows a WITH clause or an EXPLAIN.
var mainKeywords = map[string]bool{
	"SELECT": true, "VALUES": true, "TABLE": true, "INSERT": true, "UPDATE": true,
	"DELETE": true, "MERGE": true, "CREATE": true, "EXECUTE": true, "DECLARE": true,
}

func deniedFunction(name string) bool { return sqlguard.DeniedFunction("postgres", name) }

// check returns nil when query holds exactly one statement that may be a read, and an
// *qeval.Error (CodeQuery or CodeForbidden) otherwise.
func check(query string) error {
	if i := strings.IndexByte(query, 0); i >= 0 {
		// The protocol ends the query text at a NUL byte: the server would run only
		// what comes before it.
		line, col := position(query, i)
		return &qeval.Error{Code: qeval.CodeQuery, Line: line, Col: col,
			Message: fmt.Sprintf("query contains a NUL byte at line %d, column %d", line, col)}
	}
	toks := lex(query)
	var first []token
	for i, tk := range toks {
		if tk.Kind == tokPunct && tk.Text == ";" {
			if i+1 < len(toks) {
				line, col := position(query, toks[i+1].Pos)
				return &qeval.Error{Code: qeval.CodeQuery, Line: line, Col: col,
					Message: fmt.Sprintf("multiple statements: only one statement may run, found another at line %d, column %d", line, col)}
			}
			break
		}
		first = append(first, tk)
	}
	if len(first) == 0 {
		return &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	if err := checkKeywords(first); err != nil {
		return err
	}
	for i, tk := range first {
		if (tk.Kind == tokWord || tk.Kind == tokQuoted) && i+1 < len(first) &&
			first[i+1].Kind == tokPunct && first[i+1].Text == "(" && deniedFunction(tk.Text) {
			return forbidden(fmt.Sprintf("function %s() is not allowed (read-only executor)", strings.ToLower(tk.Text)))
		}
	}
	return nil
}

func checkKeywords(toks []token) error {
	return sqlguard.CheckKeywords(toks, sqlguard.Keywords{Read: readKeywords, Other: otherKeywords, Main: mainKeywords})
}

func forbidden(msg string) error { return sqlguard.Forbidden(msg) }

// lex splits query into tokens, following PostgreSQL's rules for comments (nested
// block comments), string literals (standard, E'...' escape strings, dollar quotes) and
// quoted identifiers. It never fails: an unterminated literal or comment runs to the
// end, and the server reports it.
func lex(s string) []token {
	var toks []token
	depth := 0
	i, n := 0, len(s)
	for i < n {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case c == '-' && i+1 < n && s[i+1] == '-':
			for i < n && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && s[i+1] == '*':
			i = skipBlockComment(s, i)
		case c == '\'':
			toks = append(toks, token{Kind: tokString, Pos: i, Depth: depth})
			i = skipString(s, i, false)
		case c == '"':
			j := skipQuoted(s, i, '"')
			toks = append(toks, token{Kind: tokQuoted, Text: unquote(s[i:j], '"'), Pos: i, Depth: depth})
			i = j
		case c == '$' && dollarTag(s, i) > 0:
			toks = append(toks, token{Kind: tokString, Pos: i, Depth: depth})
			i = skipDollar(s, i, dollarTag(s, i))
		case lexbyte.IsWord(c):
			j := i
			for j < n && (lexbyte.IsWord(s[j]) || s[j] == '$') {
				j++
			}
			w := s[i:j]
			if (w == "E" || w == "e") && j < n && s[j] == '\'' {
				toks = append(toks, token{Kind: tokString, Pos: i, Depth: depth})
				i = skipString(s, j, true)
				continue
			}
			toks = append(toks, token{Kind: tokWord, Text: strings.ToUpper(w), Pos: i, Depth: depth})
			i = j
		default:
			if c == ')' && depth > 0 {
				depth--
			}
			toks = append(toks, token{Kind: tokPunct, Text: string(c), Pos: i, Depth: depth})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	return toks
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skipBlockComment returns the offset after the (nested) block comment at i.
func skipBlockComment(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch {
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			depth++
			i += 2
		case s[i] == '*' && i+1 < len(s) && s[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipString returns the offset after the string literal whose quote is at i.
// Doubled quotes stay inside; backslash escapes only in E'...' strings.
func skipString(s string, i int, backslash bool) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if backslash {
				i++
			}
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return i
}

// skipQuoted returns the offset after the quoted identifier whose quote q is at i.
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
	return i
}

// unquote strips the quotes of a quoted identifier and undoubles inner quotes.
func unquote(s string, q byte) string {
	if len(s) >= 2 && s[len(s)-1] == q {
		s = s[1 : len(s)-1]
	} else if len(s) >= 1 {
		s = s[1:]
	}
	return strings.ReplaceAll(s, string([]byte{q, q}), string(q))
}

// dollarTag returns the length of the dollar-quote opener ($$ or $tag$) at i, or 0.
func dollarTag(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != '$' {
		c := s[j]
		if !(c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (j > i+1 && '0' <= c && c <= '9')) {
			return 0
		}
		j++
	}
	if j >= len(s) {
		return 0
	}
	return j + 1 - i
}

// skipDollar returns the offset after the dollar-quoted string at i.
func skipDollar(s string, i, tagLen int) int {
	tag := s[i : i+tagLen]
	if k := strings.Index(s[i+tagLen:], tag); k >= 0 {
		return i + tagLen + k + tagLen
	}
	return len(s)
}

// position turns a byte offset of query into a 1-based line and column (in
// characters).
func position(query string, off int) (line, col int) {
	line, col = 1, 1
	for i, r := range query {
		if i >= off {
			break
		}
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
