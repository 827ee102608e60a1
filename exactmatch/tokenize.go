package exactmatch

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// The official parser (process_sql.py) tokenizes with NLTK's word_tokenize after taking
// the string literals out. These are the rules of NLTK 3.8's word tokenizer that can
// still fire on a query once its quotes are gone: the pads around punctuation, the split
// of a sentence-final period, and the contractions it splits ("cannot" is two words).
// Quote-handling rules cannot fire: every quote character is inside a literal by then.
var (
	reBackticks  = lazyregexp.New("([«“‘„]|`+)")
	reFinalDot1  = lazyregexp.New(`([^.])(\.)([\])}>"'»”’ ]*)\s*$`)
	reDots       = lazyregexp.New(`\.{2,}`)
	reFinalDot2  = lazyregexp.New(`([^.])(\.)([\])}>"']*)\s*$`)
	reDashes     = lazyregexp.New(`--`)
	reCloseQuote = lazyregexp.New("([»”’])")
	// Contractions without an apostrophe; the trailing \b of the originals is checked by hand
	// where Go's regexp has no lookahead.
	reContractions = []*lazyregexp.Regexp{
		lazyregexp.New(`(?i)\b(can)(not)\b`),
		lazyregexp.New(`(?i)\b(gim)(me)\b`),
		lazyregexp.New(`(?i)\b(gon)(na)\b`),
		lazyregexp.New(`(?i)\b(got)(ta)\b`),
		lazyregexp.New(`(?i)\b(lem)(me)\b`),
		lazyregexp.New(`(?i)\b(wan)(na)(\s)`),
	}
)

// wordTokens splits text the way word_tokenize does for query text without quotes.
func wordTokens(text string) []string {
	var toks []string
	for _, sent := range sentences(text) {
		toks = append(toks, treebank(sent)...)
	}
	return toks
}

// sentences splits text where the sentence splitter would: after a word that ends in a
// single period and is followed by white space. Query text rarely has one; when it does,
// the period becomes a token of its own, as it does for the official parser.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '.' || i == 0 || text[i-1] == '.' || isSpace(text[i-1]) {
			continue
		}
		if i+1 < len(text) && isSpace(text[i+1]) {
			j := i + 1
			for j < len(text) && isSpace(text[j]) {
				j++
			}
			if j == len(text) {
				break
			}
			out = append(out, text[start:i+1])
			start = j
			i = j - 1
		}
	}
	return append(out, text[start:])
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func treebank(s string) []string {
	// Each rule runs only where it can change something: the cheap tests in front of
	// the regular expressions are necessary conditions for them to match, and padding
	// single characters needs no regular expression.
	// the quote characters other than ` are not ASCII: most queries skip their tests
	wide := !isASCII(s)
	if strings.IndexByte(s, '`') >= 0 || wide && strings.ContainsAny(s, "«“‘„") {
		s = reBackticks.ReplaceAllString(s, " $1 ")
	}
	if finalDot(s, `])}>"'»”’ `) {
		s = reFinalDot1.ReplaceAllString(s, "$1 $2 $3 ")
	}
	s = padCommaColon(s)
	if strings.Contains(s, "..") {
		s = reDots.ReplaceAllString(s, " $0 ")
	}
	s = pad(s, ";@#$%&")
	if finalDot(s, `])}>"'`) {
		s = reFinalDot2.ReplaceAllString(s, "$1 $2$3 ")
	}
	s = pad(s, "?!*[](){}<>")
	if strings.Contains(s, "--") {
		s = reDashes.ReplaceAllString(s, " -- ")
	}
	s = " " + s + " "
	if wide && strings.ContainsAny(s, "»”’") {
		s = reCloseQuote.ReplaceAllString(s, " $1 ")
	}
	if hasContraction(s) {
		for _, re := range reContractions {
			s = re.ReplaceAllString(s, " $1 $2 $3")
		}
	}
	return strings.Fields(s)
}

// finalDot reports whether the last period of s follows something other than a period
// and is followed only by characters of closers and then white space: the only place
// the sentence-final period rules can match.
func finalDot(s, closers string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || s[i-1] == '.' {
		return false
	}
	return strings.TrimSpace(strings.TrimLeft(s[i+1:], closers)) == ""
}

// pad puts spaces around every occurrence of the ASCII characters in chars.
func pad(s, chars string) string {
	if !strings.ContainsAny(s, chars) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) >= 0 {
			b.WriteByte(' ')
			b.WriteByte(s[i])
			b.WriteByte(' ')
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// padCommaColon pads a comma or colon that is not followed by a digit, taking the next
// character along as the rule does (so of ",," only the first is padded); one at the
// very end is padded too. A comma before a digit stays glued: "1,2" is one token.
func padCommaColon(s string) string {
	if !strings.ContainsAny(s, ",:") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c != ',' && c != ':' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 == len(s) {
			b.WriteString(" " + string(c) + " ")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i+1:])
		if unicode.IsDigit(r) {
			b.WriteByte(c)
			i++
			continue
		}
		b.WriteString(" " + string(c) + " ")
		b.WriteString(s[i+1 : i+1+size])
		i += 1 + size
	}
	return b.String()
}

var contractionWords = []string{"cannot", "gimme", "gonna", "gotta", "lemme", "wanna"}

// isASCII reports whether s has only ASCII characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func hasContraction(s string) bool {
	// each word has a doubled n, m or t: text without one needs no lower-cased copy
	doubled := false
	for i := 1; i < len(s) && !doubled; i++ {
		c := s[i] | 0x20
		doubled = (c == 'n' || c == 'm' || c == 't') && s[i-1]|0x20 == c
	}
	if !doubled {
		return false
	}
	l := strings.ToLower(s)
	for _, w := range contractionWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// tokenize is process_sql.tokenize: string literals (in single or double quotes, which
// are made the same) become single tokens that keep their text, everything else is
// lower-cased word tokens, and "!", ">", "<" before "=" are joined to it.
func tokenize(query string) ([]string, error) {
	s := strings.ReplaceAll(query, "'", `"`)
	var quotes []int
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			quotes = append(quotes, i)
		}
	}
	if len(quotes)%2 != 0 {
		return nil, parseError("unexpected quote")
	}
	// Literals are cut out from the last pair to the first, so the positions in their
	// keys refer to the original text.
	vals := map[string]string{}
	for i := len(quotes) - 1; i > 0; i -= 2 {
		a, b := quotes[i-1], quotes[i]
		key := "__val_" + strconv.Itoa(a) + "_" + strconv.Itoa(b) + "__"
		vals[key] = s[a : b+1]
		s = s[:a] + key + s[b+1:]
	}
	toks := wordTokens(s)
	for i, t := range toks {
		t = strings.ToLower(t)
		if v, ok := vals[t]; ok {
			t = v
		}
		toks[i] = t
	}
	// Join "!", ">" and "<" with a following "=", from the right; Python's toks[-1]
	// wraps around when "=" is the first token.
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i] != "=" {
			continue
		}
		p := i - 1
		if p < 0 {
			p = len(toks) - 1
		}
		pre := toks[p]
		if pre != "!" && pre != ">" && pre != "<" {
			continue
		}
		var next []string
		if i-1 >= 0 {
			next = append(next, toks[:i-1]...)
		} else {
			next = append(next, toks[:len(toks)-1]...)
		}
		next = append(next, pre+"=")
		next = append(next, toks[i+1:]...)
		toks = next
	}
	return toks, nil
}
