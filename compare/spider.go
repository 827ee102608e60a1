package compare

import (
	"math"
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// SpiderTS is the official Spider test-suite evaluator's execution match
// (taoyds/test-suite-sql-eval, exec_eval.py), rule for rule:
//   - queries are rewritten first (see spiderRewrite);
//   - row order matters iff the rewritten gold query contains "order by" (any case);
//   - two empty results match; otherwise the row counts and column counts must agree;
//   - quick rejection: with the values of each row sorted by Python's str(x)+str(type(x)),
//     the rows must be equal in order (order matters) or as sets;
//   - then some permutation of the predicted columns must make the results equal, row by
//     row (order matters) or as bags of rows;
//   - values are equal as Python compares them: 1 == 1.0, NULL == NULL, text never equals
//     a number, no float tolerance; text had invalid UTF-8 bytes dropped when decoded.
//
// The official code prunes column permutations by sampling 20 random rows; that pruning
// is sound, so its verdicts do not depend on the draw. Here the pruning uses every row
// and is deterministic, with the same verdicts.
var SpiderTS = Mode{
	Name:    "spider-ts",
	Version: 1,
	Doc: "The official Spider test-suite rules: bag of rows, column permutation, row order iff the gold " +
		"query has ORDER BY, Python value equality (1 == 1.0, text != number), DISTINCT removed from both " +
		"queries unless kept, the evaluator's query clean-ups.",
	Rewrite:      spiderRewrite,
	OrderMatters: func(gold string) bool { return strings.Contains(strings.ToLower(gold), "order by") },
	Equal:        spiderEqual,
}

func spiderEqual(gold, pred *qeval.ResultSet, orderMatters bool) bool {
	r1, r2, ok := rows(gold, pred)
	if !ok {
		return false
	}
	if len(r1) == 0 && len(r2) == 0 {
		return true
	}
	if len(r1) != len(r2) {
		return false
	}
	if len(r1[0]) != len(r2[0]) {
		return false
	}
	if identical(r1, r2) {
		// Same values of the same types in the same places: quick rejection passes and
		// the identity permutation matches, with or without order.
		return true
	}
	if !quickReject(r1, r2, orderMatters) {
		return false
	}
	return permutedEqual(keyRows(gold, pyKey), keyRows(pred, pyKey), orderMatters)
}

// identical reports whether two results hold the same values of the same kinds in the
// same places (floats compared bit for bit, so 0.0 and -0.0, whose str() differ, are
// not identical).
func identical(r1, r2 [][]qeval.Value) bool {
	for i, row := range r1 {
		other := r2[i]
		for j, v := range row {
			w := other[j]
			if v.Kind != w.Kind || v.Int != w.Int || v.Str != w.Str || math.Float64bits(v.Float) != math.Float64bits(w.Float) {
				return false
			}
		}
	}
	return true
}

// quickReject is the official quick_rej: rows with their values sorted by Python's
// str(x)+str(type(x)) must be equal in order, or as sets (not bags) of rows. It returns
// false when the results are certainly different.
func quickReject(r1, r2 [][]qeval.Value, orderMatters bool) bool {
	s1, s2 := unorderRows(r1), unorderRows(r2)
	if orderMatters {
		for i := range s1 {
			if s1[i] != s2[i] {
				return false
			}
		}
		return true
	}
	set1 := make(map[string]struct{}, len(s1))
	for _, k := range s1 {
		set1[k] = struct{}{}
	}
	set2 := make(map[string]struct{}, len(s2))
	for _, k := range s2 {
		if _, ok := set1[k]; !ok {
			return false
		}
		set2[k] = struct{}{}
	}
	return len(set1) == len(set2)
}

func unorderRows(rows [][]qeval.Value) []string {
	out := make([]string, len(rows))
	var b strings.Builder
	type kv struct{ sort, eq string }
	var vals []kv
	keys := make([]string, 0, 8)
	if len(rows) > 0 && len(rows[0]) == 1 {
		for i, r := range rows {
			out[i] = pyKey(r[0])
		}
		return out
	}
	for i, r := range rows {
		vals = vals[:0]
		for _, v := range r {
			vals = append(vals, kv{pySortKey(v), pyKey(v)})
		}
		sort.SliceStable(vals, func(a, b int) bool { return vals[a].sort < vals[b].sort })
		keys = keys[:0]
		for _, v := range vals {
			keys = append(keys, v.eq)
		}
		out[i] = joinKey(&b, keys)
	}
	return out
}
