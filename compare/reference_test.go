package compare_test

import (
	"math"
	"math/big"
	"sort"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// refResultEq is a plain transcription of the official result_eq (exec_eval.py) for
// small results: Python's == on values, the quick rejection on rows sorted by
// str(x)+str(type(x)), then every column permutation (no pruning at all), compared as a
// list or as a multiset. It is slow and obviously right, to check the fast one against.
// It assumes rectangular results without NaN (SQLite returns no NaN).
func refResultEq(r1, r2 [][]qeval.Value, orderMatters bool) bool {
	if len(r1) == 0 && len(r2) == 0 {
		return true
	}
	if len(r1) != len(r2) || len(r1[0]) != len(r2[0]) {
		return false
	}
	if !refQuickRej(r1, r2, orderMatters) {
		return false
	}
	n := len(r1[0])
	for _, perm := range permutations(n) {
		p := make([][]qeval.Value, len(r2))
		for i, r := range r2 {
			p[i] = make([]qeval.Value, n)
			for j, c := range perm {
				p[i][j] = r[c]
			}
		}
		if orderMatters {
			if rowsEqual(r1, p) {
				return true
			}
		} else if multisetEqual(r1, p) {
			return true
		}
	}
	return false
}

func refQuickRej(r1, r2 [][]qeval.Value, orderMatters bool) bool {
	s1, s2 := unorder(r1), unorder(r2)
	if orderMatters {
		return rowsEqual(s1, s2)
	}
	// set(s1) == set(s2): every row of each has an equal row in the other
	return allIn(s1, s2) && allIn(s2, s1)
}

func unorder(rs [][]qeval.Value) [][]qeval.Value {
	out := make([][]qeval.Value, len(rs))
	for i, r := range rs {
		s := append([]qeval.Value(nil), r...)
		sort.SliceStable(s, func(a, b int) bool { return compare.PySortKey(s[a]) < compare.PySortKey(s[b]) })
		out[i] = s
	}
	return out
}

func allIn(a, b [][]qeval.Value) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if rowEqual(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// multisetEqual matches rows greedily; that is exact because Python's == on these
// values is an equivalence relation.
func multisetEqual(a, b [][]qeval.Value) bool {
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && rowEqual(x, y) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func rowsEqual(a, b [][]qeval.Value) bool {
	for i := range a {
		if !rowEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func rowEqual(a, b []qeval.Value) bool {
	for i := range a {
		if !pyEq(a[i], b[i]) {
			return false
		}
	}
	return true
}

// pyEq is Python's == between the values sqlite3 returns (and bool): numbers by exact
// value across int and float, None only to None, str and bytes only to their own kind.
func pyEq(a, b qeval.Value) bool {
	num := func(v qeval.Value) (*big.Float, bool) {
		switch v.Kind {
		case qeval.KindInt, qeval.KindBool:
			return new(big.Float).SetInt64(v.Int), true
		case qeval.KindFloat:
			if math.IsInf(v.Float, 0) {
				return nil, true
			}
			return new(big.Float).SetFloat64(v.Float), true
		}
		return nil, false
	}
	if x, ok := num(a); ok {
		y, ok := num(b)
		if !ok {
			return false
		}
		if x == nil || y == nil { // infinities: equal only to the same infinity
			return a.Kind == qeval.KindFloat && b.Kind == qeval.KindFloat && a.Float == b.Float
		}
		return x.Cmp(y) == 0
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case qeval.KindNull:
		return true
	case qeval.KindText, qeval.KindBytes:
		return a.Str == b.Str
	}
	return a.Int == b.Int
}

// permutations returns every permutation of 0..n-1.
func permutations(n int) [][]int {
	var out [][]int
	p := make([]int, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			out = append(out, append([]int(nil), p...))
			return
		}
		for c := 0; c < n; c++ {
			if !used[c] {
				used[c] = true
				p[i] = c
				rec(i + 1)
				used[c] = false
			}
		}
	}
	rec(0)
	return out
}
