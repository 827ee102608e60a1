package kqlexec

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

func str(a []any, i int) string {
	if i >= len(a) {
		return ""
	}
	return toString(a[i])
}

func long(a []any, i int, def int64) int64 {
	if i >= len(a) || a[i] == nil {
		return def
	}
	n, ok := toLong(a[i])
	if !ok {
		return def
	}
	return n
}

// kustoRewrite converts a Kusto regex rewrite (\1, \2) to Go's ${1}.
func kustoRewrite(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("${" + string(s[i+1]) + "}")
			i++
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// stringFuncs defines this file's functions (see library in funcs.go).
func stringFuncs(def func(string, *fnDef)) {
	def("strlen", fixed(TLong, func(a []any) any { return int64(utf8.RuneCountInString(str(a, 0))) }, TString))
	def("string_size", fixed(TLong, func(a []any) any { return int64(len(str(a, 0))) }, TString))
	def("tolower", fixed(TString, func(a []any) any { return lower(str(a, 0)) }, TString))
	def("toupper", fixed(TString, func(a []any) any { return strings.ToUpper(str(a, 0)) }, TString))
	def("substring", &fnDef{min: 2, max: 3, args: []Type{TString, TLong, TLong}, ret: TString, fn: func(a []any) any {
		r := []rune(str(a, 0))
		start := long(a, 1, 0)
		n := long(a, 2, int64(len(r)))
		// a negative start counts from the end (the substring page:
		// substring("123456", -2, 2) is "56"); before the first character it is 0
		if start < 0 {
			start = max(start+int64(len(r)), 0)
		}
		if start > int64(len(r)) || n <= 0 {
			return ""
		}
		end := start + n
		if end > int64(len(r)) {
			end = int64(len(r))
		}
		return string(r[start:end])
	}})
	def("strcat_delim", &fnDef{min: 2, max: -1, args: []Type{TString}, rest: TString, ret: TString, fn: func(a []any) any {
		parts := make([]string, len(a)-1)
		for i := range parts {
			parts[i] = str(a, i+1)
		}
		return strings.Join(parts, str(a, 0))
	}})
	def("split", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TLong}, ret: TDynamic, fn: func(a []any) any {
		parts := strings.Split(str(a, 0), str(a, 1))
		if str(a, 1) == "" {
			parts = []string{str(a, 0)}
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		if len(a) == 3 && a[2] != nil {
			i := long(a, 2, 0)
			if i < 0 || i >= int64(len(out)) {
				return Dyn{[]any{}}
			}
			return Dyn{[]any{out[i]}}
		}
		return Dyn{out}
	}})
	def("replace_string", fixed(TString, func(a []any) any {
		if str(a, 1) == "" {
			return str(a, 0)
		}
		return strings.ReplaceAll(str(a, 0), str(a, 1), str(a, 2))
	}, TString, TString, TString))
	def("replace_regex", fixed(TString, func(a []any) any {
		re, err := compileRegex(str(a, 1))
		if err != nil {
			return err
		}
		return re.ReplaceAllString(str(a, 0), kustoRewrite(str(a, 2)))
	}, TString, TString, TString))
	def("regex_quote", fixed(TString, func(a []any) any { return regexp.QuoteMeta(str(a, 0)) }, TString))
	trimFn := func(start, end bool) func(a []any) any {
		return func(a []any) any {
			re, err := compileRegex(str(a, 0))
			if err != nil {
				return err
			}
			s := str(a, 1)
			if start {
				if re2, err := compileRegex("^(?:" + str(a, 0) + ")"); err == nil {
					if loc := re2.FindStringIndex(s); loc != nil {
						s = s[loc[1]:]
					}
				}
			}
			if end {
				if re2, err := compileRegex("(?:" + str(a, 0) + ")$"); err == nil {
					if loc := re2.FindStringIndex(s); loc != nil {
						s = s[:loc[0]]
					}
				}
			}
			_ = re
			return s
		}
	}
	def("trim", fixed(TString, trimFn(true, true), TString, TString))
	def("trim_start", fixed(TString, trimFn(true, false), TString, TString))
	def("trim_end", fixed(TString, trimFn(false, true), TString, TString))
	def("extract", &fnDef{min: 3, max: 4, args: []Type{TString, TLong, TString, TString}, retf: func(a []expr) Type {
		if len(a) == 4 && a[3].isLit {
			if t, ok := ParseType(toString(a[3].lit)); ok {
				return t
			}
		}
		return TString
	}, fn: func(a []any) any {
		re, err := compileRegex(str(a, 0))
		if err != nil {
			return err
		}
		m := re.FindStringSubmatch(str(a, 2))
		g := long(a, 1, 0)
		if m == nil || g < 0 || g >= int64(len(m)) {
			return nil
		}
		return m[g]
	}})
	def("extract_all", &fnDef{min: 2, max: 3, ret: TDynamic, fn: extractAll})
	def("indexof", &fnDef{min: 2, max: 5, args: []Type{TString, TString, TLong, TLong, TLong}, ret: TLong, fn: indexOf})
	def("countof", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TString}, ret: TLong, fn: func(a []any) any {
		s, sub := str(a, 0), str(a, 1)
		if str(a, 2) == "regex" {
			re, err := compileRegex(sub)
			if err != nil {
				return err
			}
			return int64(len(re.FindAllStringIndex(s, -1)))
		}
		if sub == "" {
			return int64(0)
		}
		var n int64
		for i := 0; i+len(sub) <= len(s); {
			j := strings.Index(s[i:], sub)
			if j < 0 {
				break
			}
			n++
			i += j + 1
		}
		return n
	}})
	def("reverse", fixed(TString, func(a []any) any {
		r := []rune(str(a, 0))
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	}, TString))
	def("strrep", &fnDef{min: 2, max: 3, args: []Type{TString, TLong, TString}, ret: TString, fn: func(a []any) any {
		n := long(a, 1, 0)
		if n <= 0 || n > 1024*1024 {
			return ""
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = str(a, 0)
		}
		return strings.Join(parts, str(a, 2))
	}})
	def("strcmp", fixed(TLong, func(a []any) any { return int64(strings.Compare(str(a, 0), str(a, 1))) }, TString, TString))
	toHex := func(bits int) func(a []any) any {
		return func(a []any) any {
			if a[0] == nil {
				return nil
			}
			v := uint64(long(a, 0, 0))
			if bits == 32 {
				v = uint64(uint32(v))
			}
			s := strconv.FormatUint(v, 16)
			if w := long(a, 1, 0); int64(len(s)) < w {
				s = strings.Repeat("0", int(w)-len(s)) + s
			}
			return s
		}
	}
	def("tohex", &fnDef{min: 1, max: 2, args: []Type{TLong, TLong}, ret: TString, fn: toHex(64)})
	def("op:tohex32", &fnDef{min: 1, max: 2, args: []Type{TLong, TLong}, ret: TString, fn: toHex(32)})
	def("url_encode", fixed(TString, func(a []any) any { return urlEncode(str(a, 0), "+") }, TString))
	def("url_encode_component", fixed(TString, func(a []any) any { return urlEncode(str(a, 0), "%20") }, TString))
	def("url_decode", fixed(TString, func(a []any) any {
		s, err := url.QueryUnescape(str(a, 0))
		if err != nil {
			return nil
		}
		return s
	}, TString))
	def("base64_encode_tostring", fixed(TString, func(a []any) any { return base64.StdEncoding.EncodeToString([]byte(str(a, 0))) }, TString))
	def("base64_decode_tostring", fixed(TString, func(a []any) any {
		b, err := base64.StdEncoding.DecodeString(str(a, 0))
		if err != nil || !utf8.Valid(b) {
			return ""
		}
		return string(b)
	}, TString))
	def("base64_decode_toarray", fixed(TDynamic, func(a []any) any {
		b, err := base64.StdEncoding.DecodeString(str(a, 0))
		if err != nil {
			return Dyn{[]any{}}
		}
		out := make([]any, len(b))
		for i, c := range b {
			out[i] = json.Number(strconv.Itoa(int(c)))
		}
		return Dyn{out}
	}, TString))
	def("base64_encode_fromarray", fixed(TString, func(a []any) any {
		d, _ := a[0].(Dyn)
		arr, _ := d.V.([]any)
		b := make([]byte, 0, len(arr))
		for _, x := range arr {
			n, ok := toLong(Dyn{x})
			if !ok {
				return ""
			}
			b = append(b, byte(n))
		}
		return base64.StdEncoding.EncodeToString(b)
	}, TDynamic))
	def("base64_encode_fromguid", fixed(TString, func(a []any) any {
		g, ok := a[0].(Guid)
		if !ok {
			return nil
		}
		return base64.StdEncoding.EncodeToString(guidBytes(g))
	}, TGuid))
	def("base64_decode_toguid", fixed(TGuid, func(a []any) any {
		b, err := base64.StdEncoding.DecodeString(str(a, 0))
		if err != nil || len(b) != 16 {
			return nil
		}
		return guidFromBytes(b)
	}, TString))
	def("hash_md5", &fnDef{min: 1, max: 1, ret: TString, fn: func(a []any) any {
		s := md5.Sum([]byte(hashText(a[0])))
		return hex.EncodeToString(s[:])
	}})
	def("hash_sha1", &fnDef{min: 1, max: 1, ret: TString, fn: func(a []any) any {
		s := sha1.Sum([]byte(hashText(a[0])))
		return hex.EncodeToString(s[:])
	}})
	def("hash_sha256", &fnDef{min: 1, max: 1, ret: TString, fn: func(a []any) any {
		s := sha256.Sum256([]byte(hashText(a[0])))
		return hex.EncodeToString(s[:])
	}})
	def("translate", fixed(TString, func(a []any) any {
		from, to := []rune(str(a, 0)), []rune(str(a, 1))
		m := map[rune]int{}
		for i, r := range from {
			if _, ok := m[r]; !ok {
				m[r] = i
			}
		}
		var b strings.Builder
		for _, r := range str(a, 2) {
			i, ok := m[r]
			switch {
			case !ok:
				b.WriteRune(r)
			case len(to) == 0:
			case i < len(to):
				b.WriteRune(to[i])
			default:
				b.WriteRune(to[len(to)-1])
			}
		}
		return b.String()
	}, TString, TString, TString))
	def("isascii", fixed(TBool, func(a []any) any {
		for _, r := range str(a, 0) {
			if r > 127 {
				return false
			}
		}
		return true
	}, TString))
	def("isutf8", fixed(TBool, func(a []any) any { return utf8.ValidString(str(a, 0)) }, TString))
	def("unicode_codepoints_from_string", fixed(TDynamic, func(a []any) any {
		var out []any
		for _, r := range str(a, 0) {
			out = append(out, json.Number(strconv.Itoa(int(r))))
		}
		if out == nil {
			out = []any{}
		}
		return Dyn{out}
	}, TString))
	def("unicode_codepoints_to_string", &fnDef{min: 1, max: -1, ret: TString, fn: func(a []any) any {
		var b strings.Builder
		for _, x := range a {
			if d, ok := x.(Dyn); ok {
				if arr, ok := d.V.([]any); ok {
					for _, e := range arr {
						n, _ := toLong(Dyn{e})
						b.WriteRune(rune(n))
					}
					continue
				}
			}
			n, _ := toLong(x)
			b.WriteRune(rune(n))
		}
		return b.String()
	}})
	def("strcat_array", fixed(TString, func(a []any) any {
		d, _ := a[0].(Dyn)
		arr, _ := d.V.([]any)
		parts := make([]string, len(arr))
		for i, e := range arr {
			parts[i] = toString(Dyn{e})
		}
		return strings.Join(parts, str(a, 1))
	}, TDynamic, TString))
	def("parse_csv", fixed(TDynamic, func(a []any) any {
		r := csv.NewReader(strings.NewReader(str(a, 0)))
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		rec, err := r.Read()
		if err != nil {
			return Dyn{[]any{}}
		}
		out := make([]any, len(rec))
		for i, s := range rec {
			out[i] = s
		}
		return Dyn{out}
	}, TString))
	def("parse_url", fixed(TDynamic, parseURL, TString))
	def("parse_urlquery", fixed(TDynamic, func(a []any) any {
		q, err := url.ParseQuery(strings.TrimPrefix(str(a, 0), "?"))
		if err != nil {
			return nil
		}
		m := map[string]any{}
		for k, v := range q {
			m[k] = v[len(v)-1]
		}
		return Dyn{map[string]any{"Query Parameters": m}}
	}, TString))
	def("parse_path", fixed(TDynamic, parsePath, TString))
}

func extractAll(a []any) any {
	re, err := compileRegex(toString(a[0]))
	if err != nil {
		return err
	}
	src := toString(a[len(a)-1])
	var groups []any
	if len(a) == 3 {
		if d, ok := a[1].(Dyn); ok {
			groups, _ = d.V.([]any)
		}
	}
	ms := re.FindAllStringSubmatch(src, -1)
	if len(ms) == 0 {
		return nil
	}
	var out []any
	for _, m := range ms {
		if groups == nil {
			if len(m) == 1 {
				out = append(out, m[0])
			} else if len(m) == 2 {
				out = append(out, m[1])
			} else {
				row := make([]any, len(m)-1)
				for i := range row {
					row[i] = m[i+1]
				}
				out = append(out, row)
			}
			continue
		}
		row := make([]any, 0, len(groups))
		for _, g := range groups {
			i := -1
			if s, ok := g.(string); ok {
				i = re.SubexpIndex(s)
			} else if n, ok := toLong(Dyn{g}); ok {
				i = int(n)
			}
			if i >= 0 && i < len(m) {
				row = append(row, m[i])
			} else {
				row = append(row, nil)
			}
		}
		if len(row) == 1 {
			out = append(out, row[0])
		} else {
			out = append(out, row)
		}
	}
	return Dyn{out}
}

func indexOf(a []any) any {
	s, sub := []rune(toString(a[0])), toString(a[1])
	start := long(a, 2, 0)
	length := long(a, 3, -1)
	occ := long(a, 4, 1)
	if start < 0 {
		start += int64(len(s))
		if start < 0 {
			start = 0
		}
	}
	if start > int64(len(s)) || occ <= 0 {
		return int64(-1)
	}
	hay := string(s[start:])
	pos := 0
	for n := int64(0); ; n++ {
		j := strings.Index(hay[pos:], sub)
		if j < 0 {
			return int64(-1)
		}
		at := int64(utf8.RuneCountInString(hay[:pos+j]))
		if length >= 0 && at >= length {
			return int64(-1)
		}
		if n+1 == occ {
			return start + at
		}
		_, size := utf8.DecodeRuneInString(hay[pos+j:])
		if size == 0 {
			size = 1
		}
		pos += j + size
		if pos > len(hay) {
			return int64(-1)
		}
	}
}
