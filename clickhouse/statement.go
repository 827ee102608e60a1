package clickhouse

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// writeWords start the statements that are not reads. The server refuses them all under
// readonly=1 (or does not know them: UPDATE and DELETE are ALTER … in ClickHouse); the
// executor refuses them first so that the error names the statement.
var writeWords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "CREATE": true, "DROP": true, "ALTER": true, "ATTACH": true,
	"DETACH": true, "RENAME": true, "TRUNCATE": true, "OPTIMIZE": true, "SYSTEM": true, "KILL": true, "SET": true,
	"USE": true, "GRANT": true, "REVOKE": true, "REPLACE": true, "EXCHANGE": true, "UNDROP": true, "BACKUP": true,
	"RESTORE": true, "MOVE": true, "CHECK": true, "WATCH": true,
}

// showWords may follow SHOW: the statements that list the database's own objects. SHOW
// PROCESSLIST (every session's query), and on newer servers SHOW USERS, GRANTS, ACCESS
// and the like, are refused.
var showWords = map[string]bool{
	"TABLES": true, "DATABASES": true, "CREATE": true, "COLUMNS": true, "DICTIONARIES": true, "TEMPORARY": true,
}

// systemTables are the tables of the system database a generated query may read: they
// make numbers and hold nothing of the server's. Every other system table is refused
// whatever the user may read: on 18.16 every user reads all of them, and
// system.processes shows other sessions' queries (other clients' gold queries), as
// system.query_log does.
var systemTables = map[string]bool{"one": true, "numbers": true, "numbers_mt": true, "zeros": true, "zeros_mt": true}

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tokWord   tokKind = iota // keyword, bare identifier or number
	tokQuoted                // quoted identifier (`x` or "x"), unescaped
	tokString                // string literal
	tokPunct                 // one character of punctuation or operator
)

type token struct {
	kind tokKind
	text string // bare words as written; quoted identifiers unescaped
}

// checkStatement refuses a statement whose first word starts a write, SHOW PROCESSLIST
// and its like, and any reference to a system table other than those of systemTables.
// Anything else goes to the server.
func checkStatement(q string) error {
	toks, err := lex(q)
	if err != nil {
		return err
	}
	i := 0
	for i < len(toks) && toks[i].kind == tokPunct && toks[i].text == "(" {
		i++
	}
	if i < len(toks) && toks[i].kind == tokWord {
		w := strings.ToUpper(toks[i].text)
		if writeWords[w] {
			return forbidden(w + " is not allowed (read-only executor)")
		}
		if w == "SHOW" && i+1 < len(toks) && !showWords[strings.ToUpper(toks[i+1].text)] {
			return forbidden("SHOW " + strings.ToUpper(toks[i+1].text) + " is not allowed: generated queries read the evaluation database only")
		}
	}
	for j, tk := range toks {
		if (tk.kind != tokWord && tk.kind != tokQuoted) || !strings.EqualFold(tk.text, "system") ||
			j+1 == len(toks) || toks[j+1].kind != tokPunct || toks[j+1].text != "." {
			continue
		}
		if j+2 < len(toks) && (toks[j+2].kind == tokWord || toks[j+2].kind == tokQuoted) && systemTables[strings.ToLower(toks[j+2].text)] {
			continue
		}
		name := "system."
		if j+2 < len(toks) {
			name += toks[j+2].text
		}
		return forbidden("table " + name + " is a system table that generated queries may not read")
	}
	return nil
}

func forbidden(msg string) error {
	return &qeval.Error{Code: qeval.CodeForbidden, Message: "forbidden: " + msg}
}

// lex splits q into tokens as the server reads it: -- and # line comments, /* */ block
// comments, 'strings', `identifiers` and "identifiers" with backslash escapes and
// doubled quotes, and $tag$ heredoc strings. A block comment inside a block comment is
// refused: newer servers nest them and 18.16 does not, so the two would read different
// statements out of one text.
func lex(q string) ([]token, error) {
	var toks []token
	i, n := 0, len(q)
	for i < n {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || c == '-' && i+1 < n && q[i+1] == '-':
			for i < n && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			body := q[i+2:]
			if end >= 0 {
				body = q[i+2 : i+2+end]
			}
			if strings.Contains(body, "/*") {
				return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "a comment inside a comment (/* /* */ */): servers read it differently, write one comment"}
			}
			if end < 0 {
				return toks, nil
			}
			i += end + 4
		case c == '\'' || c == '"' || c == '`':
			text, next := unquote(q, i)
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind: kind, text: text})
			i = next
		case c == '$':
			j := i + 1
			for j < n && isWordByte(q[j]) {
				j++
			}
			if j < n && q[j] == '$' {
				tag := q[i : j+1]
				end := strings.Index(q[j+1:], tag)
				toks = append(toks, token{kind: tokString})
				if end < 0 {
					return toks, nil
				}
				i = j + 1 + end + len(tag)
				continue
			}
			toks = append(toks, token{kind: tokPunct, text: "$"})
			i++
		case isWordByte(c):
			j := i
			for j < n && isWordByte(q[j]) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: q[i:j]})
			i = j
		default:
			toks = append(toks, token{kind: tokPunct, text: q[i : i+1]})
			i++
		}
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// unquote reads the quoted text that starts at q[i] (its quote character) as the server
// does: a backslash escapes the next character (\x41 is A, \n a newline, \q a q), and a
// doubled quote is one quote. It returns the text and the index after the closing quote
// (or the end of q).
func unquote(q string, i int) (string, int) {
	quote := q[i]
	var b strings.Builder
	j := i + 1
	for j < len(q) {
		c := q[j]
		switch {
		case c == '\\' && j+1 < len(q):
			e := q[j+1]
			j += 2
			switch e {
			case 'x', 'X':
				if j+2 <= len(q) {
					if v, err := strconv.ParseUint(q[j:j+2], 16, 8); err == nil {
						b.WriteByte(byte(v))
						j += 2
						continue
					}
				}
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case 'a':
				b.WriteByte('\a')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(e)
			}
		case c == quote && j+1 < len(q) && q[j+1] == quote:
			b.WriteByte(quote)
			j += 2
		case c == quote:
			return b.String(), j + 1
		default:
			b.WriteByte(c)
			j++
		}
	}
	return b.String(), j
}
