package kql

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qeval/qeval/internal/lexbyte"
)

// lexer turns source text into tokens. It never fails: unreadable input becomes a tBad
// token, and lexErrs records why, so the parser can report it with a position.
type lexer struct {
	src     string
	i       int
	toks    []token
	lexErrs []lexErr
}

type lexErr struct {
	pos Pos
	msg string
}

// lex returns the tokens of src, ending with a tEOF token, and the lexical errors.
func lex(src string) ([]token, []lexErr) {
	lx := lexer{src: src, toks: make([]token, 0, len(src)/4+8)}
	for {
		lx.skipSpace()
		if lx.i >= len(src) {
			lx.toks = append(lx.toks, token{kind: tEOF, pos: Pos(len(src)), end: Pos(len(src))})
			return lx.toks, lx.lexErrs
		}
		lx.next()
	}
}

func (lx *lexer) skipSpace() {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.i++
		case c == '/' && lx.i+1 < len(lx.src) && lx.src[lx.i+1] == '/':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.i++
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(lx.src[lx.i:])
			if !unicode.IsSpace(r) && r != '\uFEFF' {
				return
			}
			lx.i += n
		default:
			return
		}
	}
}

func (lx *lexer) emit(k tokKind, start int, val string) {
	lx.toks = append(lx.toks, token{kind: k, pos: Pos(start), end: Pos(lx.i), text: lx.src[start:lx.i], val: val})
}

func (lx *lexer) fail(start int, msg string) {
	lx.lexErrs = append(lx.lexErrs, lexErr{Pos(start), msg})
	lx.emit(tBad, start, msg)
}

func (lx *lexer) peekByte(k int) byte {
	if lx.i+k < len(lx.src) {
		return lx.src[lx.i+k]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// identEnd returns the end of the identifier starting at i (ASCII fast path, Unicode
// letters and digits allowed).
func (lx *lexer) identEnd(i int) int {
	for i < len(lx.src) {
		c := lx.src[i]
		if lexbyte.IsASCIIWord(c) {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(lx.src[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				i += n
				continue
			}
		}
		break
	}
	return i
}

func (lx *lexer) next() {
	start := lx.i
	c := lx.src[lx.i]
	switch {
	case (isHex(c) || c >= utf8.RuneSelf) && lx.rawGuid():
	case isDigit(c) || (c == '.' && isDigit(lx.peekByte(1)) && !lx.afterOperand()):
		lx.number()
	case c == '\'' || c == '"':
		lx.quoted(start, start, false)
	case c == '@' && (lx.peekByte(1) == '\'' || lx.peekByte(1) == '"'):
		lx.quoted(start, start+1, true)
	case (c == 'h' || c == 'H') && (lx.peekByte(1) == '\'' || lx.peekByte(1) == '"'):
		lx.quoted(start, start+1, false)
	case (c == 'h' || c == 'H') && lx.peekByte(1) == '@' && (lx.peekByte(2) == '\'' || lx.peekByte(2) == '"'):
		lx.quoted(start, start+2, true)
	case c == '`' && strings.HasPrefix(lx.src[lx.i:], "```"), c == '~' && strings.HasPrefix(lx.src[lx.i:], "~~~"):
		lx.multiline(start)
	case c == '#':
		end := strings.IndexByte(lx.src[start:], '\n')
		if end < 0 {
			end = len(lx.src) - start
		}
		lx.i = start + end
		lx.emit(tDirective, start, "")
		lx.toks[len(lx.toks)-1].text = strings.TrimRight(lx.src[start:lx.i], "\r")
	case isIdentStart(c) || c >= utf8.RuneSelf:
		lx.ident(start)
	case c == '!' && isIdentStart(lx.peekByte(1)) && lx.peekByte(1) != '$':
		end := lx.identEnd(lx.i + 1)
		if end < len(lx.src) && lx.src[end] == '~' {
			end++
		}
		lx.i = end
		lx.emit(tWordOp, start, "")
	default:
		lx.punct(start)
	}
}

// afterOperand reports whether the previous token ends an operand, so that ".5" after
// it is member access rather than a number (x.5 is not valid, but a.b.5 should not lex
// as a real either).
func (lx *lexer) afterOperand() bool {
	if len(lx.toks) == 0 {
		return false
	}
	t := lx.toks[len(lx.toks)-1]
	if t.end != Pos(lx.i) {
		return false
	}
	return t.kind == tIdent || (t.kind == tPunct && (t.text == ")" || t.text == "]"))
}

func (lx *lexer) ident(start int) {
	first := 1
	if lx.src[start] >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(lx.src[start:])
		if !unicode.IsLetter(r) {
			lx.i += n
			lx.fail(start, "unexpected character "+quoteRune(r))
			return
		}
		first = n
	}
	end := lx.identEnd(start + first)
	lx.i = end
	word := lx.src[start:end]
	if word == "in" && lx.i < len(lx.src) && lx.src[lx.i] == '~' {
		lx.i++
		lx.emit(tWordOp, start, "")
		return
	}
	if typedLiteralNames[word] {
		j := lx.i
		for j < len(lx.src) && (lx.src[j] == ' ' || lx.src[j] == '\t') {
			j++
		}
		if j < len(lx.src) && lx.src[j] == '(' {
			lx.typed(start, word, j)
			return
		}
	}
	lx.emit(tIdent, start, "")
}

// typed reads a typed literal such as datetime(2017-01-01 10:00) whose contents are raw
// text up to the closing parenthesis; quotes inside are honoured.
func (lx *lexer) typed(start int, typ string, open int) {
	j := open + 1
	for j < len(lx.src) {
		c := lx.src[j]
		if c == ')' {
			lx.i = j + 1
			t := token{kind: tTyped, pos: Pos(start), end: Pos(lx.i), text: lx.src[start:lx.i], val: typ,
				aux: strings.TrimSpace(lx.src[open+1 : j])}
			lx.toks = append(lx.toks, t)
			return
		}
		if c == '\'' || c == '"' {
			k := strings.IndexByte(lx.src[j+1:], c)
			if k < 0 {
				break
			}
			j += k + 2
			continue
		}
		if c == '\n' || c == '(' || c == '|' || c == ';' {
			break
		}
		j++
	}
	lx.i = open + 1
	lx.fail(start, "unterminated "+typ+" literal")
}

func (lx *lexer) number() {
	start := lx.i
	src := lx.src
	if src[lx.i] == '0' && (lx.peekByte(1) == 'x' || lx.peekByte(1) == 'X') {
		lx.i += 2
		for lx.i < len(src) && isHex(src[lx.i]) {
			lx.i++
		}
		lx.finishNumber(start, tLong)
		return
	}
	kind := tLong
	for lx.i < len(src) && isDigit(src[lx.i]) {
		lx.i++
	}
	if lx.i < len(src) && src[lx.i] == '.' {
		switch next := lx.peekByte(1); {
		case isDigit(next):
			kind = tReal
			lx.i++
			for lx.i < len(src) && isDigit(src[lx.i]) {
				lx.i++
			}
		case next != '.' && !isIdentStart(next) && next < utf8.RuneSelf:
			kind = tReal // "0." is a real
			lx.i++
		}
	}
	if lx.i < len(src) && (src[lx.i] == 'e' || src[lx.i] == 'E') {
		j := lx.i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j >= len(src) || !lexbyte.IsASCIIWord(src[j]) {
				lx.i = j
				kind = tReal
			}
		}
	}
	lx.finishNumber(start, kind)
}

// finishNumber reads a time-unit suffix if there is one and emits the number.
func (lx *lexer) finishNumber(start int, kind tokKind) {
	if lx.i < len(lx.src) && lexbyte.IsASCIIWord(lx.src[lx.i]) {
		end := lx.identEnd(lx.i)
		unit := lx.src[lx.i:end]
		hex := lx.i-start > 1 && (lx.src[start+1] == 'x' || lx.src[start+1] == 'X')
		if _, ok := timespanUnits[unit]; ok && !hex {
			lx.i = end
			lx.emit(tTimespan, start, unit)
			return
		}
		// Digits followed by letters form an identifier (5MinuteBin), as in Kusto.
		if !hex && kind == tLong {
			lx.i = end
			lx.emit(tIdent, start, "")
			return
		}
		lx.i = end
		lx.fail(start, "malformed number "+quoteText(lx.src[start:end]))
		return
	}
	lx.emit(kind, start, "")
}

// rawGuid reads an unquoted GUID (8-4-4-4-12 hex digits) as a guid literal.
func (lx *lexer) rawGuid() bool {
	const n = 36
	if lx.i+n > len(lx.src) {
		return false
	}
	g := lx.src[lx.i : lx.i+n]
	for k := 0; k < n; k++ {
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if g[k] != '-' {
				return false
			}
		} else if !isHex(g[k]) {
			return false
		}
	}
	if lx.i+n < len(lx.src) && lexbyte.IsASCIIWord(lx.src[lx.i+n]) {
		return false
	}
	start := lx.i
	lx.i += n
	lx.toks = append(lx.toks, token{kind: tTyped, pos: Pos(start), end: Pos(lx.i), text: g, val: "guid", aux: g})
	return true
}

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

// quoted reads '...' or "..." starting with the quote at q. verbatim strings (@'...')
// have no escapes and double the quote to include it. Ordinary strings end at a line
// break if unterminated, so one bad quote does not swallow the rest of the script.
func (lx *lexer) quoted(start, q int, verbatim bool) {
	quote := lx.src[q]
	src := lx.src
	j := q + 1
	var b *strings.Builder
	seg := j
	for j < len(src) {
		c := src[j]
		if c == quote {
			if verbatim && j+1 < len(src) && src[j+1] == quote {
				if b == nil {
					b = &strings.Builder{}
				}
				b.WriteString(src[seg : j+1])
				j += 2
				seg = j
				continue
			}
			lx.i = j + 1
			val := src[seg:j]
			if b != nil {
				b.WriteString(val)
				val = b.String()
			}
			lx.emit(tString, start, val)
			return
		}
		if c == '\n' {
			break
		}
		if c == '\\' && !verbatim {
			if b == nil {
				b = &strings.Builder{}
			}
			b.WriteString(src[seg:j])
			n := unescape(b, src, j)
			j += n
			seg = j
			continue
		}
		j++
	}
	lx.i = j
	lx.fail(start, "unterminated string literal")
}

// unescape writes the character the escape sequence at src[j] (a backslash) stands for
// and returns the length of the sequence.
func unescape(b *strings.Builder, src string, j int) int {
	if j+1 >= len(src) {
		b.WriteByte('\\')
		return 1
	}
	switch c := src[j+1]; c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case 'u', 'x':
		n := 4
		if c == 'x' {
			n = 2
		}
		if j+2+n <= len(src) {
			var r rune
			ok := true
			for _, h := range []byte(src[j+2 : j+2+n]) {
				if !isHex(h) {
					ok = false
					break
				}
				r = r*16 + rune(hexVal(h))
			}
			if ok {
				b.WriteRune(r)
				return 2 + n
			}
		}
		b.WriteByte(c)
	case '\n':
		b.WriteByte('\\')
		return 1
	default:
		b.WriteByte(c)
	}
	return 2
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	default:
		return c | 0x20 - 'a' + 10
	}
}

// multiline reads a ``` or ~~~ string, which may span lines and has no escapes.
func (lx *lexer) multiline(start int) {
	fence := lx.src[start : start+3]
	k := strings.Index(lx.src[start+3:], fence)
	if k < 0 {
		lx.i = len(lx.src)
		lx.fail(start, "unterminated multi-line string literal")
		return
	}
	lx.i = start + 3 + k + 3
	lx.emit(tString, start, lx.src[start+3:start+3+k])
}

// punct reads a symbolic token: the two-character ones first (==, !=, <>, <=, >=, =~,
// !~, =>, ..), then single characters.
func (lx *lexer) punct(start int) {
	c := lx.src[lx.i]
	if lx.i+1 < len(lx.src) {
		d := lx.src[lx.i+1]
		two := false
		switch c {
		case '=':
			two = d == '=' || d == '~' || d == '>'
		case '!':
			two = d == '=' || d == '~'
		case '<':
			two = d == '>' || d == '='
		case '>':
			two = d == '='
		case '.':
			two = d == '.'
		}
		if two {
			lx.i += 2
			lx.emit(tPunct, start, "")
			return
		}
	}
	switch c {
	case '|', '(', ')', '[', ']', '{', '}', ',', ';', ':', '.', '=', '<', '>',
		'+', '-', '*', '/', '%', '?', '@', '!', '~', '#', '&', '^':
		lx.i++
		lx.emit(tPunct, start, "")
		return
	}
	r, n := utf8.DecodeRuneInString(lx.src[lx.i:])
	lx.i += n
	lx.fail(start, "unexpected character "+quoteRune(r))
}

func quoteRune(r rune) string {
	if r == utf8.RuneError {
		return "(invalid UTF-8)"
	}
	return "'" + string(r) + "'"
}

func quoteText(s string) string { return "\"" + s + "\"" }
