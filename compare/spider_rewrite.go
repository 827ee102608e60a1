package compare

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
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

var curYear = regexp.MustCompile(`(?i)YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*`)

// ReplaceCurYear replaces YEAR(CURDATE()) (and the spaces after it) with 2020, the year
// the official evaluator pins.
func ReplaceCurYear(q string) string {
	if !strings.Contains(strings.ToUpper(q), "CURDATE") {
		return q
	}
	return curYear.ReplaceAllString(q, "2020")
}

// RemoveDistinct drops every DISTINCT keyword from q, keeping everything else byte for
// byte. Like the official evaluator (which removes sqlparse tokens equal to "distinct"),
// it leaves the word alone inside strings, quoted names, comments, placeholders and
// longer words (distinct_id, @distinct).
func RemoveDistinct(q string) string {
	if !strings.Contains(strings.ToLower(q), "distinct") {
		return q
	}
	var b strings.Builder
	i, n := 0, len(q)
	last := 0
	for i < n {
		c := q[i]
		switch {
		case c == '-' && i+1 < n && q[i+1] == '-', c == '#' && i+1 < n && q[i+1] == ' ':
			for i < n && q[i] != '\n' && q[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < n && q[i+1] == '*':
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i++ // an unterminated comment is not a comment to sqlparse
			}
		case c == '\'' || c == '"':
			i = skipSQLParseString(q, i, c)
		case c == '`':
			i = skipQuote(q, i, '`')
		case c == '$' || c == ':' || c == '?' || c == '@' || c == '#':
			// placeholders and @names: the sigil and the word after it are one token
			i++
			for i < n {
				r, w := utf8.DecodeRuneInString(q[i:])
				if !isWordRune(r) {
					break
				}
				i += w
			}
		default:
			r, w := utf8.DecodeRuneInString(q[i:])
			if !isWordRune(r) {
				i += w
				continue
			}
			start := i
			for i < n {
				r, w := utf8.DecodeRuneInString(q[i:])
				if !isWordRune(r) && r != '$' && r != '#' {
					break
				}
				i += w
			}
			if strings.EqualFold(q[start:i], "distinct") {
				b.WriteString(q[last:start])
				last = i
			}
		}
	}
	if last == 0 {
		return q
	}
	b.WriteString(q[last:])
	return b.String()
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// skipSQLParseString skips a string as sqlparse lexes it: doubled quotes and backslash
// escapes stay inside. An unterminated quote is a single character.
func skipSQLParseString(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return i + 1
}

func skipQuote(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return i + 1
}
