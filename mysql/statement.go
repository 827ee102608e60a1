package mysql

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lexbyte"
	"github.com/qeval/qeval/internal/sqlguard"
)

// The statement check refuses empty queries, several statements and statements that
// are not reads before anything reaches the server. For MySQL and MariaDB it is more
// than a courtesy: DDL (CREATE, DROP, ALTER, RENAME, TRUNCATE) commits implicitly and
// runs even inside a READ ONLY transaction, and SELECT ... INTO OUTFILE writes server
// files; only this check stops them.

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
	"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true,
	"SHOW": true, "DESCRIBE": true, "DESC": true, "EXPLAIN": true,
}

// otherKeywords start MySQL or MariaDB statements that are not reads.
var otherKeywords = map[string]bool{
	"ALTER": true, "ANALYZE": true, "BACKUP": true, "BEGIN": true, "BINLOG": true, "CACHE": true,
	"CALL": true, "CHANGE": true, "CHECK": true, "CHECKSUM": true, "CLONE": true, "COMMIT": true,
	"CREATE": true, "DEALLOCATE": true, "DECLARE": true, "DELETE": true, "DO": true, "DROP": true,
	"END": true, "EXECUTE": true, "FLUSH": true, "GET": true, "GRANT": true, "HANDLER": true,
	"HELP": true, "IMPORT": true, "INSERT": true, "INSTALL": true, "KILL": true, "LOAD": true,
	"LOCK": true, "OPTIMIZE": true, "PREPARE": true, "PURGE": true, "RELEASE": true,
	"RENAME": true, "REPAIR": true, "REPLACE": true, "RESET": true, "RESIGNAL": true,
	"RESTART": true, "REVOKE": true, "ROLLBACK": true, "SAVEPOINT": true, "SET": true,
	"SHUTDOWN": true, "SIGNAL": true, "START": true, "STOP": true, "TRUNCATE": true,
	"UNINSTALL": true, "UNLOCK": true, "UPDATE": true, "USE": true, "XA": true,
}

// mainKeywords can be the statement that follows a WITH clause or an EXPLAIN.
var mainKeywords = map[string]bool{
	"SELECT": true, "VALUES": true, "TABLE": true, "INSERT": true, "UPDATE": true,
	"DELETE": true, "REPLACE": true,
}

// check returns nil when query holds exactly one statement that may be a read, and an
// *qeval.Error (CodeQuery or CodeForbidden) otherwise. end is the byte offset where
// the statement ends (before a trailing semicolon and what follows it).
func check(query string) (end int, err error) {
	if i := strings.IndexByte(query, 0); i >= 0 {
		// The protocol ends the query text at a NUL byte: the server would run only
		// what comes before it.
		line, col := position(query, i)
		return 0, &qeval.Error{Code: qeval.CodeQuery, Line: line, Col: col,
			Message: fmt.Sprintf("query contains a NUL byte at line %d, column %d", line, col)}
	}
	toks := lex(query)
	end = len(query)
	var first []token
	for i, tk := range toks {
		if tk.Kind == tokPunct && tk.Text == ";" {
			if i+1 < len(toks) {
				line, col := position(query, toks[i+1].Pos)
				return 0, &qeval.Error{Code: qeval.CodeQuery, Line: line, Col: col,
					Message: fmt.Sprintf("multiple statements: only one statement may run, found another at line %d, column %d", line, col)}
			}
			end = tk.Pos
			break
		}
		first = append(first, tk)
	}
	if len(first) == 0 {
		return 0, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	if err := checkKeywords(first); err != nil {
		return 0, err
	}
	for i, tk := range first {
		next := token{}
		if i+1 < len(first) {
			next = first[i+1]
		}
		switch {
		case tk.Kind == tokWord && tk.Text == "INTO":
			return 0, forbidden("SELECT ... INTO is not allowed (read-only executor)")
		case tk.Kind == tokPunct && tk.Text == ":" && next.Kind == tokPunct && next.Text == "=" && next.Pos == tk.Pos+1:
			return 0, forbidden("assigning variables with := is not allowed (read-only executor)")
		case (tk.Kind == tokWord || tk.Kind == tokQuoted) && next.Kind == tokPunct && next.Text == "(" &&
			sqlguard.DeniedFunction("mysql", tk.Text):
			return 0, forbidden(fmt.Sprintf("function %s() is not allowed (read-only executor)", strings.ToUpper(tk.Text)))
		}
	}
	return end, nil
}

func checkKeywords(toks []token) error {
	return sqlguard.CheckKeywords(toks, sqlguard.Keywords{Read: readKeywords, Other: otherKeywords, Main: mainKeywords})
}

func forbidden(msg string) error { return sqlguard.Forbidden(msg) }

// lex splits query into tokens, following MySQL's rules: # and "-- " line comments,
// block comments, executable comments (/*! ... */ and MariaDB's /*M! ... */, whose
// text is code), strings in single or double quotes with backslash escapes, and
// backquoted identifiers. It never fails: an unterminated literal or comment runs to
// the end, and the server reports it.
func lex(s string) []token {
	var toks []token
	depth := 0
	inExec := false // inside an executable comment
	i, n := 0, len(s)
	for i < n {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case c == '#', c == '-' && i+1 < n && s[i+1] == '-' && (i+2 == n || s[i+2] <= ' '):
			for i < n && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && s[i+1] == '*':
			j := i + 2
			if j < n && s[j] == 'M' && j+1 < n && s[j+1] == '!' {
				j++
			}
			if j < n && s[j] == '!' {
				// Executable comment: skip the marker and the version number.
				j++
				for j < n && '0' <= s[j] && s[j] <= '9' {
					j++
				}
				inExec = true
				i = j
				continue
			}
			if k := strings.Index(s[i+2:], "*/"); k >= 0 {
				i += 2 + k + 2
			} else {
				i = n
			}
		case c == '*' && inExec && i+1 < n && s[i+1] == '/':
			inExec = false
			i += 2
		case c == '\'' || c == '"':
			toks = append(toks, token{Kind: tokString, Pos: i, Depth: depth})
			i = skipString(s, i, c)
		case c == '`':
			j := skipQuoted(s, i, '`')
			toks = append(toks, token{Kind: tokQuoted, Text: unquote(s[i:j], '`'), Pos: i, Depth: depth})
			i = j
		case isWordByte(c):
			j := i
			for j < n && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, token{Kind: tokWord, Text: strings.ToUpper(s[i:j]), Pos: i, Depth: depth})
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

// isWordByte: MySQL's bare names may also hold $.
func isWordByte(c byte) bool { return c == '$' || lexbyte.IsWord(c) }

// skipString returns the offset after the string literal whose quote q is at i:
// backslash escapes and doubled quotes stay inside.
func skipString(s string, i int, q byte) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
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
