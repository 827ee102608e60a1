package kqlexec

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/qeval/qeval/kql"
)

// Helpers of the array functions.

func arraySort(a []any, desc bool) any {
	nullsLast := true
	lists := a
	if len(a) > 1 {
		if b, ok := a[len(a)-1].(bool); ok {
			nullsLast = b
			lists = a[:len(a)-1]
		}
	}
	first, ok := arr(lists[0])
	if !ok {
		return nil
	}
	idx := make([]int, len(first))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		x, y := first[idx[i]], first[idx[j]]
		if x == nil || y == nil {
			if x == nil && y == nil {
				return false
			}
			return (x == nil) != nullsLast
		}
		c, ok := compareVals(jsonScalar(x), jsonScalar(y))
		if !ok {
			return false
		}
		if desc {
			return c > 0
		}
		return c < 0
	})
	var outs []any
	for _, l := range lists {
		xs, ok := arr(l)
		if !ok || len(xs) != len(first) {
			return nil
		}
		out := make([]any, len(xs))
		for i, k := range idx {
			out[i] = xs[k]
		}
		outs = append(outs, out)
	}
	if len(outs) == 1 {
		return Dyn{outs[0]}
	}
	// several arrays: one column each (sortedOutputs)
	m := make(map[string]any, len(outs))
	for i, o := range outs {
		m[strconv.Itoa(i)] = o
	}
	return Dyn{m}
}

// sortedOutputs are the columns of array_sort_asc/desc over several arrays, named
// ARRAY_sorted after each array argument.
func sortedOutputs(c *kql.Call) []output {
	lists := c.Args
	if n := len(lists); n > 1 {
		if l, ok := lists[n-1].(*kql.Literal); ok && l.Kind == kql.LitBool {
			lists = lists[:n-1]
		}
	}
	if len(lists) < 2 {
		return nil
	}
	out := make([]output, len(lists))
	for i, a := range lists {
		name := autoName(a)
		if name == "" {
			name = "array" + strconv.Itoa(i+1)
		}
		out[i] = output{key: strconv.Itoa(i), t: TDynamic, name: name + "_sorted"}
	}
	return out
}

// jsonScalar converts a JSON scalar to a run-time value for comparisons.
func jsonScalar(x any) any {
	if n, ok := x.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return x
}

func arrayIff(a []any) any {
	cs, ok := arr(a[0])
	if !ok {
		return nil
	}
	pick := func(v any, i int) any {
		if xs, ok := arr(v); ok {
			if i < len(xs) {
				return xs[i]
			}
			return nil
		}
		if d, ok := v.(Dyn); ok {
			return d.V
		}
		return toJSONValue(v)
	}
	out := make([]any, len(cs))
	for i, c := range cs {
		b, ok := toBool(Dyn{c})
		_, isBool := c.(bool)
		_, isNum := c.(json.Number)
		switch {
		case !ok || !(isBool || isNum):
			out[i] = nil
		case b:
			out[i] = pick(a[1], i)
		default:
			out[i] = pick(a[2], i)
		}
	}
	return Dyn{out}
}

func rotate(v any, n int64) any {
	xs, ok := arr(v)
	if !ok {
		return nil
	}
	l := int64(len(xs))
	if l == 0 {
		return Dyn{[]any{}}
	}
	n = ((n % l) + l) % l
	return Dyn{append(append([]any{}, xs[n:]...), xs[:n]...)}
}

func shift(a []any, n int64) any {
	xs, ok := arr(a[0])
	if !ok {
		return nil
	}
	var fill any
	if len(a) > 2 && a[2] != nil {
		fill = toJSONValue(a[2])
	}
	l := int64(len(xs))
	out := make([]any, l)
	for i := range out {
		j := int64(i) + n
		if j >= 0 && j < l {
			out[i] = xs[j]
		} else {
			out[i] = fill
		}
	}
	return Dyn{out}
}

func setOp(a []any, op string) any {
	var lists [][]any
	for _, x := range a {
		xs, ok := arr(x)
		if !ok {
			return nil
		}
		lists = append(lists, xs)
	}
	seen := map[string]bool{}
	var out []any
	for i, l := range lists {
		if op != "union" && i > 0 {
			break
		}
		for _, e := range l {
			k := jsonText(e)
			if seen[k] {
				continue
			}
			keep := true
			for _, other := range lists[1:] {
				in := false
				for _, o := range other {
					if jsonText(o) == k {
						in = true
						break
					}
				}
				if op == "intersect" && !in || op == "difference" && in {
					keep = false
				}
			}
			if op == "union" || keep {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	if out == nil {
		out = []any{}
	}
	return Dyn{out}
}

// scalarRange is range(start, stop [, step]) (the range-function page): start,
// start+step, ... while not past stop; the default step is 1 for numbers and 1h for
// datetimes and timespans; a step that never reaches stop gives an empty array, a
// zero or null step or bound null; the array stops at maxRangeLen values.
func scalarRange(a []any) any {
	step := get(a, 2, nil)
	if len(a) > 2 && step == nil {
		return nil
	}
	switch start := a[0].(type) {
	case Datetime, Timespan:
		var end Datetime
		switch e := a[1].(type) {
		case Datetime:
			end = e
		case Timespan:
			end = Datetime(e)
		default:
			return nil
		}
		s := Timespan(tickHour)
		if step != nil {
			var ok bool
			if s, ok = toTimespan(step); !ok {
				return nil
			}
		}
		if s == 0 {
			return nil
		}
		_, span := start.(Timespan)
		d := Datetime(0)
		if span {
			d = Datetime(start.(Timespan))
		} else {
			d = start.(Datetime)
		}
		out := []any{}
		for ; (s > 0 && d <= end) || (s < 0 && d >= end); d += Datetime(s) {
			if span {
				out = append(out, Timespan(d).String())
			} else {
				out = append(out, d.String())
			}
			if len(out) >= maxRangeLen {
				break
			}
		}
		return Dyn{out}
	case int64:
		if _, isF := step.(float64); isF {
			break
		}
		if _, isF := a[1].(float64); isF {
			break
		}
		end, ok := toLong(a[1])
		s := int64(1)
		if step != nil {
			s, _ = toLong(step)
		}
		if !ok || s == 0 {
			return nil
		}
		out := []any{}
		for i := start; (s > 0 && i <= end) || (s < 0 && i >= end); i += s {
			out = append(out, json.Number(strconv.FormatInt(i, 10)))
			if len(out) >= maxRangeLen {
				break
			}
		}
		return Dyn{out}
	}
	f, ok1 := toReal(a[0])
	e, ok2 := toReal(a[1])
	s := 1.0
	if step != nil {
		s, _ = toReal(step)
	}
	if a[0] == nil || a[1] == nil || !ok1 || !ok2 || s == 0 || math.IsNaN(s) {
		return nil
	}
	out := []any{}
	for x := f; (s > 0 && x <= e) || (s < 0 && x >= e); x += s {
		out = append(out, toJSONValue(x))
		if len(out) >= maxRangeLen {
			break
		}
	}
	return Dyn{out}
}

// maxRangeLen is the longest array range() makes, as in Kusto.
const maxRangeLen = 1 << 20

func nonNil(x []any) []any {
	if x == nil {
		return []any{}
	}
	return x
}
