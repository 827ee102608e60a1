package compare

import (
	"crypto/sha256"
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// keyed is a result set with every value replaced by its equality key.
type keyed [][]string

func keyRows(rs *qeval.ResultSet, key func(qeval.Value) string) keyed {
	if rs == nil {
		return nil
	}
	out := make(keyed, len(rs.Rows))
	for i, r := range rs.Rows {
		k := make([]string, len(r))
		for j, v := range r {
			k[j] = shortKey(key(v))
		}
		out[i] = k
	}
	return out
}

// maxKeyBytes is the longest value key kept as it is: a longer one (a long text or
// blob) is replaced by its SHA-256 digest, so that keying a result of megabyte values
// does not hold a second copy of them. Keys are only compared for equality, and the
// digest's "#" prefix starts no plain key.
const maxKeyBytes = 64

func shortKey(k string) string {
	if len(k) <= maxKeyBytes {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "#" + string(sum[:])
}

// joinKey joins value keys into one row key, unambiguously (length-prefixed).
func joinKey(b *strings.Builder, vals []string) string {
	if len(vals) == 1 {
		return vals[0]
	}
	b.Reset()
	for _, v := range vals {
		n := len(v)
		b.WriteByte(byte(n >> 24))
		b.WriteByte(byte(n >> 16))
		b.WriteByte(byte(n >> 8))
		b.WriteByte(byte(n))
		b.WriteString(v)
	}
	return b.String()
}

// sameBag reports whether two lists of row keys hold the same rows with the same
// multiplicities.
func sameBag(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := make(map[string]int, len(a))
	for _, k := range a {
		count[k]++
	}
	for _, k := range b {
		n := count[k] - 1
		if n < 0 {
			return false
		}
		count[k] = n
	}
	return true
}

// columnCandidates returns, for each column of g, the columns of p that can stand for
// it under some row permutation: equal multisets of values (any row order), or equal
// sequences (fixed row order). This pruning is sound: a column permutation that makes
// the results equal maps each column to one with the same values.
func columnCandidates(g, p keyed, ordered bool) [][]int {
	n := len(g[0])
	sig := func(k keyed, c int) string {
		vals := make([]string, len(k))
		for i, r := range k {
			vals[i] = r[c]
		}
		if !ordered {
			sort.Strings(vals)
		}
		var b strings.Builder
		return joinKey(&b, vals)
	}
	gs := make([]string, n)
	ps := make([]string, len(p[0]))
	for c := range gs {
		gs[c] = sig(g, c)
	}
	for c := range ps {
		ps[c] = sig(p, c)
	}
	cands := make([][]int, n)
	for i := range gs {
		for j := range ps {
			if gs[i] == ps[j] {
				cands[i] = append(cands[i], j)
			}
		}
	}
	return cands
}

// searchMapping tries every injective mapping of gold columns to candidate predicted
// columns and reports whether accept holds for one of them.
func searchMapping(cands [][]int, width int, accept func(perm []int) bool) bool {
	perm := make([]int, len(cands))
	used := make([]bool, width)
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(cands) {
			return accept(perm)
		}
		for _, c := range cands[i] {
			if used[c] {
				continue
			}
			used[c] = true
			perm[i] = c
			if rec(i + 1) {
				return true
			}
			used[c] = false
		}
		return false
	}
	return rec(0)
}

// permutedEqual reports whether some permutation of p's columns makes p equal to g:
// row by row when ordered, as bags of rows otherwise. Both must have the same number
// of rows (> 0) and columns.
func permutedEqual(g, p keyed, ordered bool) bool {
	n := len(g[0])
	cands := columnCandidates(g, p, ordered)
	var b strings.Builder
	var gRows []string
	if !ordered {
		gRows = make([]string, len(g))
		for i, r := range g {
			gRows[i] = joinKey(&b, r)
		}
	}
	tmp := make([]string, n)
	return searchMapping(cands, n, func(perm []int) bool {
		if ordered {
			for i := range g {
				for j, c := range perm {
					if g[i][j] != p[i][c] {
						return false
					}
				}
			}
			return true
		}
		pRows := make([]string, len(p))
		for i, r := range p {
			for j, c := range perm {
				tmp[j] = r[c]
			}
			pRows[i] = joinKey(&b, tmp)
		}
		return sameBag(gRows, pRows)
	})
}

// rowsOf returns the rows of a result set (nil for a nil set) and whether every row
// has the width of the first: a ragged result (possible from JSON input) equals nothing.
func rowsOf(rs *qeval.ResultSet) ([][]qeval.Value, bool) {
	if rs == nil {
		return nil, true
	}
	for _, r := range rs.Rows {
		if len(r) != len(rs.Rows[0]) {
			return nil, false
		}
	}
	return rs.Rows, true
}

// rows returns the rows of both sets and whether they can be compared at all.
func rows(gold, pred *qeval.ResultSet) (r1, r2 [][]qeval.Value, ok bool) {
	r1, ok1 := rowsOf(gold)
	r2, ok2 := rowsOf(pred)
	return r1, r2, ok1 && ok2
}
