package compare

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// spiderRewrite applies the official evaluator's clean-ups, in its order:
//  1. in the prediction, every "value" becomes "1" (a plain, case-sensitive text
//     replacement, also inside identifiers and strings: the evaluator's placeholder);
//  2. in both, "> =", "< =" and "! =" lose their inner space;
//  3. unless KeepDistinct, the token DISTINCT (any case) is removed from both, where the
//     evaluator's tokenizer (sqlparse) sees it as a token of its own;
//  4. at execution, YEAR(CURDATE()) becomes 2020 in both.
func spiderRewrite(gold, pred string, o Options) (string, string) {
	pred = strings.ReplaceAll(pred, "value", "1")
	gold, pred = fixOperators(gold), fixOperators(pred)
	if !o.KeepDistinct {
		gold, pred = RemoveDistinct(gold), RemoveDistinct(pred)
	}
	return ReplaceCurYear(gold), ReplaceCurYear(pred)
}

var operatorFix = strings.NewReplacer("> =", ">=", "< =", "<=", "! =", "!=")

func fixOperators(q string) string {
	if !strings.Contains(q, " =") {
		return q
	}
	// The official code replaces the three pairs one after another; a chained
	// replacer is the same, as no replacement creates another.
	return operatorFix.Replace(q)
}

var curYear = lazyregexp.New(`(?i)YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*`)

// ReplaceCurYear replaces YEAR(CURDATE()) (and the spaces after it) with 2020, the year
// the official evaluator pins.
func ReplaceCurYear(q string) string {
	if !strings.Contains(strings.ToUpper(q), "CURDATE") {
		return q
	}
	return curYear.ReplaceAllString(q, "2020")
}

// RemoveDistinct is the official evaluator's remove_distinct: it drops every DISTINCT
// keyword and keeps everything else byte for byte, and — because the official code
// joins the tokens of the first statement that sqlparse finds — it drops whatever
// follows the first top-level semicolon (and the spaces and line comments right after
// it). The word is left alone inside strings, quoted names, comments, placeholders and
// longer words (distinct_id, @distinct), following sqlparse 0.4.2's lexer.
func RemoveDistinct(q string) string {
	var b strings.Builder
	last, level := 0, 0
	for i := 0; i < len(q); {
		start := i
		tok, next := lexToken(q, i)
		i = next
		switch tok {
		case tokWord:
			w := q[start:i]
			if strings.EqualFold(w, "distinct") {
				b.WriteString(q[last:start])
				last = i
			} else if strings.EqualFold(w, "end") {
				level--
			}
		case tokOpen:
			level++
		case tokClose:
			level--
		case tokSemicolon:
			if level <= 0 {
				// the statement ends here; sqlparse keeps the spaces and line comments
				// that follow on the same line
				for i < len(q) {
					t, n := lexToken(q, i)
					if t != tokSpace && t != tokLineComment {
						break
					}
					i = n
				}
				b.WriteString(q[last:i])
				return b.String()
			}
		}
	}
	if last == 0 {
		return q
	}
	b.WriteString(q[last:])
	return b.String()
}

type tokKind uint8

const (
	tokOther tokKind = iota
	tokSpace
	tokLineComment
	tokWord
	tokOpen
	tokClose
	tokSemicolon
)

// The quoted-token patterns of sqlparse 0.4.2 (in a string, a backslash escapes only
// a quote) (as RE2 runs them, with the same
// leftmost-first results as Python's backtracking).
var (
	reSingle    = lazyregexp.New(`^'(?:''|\\'|[^'])*'`)
	reDouble    = lazyregexp.New(`^"(?:""|\\"|[^"])*"`)
	reDouble2   = lazyregexp.New(`^(?:""|".*?[^\\]")`)
	reBacktick  = lazyregexp.New("^`(?:``|[^`])*`")
	reBracket   = lazyregexp.New(`^\[[^\]\[]+\]`)
	reLineCmt   = lazyregexp.New(`^(?:--|# ).*?(?:\r\n|\r|\n|$)`)
	reBlockCmt  = lazyregexp.New(`^/\*[\s\S]*?\*/`)
	reAtName    = lazyregexp.New(`^(?:@|##|#)[\p{L}_][\p{L}\p{N}_]+`)
	reOperators = lazyregexp.New(`^[+/@#%^&|-]+`)
)

// lexToken reads one token of q at i the way sqlparse's lexer would, as far as it
// matters for finding DISTINCT and statement ends, and returns its kind and end.
func lexToken(q string, i int) (tokKind, int) {
	rest := q[i:]
	c := q[i]
	// the patterns run only where their first characters are: most tokens are words
	if c == '-' && strings.HasPrefix(rest, "--") || c == '#' && strings.HasPrefix(rest, "# ") {
		if m := reLineCmt.FindString(rest); m != "" {
			return tokLineComment, i + len(m)
		}
	}
	if c == '/' && strings.HasPrefix(rest, "/*") {
		if m := reBlockCmt.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
	}
	switch {
	case c == '\n' || c == '\r':
		return tokOther, i + 1
	case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		return tokSpace, i + 1
	case c == '`':
		if m := reBacktick.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
	case c == '$' || c == ':' || c == '?':
		// placeholders ($name, :name, ?name) when not glued to a preceding word
		if !prevIsWord(q, i) {
			if j := placeholderEnd(q, i); j > i+1 || c == '?' {
				return tokOther, j
			}
		}
	case c == '@' || c == '#':
		if m := reAtName.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
	case c == '\'':
		if m := reSingle.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
	case c == '"':
		if m := reDouble.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
		if m := reDouble2.FindString(rest); m != "" {
			return tokOther, i + len(m)
		}
	case c == '[':
		if i == 0 || !(prevIsWord(q, i) || q[i-1] == ']' || q[i-1] == ')') {
			if m := reBracket.FindString(rest); m != "" {
				return tokOther, i + len(m)
			}
		}
	case c == '(':
		return tokOpen, i + 1
	case c == ')':
		return tokClose, i + 1
	case c == ';':
		return tokSemicolon, i + 1
	}
	if r, w := utf8.DecodeRuneInString(rest); isWordRune(r) {
		return tokWord, wordEnd(q, i+w)
	} else if m := operators(rest); m != "" {
		return tokOther, i + len(m)
	} else {
		return tokOther, i + w
	}
}

// placeholderEnd is the end of the name after the placeholder sign at i ($name,
// :name, ?name); it is i+1 when no word character follows.
func placeholderEnd(q string, i int) int {
	j := i + 1
	for j < len(q) {
		r, w := utf8.DecodeRuneInString(q[j:])
		if !isWordRune(r) {
			break
		}
		j += w
	}
	return j
}

// wordEnd is the end of the word whose rest starts at j: word characters, '$' and '#'.
func wordEnd(q string, j int) int {
	for j < len(q) {
		r, w := utf8.DecodeRuneInString(q[j:])
		if !isWordRune(r) && r != '$' && r != '#' {
			break
		}
		j += w
	}
	return j
}

// operators is reOperators' match at the start of s, tried only when s starts with
// one of its characters.
func operators(s string) string {
	if strings.IndexByte("+/@#%^&|-", s[0]) < 0 {
		return ""
	}
	return reOperators.FindString(s)
}

func prevIsWord(q string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(q[:i])
	return isWordRune(r)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
