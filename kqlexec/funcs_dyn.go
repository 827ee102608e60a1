package kqlexec

import (
	"encoding/json"
	"strings"
)

func arr(v any) ([]any, bool) {
	d, ok := v.(Dyn)
	if !ok {
		return nil, false
	}
	a, ok := d.V.([]any)
	return a, ok
}

func bag(v any) (map[string]any, bool) {
	d, ok := v.(Dyn)
	if !ok {
		return nil, false
	}
	m, ok := d.V.(map[string]any)
	return m, ok
}

func dyn1(f func(a []any) any) *fnDef { return fixed(TDynamic, f, TDynamic) }

// dynamicFuncs defines this file's functions (see library in funcs.go).
func dynamicFuncs(def func(string, *fnDef)) {
	def("array_length", fixed(TLong, func(a []any) any {
		x, ok := arr(a[0])
		if !ok {
			return nil
		}
		return int64(len(x))
	}, TDynamic))
	def("array_concat", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		out := []any{}
		for _, x := range a {
			xs, ok := arr(x)
			if !ok {
				return nil
			}
			out = append(out, xs...)
		}
		return Dyn{out}
	}})
	def("array_slice", fixed(TDynamic, func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		n := int64(len(xs))
		s, e := long(a, 1, 0), long(a, 2, n-1)
		if s < 0 {
			s += n
		}
		if e < 0 {
			e += n
		}
		if s < 0 {
			s = 0
		}
		if e >= n {
			e = n - 1
		}
		if s > e || s >= n {
			return Dyn{[]any{}}
		}
		return Dyn{append([]any{}, xs[s:e+1]...)}
	}, TDynamic, TLong, TLong))
	def("array_reverse", dyn1(func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			out[len(xs)-1-i] = x
		}
		return Dyn{out}
	}))
	def("array_sort_asc", &fnDef{min: 1, max: -1, ret: TDynamic, outputsOf: sortedOutputs, fn: func(a []any) any { return arraySort(a, false) }})
	def("array_sort_desc", &fnDef{min: 1, max: -1, ret: TDynamic, outputsOf: sortedOutputs, fn: func(a []any) any { return arraySort(a, true) }})
	def("array_index_of", &fnDef{min: 2, max: 5, args: []Type{TDynamic, "", TLong, TLong, TLong}, ret: TLong, fn: func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		n := int64(len(xs))
		start, length, occ := long(a, 2, 0), long(a, 3, -1), long(a, 4, 1)
		if start < 0 {
			start += n
			if start < 0 {
				start = 0
			}
		}
		end := n
		if length >= 0 && start+length < end {
			end = start + length
		}
		want := jsonText(toJSONValue(a[1]))
		c := int64(0)
		for i := start; i < end; i++ {
			if jsonText(xs[i]) == want {
				c++
				if c == occ {
					return i
				}
			}
		}
		return int64(-1)
	}})
	def("array_sum", fixed(TReal, func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		var s float64
		for _, x := range xs {
			f, ok := toReal(Dyn{x})
			if !ok {
				return nil
			}
			s += f
		}
		return s
	}, TDynamic))
	def("array_iff", fixed(TDynamic, arrayIff, TDynamic, TDynamic, TDynamic))
	funcAliases["array_iif"] = "array_iff"
	def("array_rotate_left", fixed(TDynamic, func(a []any) any { return rotate(a[0], long(a, 1, 0)) }, TDynamic, TLong))
	def("array_rotate_right", fixed(TDynamic, func(a []any) any { return rotate(a[0], -long(a, 1, 0)) }, TDynamic, TLong))
	def("array_shift_left", &fnDef{min: 2, max: 3, args: []Type{TDynamic, TLong, TDynamic}, ret: TDynamic, fn: func(a []any) any {
		return shift(a, long(a, 1, 0))
	}})
	def("array_shift_right", &fnDef{min: 2, max: 3, args: []Type{TDynamic, TLong, TDynamic}, ret: TDynamic, fn: func(a []any) any {
		return shift(a, -long(a, 1, 0))
	}})
	def("array_split", fixed(TDynamic, func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		var idx []int64
		if is, ok := arr(a[1]); ok {
			for _, i := range is {
				n, _ := toLong(Dyn{i})
				idx = append(idx, n)
			}
		} else if n, ok := toLong(a[1]); ok {
			idx = []int64{n}
		}
		out := []any{}
		prev := int64(0)
		for _, i := range append(idx, int64(len(xs))) {
			if i < 0 {
				i += int64(len(xs))
			}
			if i > int64(len(xs)) {
				i = int64(len(xs))
			}
			if i < prev {
				i = prev
			}
			out = append(out, append([]any{}, xs[prev:i]...))
			prev = i
		}
		return Dyn{out}
	}, TDynamic, TDynamic))
	def("pack_array", &fnDef{min: 0, max: -1, ret: TDynamic, fn: func(a []any) any {
		out := make([]any, len(a))
		for i, x := range a {
			out[i] = toJSONValue(x)
		}
		return Dyn{out}
	}})
	def("bag_pack", &fnDef{min: 0, max: -1, ret: TDynamic, fn: func(a []any) any {
		if len(a)%2 != 0 {
			return nil
		}
		m := map[string]any{}
		for i := 0; i+1 < len(a); i += 2 {
			m[toString(a[i])] = toJSONValue(a[i+1])
		}
		return Dyn{m}
	}})
	def("bag_keys", dyn1(func(a []any) any {
		m, ok := bag(a[0])
		if !ok {
			return nil
		}
		out := []any{}
		for _, k := range sortedKeys(m) {
			out = append(out, k)
		}
		return Dyn{out}
	}))
	def("bag_merge", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		m := map[string]any{}
		for _, x := range a {
			b, ok := bag(x)
			if !ok {
				continue
			}
			for k, v := range b {
				if _, dup := m[k]; !dup {
					m[k] = v
				}
			}
		}
		return Dyn{m}
	}})
	def("bag_has_key", fixed(TBool, func(a []any) any {
		m, ok := bag(a[0])
		if !ok {
			return nil
		}
		_, has := lookupPath(m, str(a, 1))
		return has
	}, TDynamic, TString))
	def("bag_remove_keys", fixed(TDynamic, func(a []any) any {
		m, ok := bag(a[0])
		if !ok {
			return nil
		}
		keys, _ := arr(a[1])
		out := deepCopy(m).(map[string]any)
		for _, k := range keys {
			removePath(out, toString(Dyn{k}))
		}
		return Dyn{out}
	}, TDynamic, TDynamic))
	def("bag_set_key", fixed(TDynamic, func(a []any) any {
		m, ok := bag(a[0])
		if !ok {
			return nil
		}
		out := deepCopy(m).(map[string]any)
		// a JSONPath key ($.a.b) sets a nested key, making the bags on its way
		cur, parts := out, splitPath(str(a, 1))
		if len(parts) == 0 {
			return nil // the root path is not a key
		}
		for _, k := range parts[:len(parts)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = toJSONValue(a[2])
		return Dyn{out}
	}, TDynamic, TString, TDynamic))
	// bag_zip (its page): keys that are not strings are skipped (their values with
	// them), a missing value is null, values not in an array are all null; keys not
	// in an array give null
	def("bag_zip", fixed(TDynamic, func(a []any) any {
		ks, ok1 := arr(a[0])
		if !ok1 {
			return nil
		}
		vs, _ := arr(a[1])
		m := map[string]any{}
		for i, k := range ks {
			s, ok := k.(string)
			if !ok {
				continue
			}
			if i < len(vs) {
				m[s] = vs[i]
			} else {
				m[s] = nil
			}
		}
		return Dyn{m}
	}, TDynamic, TDynamic))
	def("set_union", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any { return setOp(a, "union") }})
	def("set_intersect", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any { return setOp(a, "intersect") }})
	def("set_difference", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any { return setOp(a, "difference") }})
	def("set_has_element", &fnDef{min: 2, max: 2, args: []Type{TDynamic}, ret: TBool, fn: func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		want := jsonText(toJSONValue(a[1]))
		for _, x := range xs {
			if jsonText(x) == want {
				return true
			}
		}
		return false
	}})
	def("jaccard_index", fixed(TReal, func(a []any) any {
		x, ok1 := arr(a[0])
		y, ok2 := arr(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		sx, sy := map[string]bool{}, map[string]bool{}
		for _, e := range x {
			sx[jsonText(e)] = true
		}
		for _, e := range y {
			sy[jsonText(e)] = true
		}
		inter := 0
		for k := range sx {
			if sy[k] {
				inter++
			}
		}
		union := len(sx) + len(sy) - inter
		if union == 0 {
			return nil
		}
		return float64(inter) / float64(union)
	}, TDynamic, TDynamic))
	def("zip", &fnDef{min: 1, max: -1, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		n := 0
		var lists [][]any
		for _, x := range a {
			xs, ok := arr(x)
			if !ok {
				return nil
			}
			lists = append(lists, xs)
			n = max(n, len(xs))
		}
		out := make([]any, n)
		for i := range out {
			row := make([]any, len(lists))
			for j, l := range lists {
				if i < len(l) {
					row[j] = l[i]
				}
			}
			out[i] = row
		}
		return Dyn{out}
	}})
	def("gettype", &fnDef{min: 1, max: 1, ret: TString, fn: func(a []any) any { return getType(a[0]) }})
	def("dynamic_to_json", fixed(TString, func(a []any) any {
		if a[0] == nil {
			return ""
		}
		return jsonText(a[0].(Dyn).V)
	}, TDynamic))
	def("repeat", fixed(TDynamic, func(a []any) any {
		n := long(a, 1, 0)
		if n < 0 || n > 1<<20 {
			return nil
		}
		out := make([]any, n)
		for i := range out {
			out[i] = toJSONValue(a[0])
		}
		return Dyn{out}
	}, "", TLong))
	def("range", &fnDef{min: 2, max: 3, ret: TDynamic, fn: scalarRange})
	def("treepath", dyn1(func(a []any) any {
		var out []any
		var walk func(v any, p string)
		walk = func(v any, p string) {
			switch x := v.(type) {
			case map[string]any:
				for _, k := range sortedKeys(x) {
					q := p + "['" + k + "']"
					out = append(out, q)
					walk(x[k], q)
				}
			case []any:
				q := p + "[0]"
				out = append(out, q)
				for _, e := range x {
					walk(e, q)
				}
			}
		}
		if d, ok := a[0].(Dyn); ok {
			walk(d.V, "$")
		}
		if out == nil {
			out = []any{}
		}
		return Dyn{out}
	}))
}

func getType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case int64:
		return "long"
	case float64:
		return "real"
	case bool:
		return "bool"
	case Datetime:
		return "datetime"
	case Timespan:
		return "timespan"
	case Guid:
		return "guid"
	case Dyn:
		switch y := x.V.(type) {
		case nil:
			return "null"
		case string:
			if _, ok := parseGuid(y); ok && len(y) == 36 {
				return "guid"
			}
			if _, ok := parseDatetime(y); ok && strings.Count(y, "-") >= 2 && strings.Contains(y, "T") {
				return "datetime"
			}
			return "string"
		case bool:
			return "bool"
		case json.Number:
			if _, err := y.Int64(); err == nil && !strings.ContainsAny(string(y), ".eE") {
				if v, _ := y.Int64(); v >= -1<<31 && v < 1<<31 {
					return "int"
				}
				return "long"
			}
			return "real"
		case []any:
			return "array"
		case map[string]any:
			return "dictionary"
		}
	}
	return "null"
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// splitPath reads a key or a JSONPath ($.a.b, $['a']) into its parts.
func splitPath(p string) []string {
	if !strings.HasPrefix(p, "$") {
		return []string{p}
	}
	p = strings.TrimPrefix(p, "$")
	var parts []string
	for p != "" {
		switch {
		case strings.HasPrefix(p, "."):
			p = p[1:]
			i := strings.IndexAny(p, ".[")
			if i < 0 {
				i = len(p)
			}
			parts = append(parts, p[:i])
			p = p[i:]
		case strings.HasPrefix(p, "['") || strings.HasPrefix(p, `["`):
			q := p[1:2]
			end := strings.Index(p[2:], q+"]")
			if end < 0 {
				return append(parts, p)
			}
			parts = append(parts, p[2:2+end])
			p = p[2+end+2:]
		default:
			return append(parts, p)
		}
	}
	return parts
}

func lookupPath(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range splitPath(path) {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func removePath(m map[string]any, path string) {
	parts := splitPath(path)
	cur := m
	for i, k := range parts {
		if i == len(parts)-1 {
			delete(cur, k)
			return
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
}
