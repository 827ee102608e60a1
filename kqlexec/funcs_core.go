package kqlexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// stringOps are the binary string operators, computed in Go for Unicode case folding
// and Kusto's term matching, with their negations ("!contains", and "!~" for "=~").
var stringOps = withNegations(map[string]func(a, b string) bool{
	"contains":      func(a, b string) bool { return strings.Contains(lower(a), lower(b)) },
	"contains_cs":   strings.Contains,
	"startswith":    func(a, b string) bool { return strings.HasPrefix(lower(a), lower(b)) },
	"startswith_cs": strings.HasPrefix,
	"endswith":      func(a, b string) bool { return strings.HasSuffix(lower(a), lower(b)) },
	"endswith_cs":   strings.HasSuffix,
	"has":           func(a, b string) bool { return hasTerm(lower(a), lower(b), true, true) },
	"has_cs":        func(a, b string) bool { return hasTerm(a, b, true, true) },
	"hasprefix":     func(a, b string) bool { return hasTerm(lower(a), lower(b), true, false) },
	"hasprefix_cs":  func(a, b string) bool { return hasTerm(a, b, true, false) },
	"hassuffix":     func(a, b string) bool { return hasTerm(lower(a), lower(b), false, true) },
	"hassuffix_cs":  func(a, b string) bool { return hasTerm(a, b, false, true) },
	"=~":            func(a, b string) bool { return lower(a) == lower(b) },
	"matches regex": func(a, b string) bool { re, err := compileRegex(b); return err == nil && re.MatchString(a) },
})

// withNegations adds to ops the negation of each: "!" before its name, "!~" for "=~".
func withNegations(ops map[string]func(a, b string) bool) map[string]func(a, b string) bool {
	out := make(map[string]func(a, b string) bool, 2*len(ops))
	for name, f := range ops {
		neg := "!" + name
		if name == "=~" {
			neg = "!~"
		}
		out[name], out[neg] = f, func(a, b string) bool { return !f(a, b) }
	}
	return out
}

// coreFuncs defines this file's functions (see library in funcs.go).
func coreFuncs(def func(string, *fnDef)) {
	for name, f := range stringOps {
		def("op:"+name, fixed(TBool, func(a []any) any { return f(a[0].(string), a[1].(string)) }, TString, TString))
	}
	def("op:has_any", &fnDef{min: 1, max: -1, fn: func(a []any) any { return hasList(a, false) }, ret: TBool})
	def("op:has_all", &fnDef{min: 1, max: -1, fn: func(a []any) any { return hasList(a, true) }, ret: TBool})
	def("op:in_dyn", &fnDef{min: 2, max: 2, fn: func(a []any) any { return inDyn(a[0], a[1], false) }, ret: TBool})
	def("op:in_dyn~", &fnDef{min: 2, max: 2, fn: func(a []any) any { return inDyn(a[0], a[1], true) }, ret: TBool})
	def("op:dyn==", fixed(TBool, func(a []any) any { return dynEqual(a[0], a[1]) }, TDynamic, TDynamic))
	def("op:dyn!=", fixed(TBool, func(a []any) any {
		if a[0] == nil || a[1] == nil {
			return nil
		}
		return !dynEqual(a[0], a[1]).(bool)
	}, TDynamic, TDynamic))
	def("op:/", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		x, ok1 := toReal(a[0])
		y, ok2 := toReal(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		return x / y
	}})
	// real arithmetic and comparisons whose operand may be a NaN SQL cannot see (a Go
	// function's result, see nanConds): IEEE 754, as .NET computes; null gives null
	realOp := func(f func(x, y float64) any) *fnDef {
		return &fnDef{min: 2, max: 2, fn: func(a []any) any {
			x, ok1 := toReal(a[0])
			y, ok2 := toReal(a[1])
			if !ok1 || !ok2 || a[0] == nil || a[1] == nil {
				return nil
			}
			return f(x, y)
		}}
	}
	def("op:r+", realOp(func(x, y float64) any { return x + y }))
	def("op:r-", realOp(func(x, y float64) any { return x - y }))
	def("op:r*", realOp(func(x, y float64) any { return x * y }))
	def("op:r<", realOp(func(x, y float64) any { return x < y }))
	def("op:r<=", realOp(func(x, y float64) any { return x <= y }))
	def("op:r>", realOp(func(x, y float64) any { return x > y }))
	def("op:r>=", realOp(func(x, y float64) any { return x >= y }))
	def("op:rneg", &fnDef{min: 1, max: 1, fn: func(a []any) any {
		x, ok := toReal(a[0])
		if !ok || a[0] == nil {
			return nil
		}
		return -x
	}})
	// == and != as nullEquality: two nulls give null, one null is unequal
	realEq := func(ne bool) *fnDef {
		return &fnDef{min: 2, max: 2, fn: func(a []any) any {
			if a[0] == nil || a[1] == nil {
				if a[0] == nil && a[1] == nil {
					return nil
				}
				return ne
			}
			x, ok1 := toReal(a[0])
			y, ok2 := toReal(a[1])
			if !ok1 || !ok2 {
				return nil
			}
			return (x == y) != ne
		}}
	}
	def("op:r==", realEq(false))
	def("op:r=", realEq(false))
	def("op:r!=", realEq(true))
	def("op:idiv", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		x, ok1 := toLong(a[0])
		y, ok2 := toLong(a[1])
		if !ok1 || !ok2 || y == 0 {
			return nil
		}
		return x / y
	}})
	def("op:imod", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		x, ok1 := toLong(a[0])
		y, ok2 := toLong(a[1])
		if !ok1 || !ok2 || y == 0 {
			return nil
		}
		// Kusto's modulo is never negative: 0 <= x % y < abs(y)
		r := x % y
		if r < 0 {
			r += max(y, -y)
		}
		return r
	}})
	def("op:fmod", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		x, ok1 := toReal(a[0])
		y, ok2 := toReal(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		r := math.Mod(x, y)
		if r < 0 {
			r += math.Abs(y)
		}
		return r
	}})
	def("op:span*", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		s, ok1 := a[0].(Timespan)
		f, ok2 := toReal(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		return Timespan(math.Round(float64(s) * f))
	}})
	def("op:span/", &fnDef{min: 2, max: 2, fn: func(a []any) any {
		s, ok1 := a[0].(Timespan)
		f, ok2 := toReal(a[1])
		if !ok1 || !ok2 || f == 0 {
			return nil
		}
		return Timespan(math.Round(float64(s) / f))
	}})
	def("_cvt", &fnDef{min: 1, max: 1, fn: func(a []any) any { return a[0] }})
	// tostring of a dynamic: an object or array as its stored JSON text, compacted but
	// in its own key order (a geometry's "type" first); anything else as before
	def("_dyntext", &fnDef{min: 1, max: 1, fn: func(a []any) any {
		s, _ := a[0].(string)
		if t := strings.TrimSpace(s); t != "" && (t[0] == '{' || t[0] == '[') {
			var b bytes.Buffer
			if json.Compact(&b, []byte(t)) == nil {
				return b.String()
			}
		}
		if s == "" {
			return ""
		}
		return toString(Dyn{parseJSON(s)})
	}})
	def("parse_json", &fnDef{min: 1, max: 1, ret: TDynamic, fn: func(a []any) any {
		if s, ok := a[0].(string); ok {
			if strings.TrimSpace(s) == "" {
				// no JSON at all is null (the isnull and gettype pages:
				// isnull(parse_json("")) is true)
				return nil
			}
			return Dyn{parseJSON(s)}
		}
		return toDyn(a[0])
	}})
	def("getprop", fixed(TDynamic, func(a []any) any { return getProp(a[0], a[1].(string)) }, TDynamic, TString))
	def("getindex", &fnDef{min: 2, max: 2, args: []Type{TDynamic}, ret: TDynamic, fn: func(a []any) any { return getIndex(a[0], a[1]) }})
	def("mvx_idx", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: mvxIdx})
	def("mvx_at", fixed(TDynamic, mvxAt, TDynamic, TLong, TString))
	def("pack_all", &fnDef{min: 1, max: -1, ret: TDynamic, fn: packAll})
	def("max_of", &fnDef{min: 1, max: -1, fn: func(a []any) any { return extremeOf(a, 1) }})
	def("min_of", &fnDef{min: 1, max: -1, fn: func(a []any) any { return extremeOf(a, -1) }})
	def("estimate_data_size", &fnDef{min: 0, max: -1, ret: TLong, fn: estimateSize})
}

func lower(s string) string { return strings.ToLower(s) }

func isTermRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// hasTerm reports whether needle occurs in hay as a whole term (or, with only one of
// start/end, as a term prefix or suffix). Edges of the needle that are not letters or
// digits need no boundary.
func hasTerm(hay, needle string, start, end bool) bool {
	if needle == "" {
		return true
	}
	first, _ := utf8.DecodeRuneInString(needle)
	last, _ := utf8.DecodeLastRuneInString(needle)
	for i := 0; i <= len(hay); {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		okStart, okEnd := true, true
		if start && isTermRune(first) && j > 0 {
			r, _ := utf8.DecodeLastRuneInString(hay[:j])
			okStart = !isTermRune(r)
		}
		if end && isTermRune(last) && j+len(needle) < len(hay) {
			r, _ := utf8.DecodeRuneInString(hay[j+len(needle):])
			okEnd = !isTermRune(r)
		}
		if okStart && okEnd {
			return true
		}
		_, size := utf8.DecodeRuneInString(hay[j:])
		i = j + size
	}
	return false
}

// hasList is has_any / has_all: the first argument against every other argument,
// dynamic arrays flattened.
func hasList(a []any, all bool) any {
	hay := lower(toString(a[0]))
	var terms []string
	for _, x := range a[1:] {
		if d, ok := x.(Dyn); ok {
			if arr, ok := d.V.([]any); ok {
				for _, e := range arr {
					terms = append(terms, toString(Dyn{e}))
				}
				continue
			}
		}
		terms = append(terms, toString(x))
	}
	if len(terms) == 0 {
		return false
	}
	for _, term := range terms {
		h := hasTerm(hay, lower(term), true, true)
		if all && !h {
			return false
		}
		if !all && h {
			return true
		}
	}
	return all
}

func inDyn(x, arr any, ci bool) any {
	if x == nil {
		return nil
	}
	d, ok := arr.(Dyn)
	if !ok {
		return false
	}
	list, ok := d.V.([]any)
	if !ok {
		list = []any{d.V}
	}
	xs := toString(x)
	for _, e := range list {
		es := toString(Dyn{e})
		if es == xs || (ci && lower(es) == lower(xs)) {
			return true
		}
		if xf, ok := toReal(x); ok {
			if ef, ok := toReal(Dyn{e}); ok && xf == ef {
				if _, isNum := e.(json.Number); isNum {
					return true
				}
			}
		}
	}
	return false
}

func dynEqual(a, b any) any {
	if a == nil || b == nil {
		return nil
	}
	return jsonText(toDyn(a).V) == jsonText(toDyn(b).V)
}

func getProp(v any, key string) any {
	d, ok := v.(Dyn)
	if !ok {
		return nil
	}
	if s, ok := d.V.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		d.V = parseJSON(s)
	}
	m, ok := d.V.(map[string]any)
	if !ok {
		return nil
	}
	x, ok := m[key]
	if !ok || x == nil {
		return nil
	}
	return Dyn{x}
}

func getIndex(v any, idx any) any {
	if s, ok := idx.(string); ok {
		return getProp(v, s)
	}
	i, ok := toLong(idx)
	if !ok {
		return nil
	}
	d, ok := v.(Dyn)
	if !ok {
		return nil
	}
	arr, ok := d.V.([]any)
	if !ok {
		return nil
	}
	if i < 0 {
		i += int64(len(arr))
	}
	if i < 0 || i >= int64(len(arr)) || arr[i] == nil {
		return nil
	}
	return Dyn{arr[i]}
}

// expandLen is how many rows mv-expand makes of a value: the length of an array, the
// number of keys of a bag, 1 for a scalar, 0 for null or an empty array.
func expandLen(v any) int {
	d, ok := v.(Dyn)
	if !ok || d.V == nil {
		return 0
	}
	switch x := d.V.(type) {
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 1
}

func mvxIdx(a []any) any {
	n := 0
	for _, x := range a {
		if l := expandLen(x); l > n {
			n = l
		}
	}
	out := make([]any, n)
	for i := range out {
		out[i] = json.Number(strconv.Itoa(i))
	}
	return Dyn{out}
}

func mvxAt(a []any) any {
	d, ok := a[0].(Dyn)
	i, _ := a[1].(int64)
	kind, _ := a[2].(string)
	if !ok {
		return nil
	}
	switch x := d.V.(type) {
	case []any:
		if int(i) < len(x) && x[i] != nil {
			return Dyn{x[i]}
		}
		return nil
	case map[string]any:
		keys := sortedKeys(x)
		if int(i) >= len(keys) {
			return nil
		}
		k := keys[i]
		if kind == "array" {
			return Dyn{[]any{k, x[k]}}
		}
		return Dyn{map[string]any{k: x[k]}}
	case nil:
		return nil
	}
	if i == 0 {
		return d
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var regexCache sync.Map

// compileRegex compiles an RE2 pattern once.
func compileRegex(p string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(p); ok {
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, errors.New("bad regular expression " + strconv.Quote(p) + ": " + err.Error())
	}
	regexCache.Store(p, re)
	return re, nil
}

func packAll(a []any) any {
	skip, _ := a[0].(bool)
	m := map[string]any{}
	for i := 1; i+1 < len(a); i += 2 {
		k, _ := a[i].(string)
		v := a[i+1]
		if skip && (v == nil || v == "" || (isDyn(v) && a[i+1].(Dyn).V == nil)) {
			continue
		}
		m[k] = toJSONValue(v)
	}
	return Dyn{m}
}

func isDyn(v any) bool { _, ok := v.(Dyn); return ok }

// compareVals orders two run-time values of the same type; ok is false when either is
// null or they cannot be compared.
func compareVals(a, b any) (int, bool) {
	if a == nil || b == nil {
		return 0, false
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case bool:
		y, ok := b.(bool)
		return cmpInt(b2i(x), b2i(y)), ok
	case Datetime:
		y, ok := b.(Datetime)
		return cmpInt(int(x-y), 0), ok
	case Timespan:
		y, ok := b.(Timespan)
		return cmpInt(int(x-y), 0), ok
	case Guid:
		y, ok := b.(Guid)
		return strings.Compare(string(x), string(y)), ok
	}
	x, ok1 := toReal(a)
	y, ok2 := toReal(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func extremeOf(a []any, sign int) any {
	var best any
	for _, x := range a {
		if x == nil {
			continue
		}
		if best == nil {
			best = x
			continue
		}
		if c, ok := compareVals(x, best); ok && c*sign > 0 {
			best = x
		}
	}
	return best
}

func estimateSize(a []any) any {
	var n int64
	for _, x := range a {
		switch v := x.(type) {
		case string:
			n += int64(len(v))
		case Dyn:
			n += int64(len(jsonText(v.V)))
		case Guid:
			n += 16
		case bool:
			n++
		case nil:
		default:
			n += 8
		}
	}
	return n
}
