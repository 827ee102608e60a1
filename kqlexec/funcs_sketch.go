package kqlexec

import (
	"encoding/json"
	"math"
	"sort"
)

// The local engine's sketches are exact: hll() is the set of values and tdigest() the
// values themselves (see translate_aggregate.go), so these read them directly.

// digestValues returns a digest's numbers, sorted, with the values as stored (so a
// digest of longs answers longs).
func digestValues(v any) ([]float64, []any, bool) {
	xs, ok := arr(v)
	if !ok {
		return nil, nil, false
	}
	type pair struct {
		f   float64
		raw any
	}
	ps := make([]pair, 0, len(xs))
	for _, x := range xs {
		if f, ok := digestKey(x); ok {
			ps = append(ps, pair{f, x})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].f < ps[j].f })
	vals, raws := make([]float64, len(ps)), make([]any, len(ps))
	for i, p := range ps {
		vals[i], raws[i] = p.f, p.raw
	}
	return vals, raws, true
}

// digestKey is where a digest's value sorts: a number itself, a datetime or timespan
// (kept in the digest as its text, tdigest of a datetime or timespan column) its
// ticks, so their percentiles and ranks come out as for numbers.
func digestKey(x any) (float64, bool) {
	if s, ok := x.(string); ok {
		if ts, ok := parseTimespan(s); ok {
			return float64(ts), true
		}
		if dt, ok := parseDatetime(s); ok {
			return float64(dt), true
		}
		return 0, false
	}
	return toReal(Dyn{x})
}

// rankIndex is the index of the p-th percentile (0..100) of n sorted values, by
// nearest rank.
func rankIndex(n int, p float64) int {
	k := int(math.Ceil(p/100*float64(n))) - 1
	return max(0, min(k, n-1))
}

// sketchFuncs defines this file's functions (see library in funcs.go).
func sketchFuncs(def func(string, *fnDef)) {
	def("dcount_hll", fixed(TLong, func(a []any) any {
		xs, ok := arr(a[0])
		if !ok {
			return nil
		}
		seen := map[string]bool{}
		for _, x := range xs {
			b, _ := json.Marshal(x)
			seen[string(b)] = true
		}
		return int64(len(seen))
	}, TDynamic))
	def("hll_merge", &fnDef{min: 2, max: 64, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		out := []any{}
		seen := map[string]bool{}
		for _, h := range a {
			xs, ok := arr(h)
			if !ok {
				continue
			}
			for _, x := range xs {
				b, _ := json.Marshal(x)
				if !seen[string(b)] {
					seen[string(b)] = true
					out = append(out, x)
				}
			}
		}
		return Dyn{out}
	}})
	// _dcount_intersect is dcount_intersect's counts: |S1|, |S1∩S2|, …
	def("_dcount_intersect", &fnDef{min: 1, max: 64, rest: TDynamic, ret: TDynamic, fn: func(a []any) any {
		var common map[string]bool
		out := make([]any, 0, len(a))
		for _, h := range a {
			xs, _ := arr(h)
			set := map[string]bool{}
			for _, x := range xs {
				b, _ := json.Marshal(x)
				if common == nil || common[string(b)] {
					set[string(b)] = true
				}
			}
			common = set
			out = append(out, toJSONValue(int64(len(common))))
		}
		return Dyn{out}
	}})
	// percentile_array_tdigest(digest, p1, p2, …) or (digest, dynamic([p1, p2, …]))
	def("percentile_array_tdigest", &fnDef{min: 2, max: -1, ret: TDynamic, fn: func(a []any) any {
		vals, raws, ok := digestValues(a[0])
		if !ok || len(vals) == 0 {
			return nil
		}
		var ps []float64
		as := Type("")
		for _, p := range a[1:] {
			if name, ok := p.(string); ok {
				// typeof(T): the values converted to T
				as, _ = ParseType(name)
				continue
			}
			if xs, ok := arr(p); ok {
				for _, x := range xs {
					if f, ok := toReal(Dyn{x}); ok {
						ps = append(ps, f)
					}
				}
			} else if f, ok := toReal(p); ok {
				ps = append(ps, f)
			}
		}
		out := make([]any, len(ps))
		for i, p := range ps {
			out[i] = raws[rankIndex(len(vals), p)]
			if as != "" {
				out[i] = toJSONValue(decode(encode(Dyn{out[i]}, as), as))
			}
		}
		return Dyn{out}
	}})
	funcAliases["percentiles_array_tdigest"] = "percentile_array_tdigest"
	// percentrank_tdigest(digest, value): the share of the values at or below value, in percent
	def("percentrank_tdigest", fixed(TReal, func(a []any) any {
		vals, _, ok := digestValues(a[0])
		v, ok2 := toReal(a[1])
		if !ok || !ok2 || len(vals) == 0 {
			return nil
		}
		n := sort.Search(len(vals), func(i int) bool { return vals[i] > v })
		return 100 * float64(n) / float64(len(vals))
	}, TDynamic, TReal))
}
