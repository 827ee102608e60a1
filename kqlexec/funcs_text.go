package kqlexec

import (
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// textFuncs defines searching, rewriting and formatting functions of text:
// has_any_index, indexof_regex, replace_strings, punycode_from_string,
// punycode_to_string, parse_command_line, format_bytes, parse_version and extract_json.
func textFuncs(def func(string, *fnDef)) {
	def("has_any_index", fixed(TLong, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		hay := strings.ToLower(toString(a[0]))
		vs, ok := arr(a[1])
		if !ok {
			return int64(-1)
		}
		for i, v := range vs {
			s := strings.ToLower(toString(Dyn{v}))
			if s != "" && hasTerm(hay, s, true, true) {
				return int64(i)
			}
		}
		return int64(-1)
	}, TString, TDynamic))

	def("indexof_regex", &fnDef{min: 2, max: 5, args: []Type{TString, TString, TLong, TLong, TLong}, ret: TLong, fn: func(a []any) any {
		if a[0] == nil || a[1] == nil {
			return nil
		}
		start, length, occ := long(a, 2, 0), long(a, 3, -1), long(a, 4, 1)
		if start < 0 || occ < 0 || length < -1 {
			return nil
		}
		re, err := compileRegex(toString(a[1]))
		if err != nil {
			return err
		}
		rs := []rune(toString(a[0]))
		if start > int64(len(rs)) {
			return int64(-1)
		}
		end := int64(len(rs))
		if length >= 0 {
			end = min(end, start+length)
		}
		hay := string(rs[start:end])
		ms := re.FindAllStringIndex(hay, -1)
		if occ == 0 || int64(len(ms)) < occ {
			return int64(-1)
		}
		return start + int64(utf8.RuneCountInString(hay[:ms[occ-1][0]]))
	}})

	def("replace_strings", fixed(TString, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		from, ok1 := arr(a[1])
		to, ok2 := arr(a[2])
		if !ok1 || !ok2 {
			return toString(a[0])
		}
		return replaceStrings(toString(a[0]), from, to)
	}, TString, TDynamic, TDynamic))

	def("punycode_from_string", fixed(TString, func(a []any) any {
		s := toString(a[0])
		if s == "" || strings.ContainsRune(s, '.') {
			return ""
		}
		if isASCII(s) {
			return s + "-"
		}
		out, err := idna.Punycode.ToASCII(s)
		if err != nil || !strings.HasPrefix(out, "xn--") {
			return ""
		}
		return strings.TrimPrefix(out, "xn--")
	}, TString))
	def("punycode_to_string", fixed(TString, func(a []any) any {
		s := toString(a[0])
		if s == "" || strings.ContainsRune(s, '.') || !isASCII(s) {
			return ""
		}
		if strings.HasSuffix(s, "-") && !strings.Contains(strings.TrimSuffix(s, "-"), "-") && isASCII(s) {
			return strings.TrimSuffix(s, "-")
		}
		out, err := idna.Punycode.ToUnicode("xn--" + s)
		if err != nil || out == "xn--"+s {
			return ""
		}
		return out
	}, TString))

	def("parse_command_line", fixed(TDynamic, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		if !strings.EqualFold(toString(a[1]), "windows") {
			return unsupportedError("parse_command_line() with the parser " + strconv.Quote(toString(a[1])) + " (Kusto has windows)")
		}
		return Dyn{windowsArgs(toString(a[0]))}
	}, TString, TString))

	// _parse_kv is parse-kv's reader (translate_parsekv.go): the text and its options
	def("_parse_kv", fixed(TDynamic, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		var opt kvOptions
		if err := json.Unmarshal([]byte(toString(a[1])), &opt); err != nil {
			return err
		}
		return Dyn{parseKV(toString(a[0]), opt)}
	}, TString, TString))

	def("format_bytes", &fnDef{min: 1, max: 4, args: []Type{TReal, TLong, TString, TLong}, ret: TString, fn: formatBytes})

	def("parse_version", fixed(TDecimal, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		parts := strings.Split(strings.TrimSpace(toString(a[0])), ".")
		if len(parts) > 4 {
			return nil
		}
		v := new(big.Int)
		for i := 0; i < 4; i++ {
			v.Mul(v, big.NewInt(100_000_000))
			if i >= len(parts) {
				continue
			}
			p := parts[i]
			if p == "" || len(p) > 8 || strings.Trim(p, "0123456789") != "" {
				return nil
			}
			n, _ := strconv.ParseInt(p, 10, 64)
			v.Add(v, big.NewInt(n))
		}
		f, _ := new(big.Float).SetInt(v).Float64()
		return f
	}, TString))

	def("extract_json", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TString}, retf: func(a []expr) Type {
		if len(a) == 3 && a[2].isLit {
			if t, ok := ParseType(toString(a[2].lit)); ok {
				return t
			}
		}
		return TString
	}, fn: func(a []any) any {
		if a[1] == nil {
			return nil
		}
		v, ok := jsonPathGet(parseJSON(toString(a[1])), toString(a[0]))
		if !ok || v == nil {
			return nil
		}
		if len(a) == 3 && a[2] != nil {
			if t, _ := ParseType(toString(a[2])); t == TDynamic {
				return Dyn{v}
			}
		}
		return toString(Dyn{v})
	}})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// jsonPathGet follows a JSONPath of keys and indices ($.a.b, $['a'][0]) into v.
func jsonPathGet(v any, path string) (any, bool) {
	p := strings.TrimSpace(path)
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	cur := v
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
			i := strings.IndexAny(p, ".[")
			if i < 0 {
				i = len(p)
			}
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[p[:i]]; !ok {
				return nil, false
			}
			p = p[i:]
		case strings.HasPrefix(p, "['") || strings.HasPrefix(p, `["`):
			q := p[1:2]
			end := strings.Index(p[2:], q+"]")
			if end < 0 {
				return nil, false
			}
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[p[2:2+end]]; !ok {
				return nil, false
			}
			p = p[2+end+2:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			n, err := strconv.Atoi(strings.TrimSpace(p[1:end]))
			xs, ok := cur.([]any)
			if err != nil || !ok {
				return nil, false
			}
			if n < 0 {
				n += len(xs)
			}
			if n < 0 || n >= len(xs) {
				return nil, false
			}
			cur, p = xs[n], p[end+1:]
		default:
			return nil, false
		}
	}
	return cur, true
}

var byteUnits = []string{"Bytes", "KB", "MB", "GB", "TB", "PB", "EB"}

// formatBytes is format_bytes(size [, precision [, units [, base]]]): base 2 (1 KB is
// 1,024 bytes) unless base is 10; without units, the largest unit the size reaches.
func formatBytes(a []any) any {
	if a[0] == nil {
		return nil
	}
	size, _ := toReal(a[0])
	prec := long(a, 1, 0)
	unit := str(a, 2)
	div := 1024.0
	if long(a, 3, 2) == 10 {
		div = 1000
	}
	if prec < 0 || math.IsNaN(size) || math.IsInf(size, 0) {
		return nil
	}
	k := -1
	for i, u := range byteUnits {
		if strings.EqualFold(u, unit) || unit == "" && i == 0 {
			k = i
		}
	}
	if k < 0 {
		return nil
	}
	if unit == "" {
		for k+1 < len(byteUnits) && math.Abs(size) >= math.Pow(div, float64(k+1)) {
			k++
		}
	}
	v := size / math.Pow(div, float64(k))
	p := math.Pow(10, float64(prec))
	v = math.Round(v*p) / p
	return strconv.FormatFloat(v, 'f', -1, 64) + " " + byteUnits[k]
}

// windowsArgs splits a command line as Windows' CommandLineToArgvW does: arguments
// are separated by spaces and tabs outside double quotes; 2n backslashes before a
// quote are n backslashes and the quote opens or closes, 2n+1 are n and a literal
// quote; other backslashes are literal; "" inside quotes is a literal quote.
func windowsArgs(s string) []any {
	out := []any{}
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				out = append(out, cur.String())
				cur.Reset()
				inArg = false
			}
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
			inArg = true
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		out = append(out, cur.String())
	}
	return out
}

// replaceStrings is Kusto's replace_strings: each lookup in turn claims its matches
// that overlap no earlier claim, so an earlier lookup takes precedence wherever they
// overlap; a match whose rewrite is not a string keeps its text but still holds its
// place. Lookups that are not strings, or empty, are ignored.
func replaceStrings(text string, from, to []any) string {
	type claim struct {
		start, end int
		with       string
	}
	var claims []claim
	taken := make([]bool, len(text))
	free := func(i, j int) bool {
		for k := i; k < j; k++ {
			if taken[k] {
				return false
			}
		}
		return true
	}
	for i, f := range from {
		look, ok := f.(string)
		if !ok || look == "" {
			continue
		}
		with, rewrite := "", false
		if i < len(to) {
			with, rewrite = to[i].(string)
		}
		for pos := 0; pos <= len(text)-len(look); {
			k := strings.Index(text[pos:], look)
			if k < 0 {
				break
			}
			start, end := pos+k, pos+k+len(look)
			if !free(start, end) {
				pos = start + 1
				continue
			}
			for j := start; j < end; j++ {
				taken[j] = true
			}
			if !rewrite {
				with = text[start:end]
			}
			claims = append(claims, claim{start, end, with})
			pos = end
		}
	}
	sort.Slice(claims, func(i, j int) bool { return claims[i].start < claims[j].start })
	var b strings.Builder
	at := 0
	for _, c := range claims {
		b.WriteString(text[at:c.start])
		b.WriteString(c.with)
		at = c.end
	}
	b.WriteString(text[at:])
	return b.String()
}
