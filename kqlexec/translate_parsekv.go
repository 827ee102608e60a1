package kqlexec

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qeval/qeval/kql"
)

// kvOptions are parse-kv's with (...) parameters, passed to _parse_kv as JSON.
type kvOptions struct {
	Pair   string   `json:"pair"`
	KV     string   `json:"kv"`
	Quotes []string `json:"quotes"` // each an opening and a closing quote ("" "" or "()")
	Escape []string `json:"escape"`
	Greedy bool     `json:"greedy"`
	Regex  string   `json:"regex"`
	// Keys are the listed keys, for the form without delimiters (it looks for them)
	Keys []string `json:"keys,omitempty"`
}

// parseKv translates parse-kv X as (Key: type, …) with (…): the pairs of X are read
// once into a bag (the first value of each key, _parse_kv), and each listed key
// becomes a column of its type (a missing string key is "", other types null). The
// three forms are translated: specified delimiters, none (parseKVWords), regex.
func (t *translator) parseKv(in *rel, o *kql.ParseKvOp, e *env) (*rel, error) {
	sc := inScope(in, e)
	x, err := t.expr(o.X, sc)
	if err != nil {
		return nil, err
	}
	var opt kvOptions
	for _, p := range o.With {
		v, err := t.expr(p.Value, &scope{env: e})
		if err != nil {
			return nil, err
		}
		if !v.isLit {
			return nil, t.errAt(p, "parse-kv's %s must be a constant", p.Name)
		}
		s := toString(v.lit)
		switch strings.ToLower(p.Name) {
		case "pair_delimiter":
			opt.Pair = s
		case "kv_delimiter":
			opt.KV = s
		case "quote":
			opt.Quotes = append(opt.Quotes, s)
		case "escape":
			opt.Escape = append(opt.Escape, s)
		case "greedy":
			opt.Greedy = v.lit == true || strings.EqualFold(s, "true")
		case "regex":
			opt.Regex = s
		default:
			return nil, t.errAt(p, "parse-kv has no parameter %q", p.Name)
		}
	}
	if opt.Regex == "" && (opt.Pair == "") != (opt.KV == "") {
		return nil, t.errAt(o, "parse-kv takes pair_delimiter and kv_delimiter together (or neither, or regex)")
	}
	for _, q := range opt.Quotes {
		if n := len([]rune(q)); n < 1 || n > 2 {
			return nil, t.errAt(o, "parse-kv's quote is one or two characters, not %q", q)
		}
	}
	if opt.Regex != "" {
		if _, err := compileRegex(opt.Regex); err != nil {
			return nil, t.errAt(o, "parse-kv: %v", err)
		}
	}
	if opt.Regex == "" && opt.Pair == "" {
		for _, c := range o.Columns {
			opt.Keys = append(opt.Keys, c.Name.Name)
		}
	}
	b, _ := json.Marshal(opt)
	bag := call("_parse_kv", TDynamic, coerce(x, TString), lit(string(b), TString))
	cols := append([]column(nil), in.cols...)
	sqls := selectCols(in)
	for _, c := range o.Columns {
		ty, err := t.declType(c, c.Type, TString)
		if err != nil {
			return nil, err
		}
		v := coerce(call("getprop", TDynamic, bag, lit(c.Name.Name, TString)), ty)
		if ty == TString {
			v.sql = "coalesce(" + v.sql + ", '')"
		}
		cols, sqls = setCol(cols, sqls, column{c.Name.Name, ty}, v.sql)
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "t._o"), ", ")+" FROM "+in.from+" t"), nil
}

// parseKV reads key-value pairs from s: the first value of each key.
func parseKV(s string, opt kvOptions) map[string]any {
	out := map[string]any{}
	put := func(k, v string) {
		k = strings.TrimSpace(k)
		if _, seen := out[k]; !seen && k != "" {
			out[k] = v
		}
	}
	if opt.Regex != "" {
		re, err := compileRegex(opt.Regex)
		if err != nil {
			return out
		}
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if len(m) == 3 {
				put(m[1], strings.TrimSpace(m[2]))
			}
		}
		return out
	}
	if opt.Pair == "" {
		return parseKVWords(s, opt)
	}
	closing := func(open byte) (string, bool) {
		for _, q := range opt.Quotes {
			if q[0] == open {
				if len(q) == 2 {
					return q[1:], true
				}
				return q, true
			}
		}
		return "", false
	}
	isEscape := func(c byte) bool {
		for _, e := range opt.Escape {
			if e != "" && e[0] == c {
				return true
			}
		}
		return false
	}
	// quoted reads a quoted token at s[i] (an opening quote), returning it unquoted
	// and the position after its closing quote
	quoted := func(i int, end string) (string, int) {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			switch {
			case isEscape(s[j]) && j+1 < len(s):
				j++
				b.WriteByte(s[j])
			case strings.HasPrefix(s[j:], end):
				return b.String(), j + len(end)
			default:
				b.WriteByte(s[j])
			}
		}
		return b.String(), len(s)
	}
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') && !strings.HasPrefix(s[i:], opt.Pair) {
			i++
		}
		if i >= len(s) {
			break
		}
		// the key
		var key string
		if end, ok := closing(s[i]); ok {
			key, i = quoted(i, end)
			j := strings.Index(s[i:], opt.KV)
			if j < 0 {
				break
			}
			i += j + len(opt.KV)
		} else {
			j := strings.Index(s[i:], opt.KV)
			p := strings.Index(s[i:], opt.Pair)
			if j < 0 {
				break
			}
			if p >= 0 && p < j {
				// a token without a key-value delimiter: skip it
				i += p + len(opt.Pair)
				continue
			}
			key, i = s[i:i+j], i+j+len(opt.KV)
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') && !strings.HasPrefix(s[i:], opt.Pair) {
			i++
		}
		// the value
		if i < len(s) {
			if end, ok := closing(s[i]); ok {
				v, next := quoted(i, end)
				put(key, v)
				i = next
				if j := strings.Index(s[i:], opt.Pair); j >= 0 {
					i += j + len(opt.Pair)
				} else {
					i = len(s)
				}
				continue
			}
		}
		end := len(s)
		if opt.Greedy {
			// up to the next pair delimiter that is followed by a key and its delimiter
			for j := i; j < len(s); j++ {
				if !strings.HasPrefix(s[j:], opt.Pair) {
					continue
				}
				rest := s[j+len(opt.Pair):]
				k := strings.Index(rest, opt.KV)
				if p := strings.Index(rest, opt.Pair); k > 0 && (p < 0 || k < p) {
					end = j
					break
				}
			}
		} else if j := strings.Index(s[i:], opt.Pair); j >= 0 {
			end = i + j
		}
		put(key, strings.TrimSpace(s[i:end]))
		i = end + len(opt.Pair)
	}
	return out
}

// parseKVWords is parse-kv without delimiters: any character that is not a letter
// or a digit delimits. Each listed key is looked for as a whole word; its value is
// the quoted text or the run of letters and digits after the delimiters that follow.
func parseKVWords(s string, opt kvOptions) map[string]any {
	out := map[string]any{}
	word := func(i int) bool {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	before := func(i int) bool {
		if i == 0 {
			return false
		}
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	closing := func(c byte) (string, bool) {
		for _, q := range opt.Quotes {
			if q[0] == c {
				return q[len(q)-1:], true
			}
		}
		return "", false
	}
	escape := func(c byte) bool {
		for _, e := range opt.Escape {
			if e != "" && e[0] == c {
				return true
			}
		}
		return false
	}
	// quoted reads the quoted value that opens at s[i]
	quoted := func(i int, end string) string {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if escape(s[j]) && j+1 < len(s) {
				j++
				b.WriteByte(s[j])
				continue
			}
			if strings.HasPrefix(s[j:], end) {
				break
			}
			b.WriteByte(s[j])
		}
		return b.String()
	}
	for _, k := range opt.Keys {
		for from := 0; from < len(s); {
			at := strings.Index(s[from:], k)
			if at < 0 {
				break
			}
			i := from + at + len(k)
			from += at + 1
			if k == "" || before(from-1) || i < len(s) && word(i) || i == len(s) {
				continue // not a whole word, or nothing after it
			}
			// the delimiters after the key, then a quoted value or a word
			for i < len(s) && !word(i) {
				if end, ok := closing(s[i]); ok {
					out[k] = quoted(i, end)
					break
				}
				i++
			}
			if _, done := out[k]; done {
				break
			}
			j := i
			for j < len(s) && word(j) {
				_, n := utf8.DecodeRuneInString(s[j:])
				j += n
			}
			if j > i {
				out[k] = s[i:j]
				break
			}
		}
	}
	return out
}
