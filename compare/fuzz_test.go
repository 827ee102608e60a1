package compare_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// fuzzPool adds extremes to valuePool: the ends of int64, huge and tiny floats,
// infinities, numeric text in odd spellings, invalid UTF-8, NUL bytes.
var fuzzPool = append(append([]qeval.Value(nil), valuePool...),
	qeval.Int(math.MinInt64), qeval.Int(math.MaxInt64), qeval.Int(1<<53+1),
	qeval.Float(1e300), qeval.Float(1e16), qeval.Float(1<<53), qeval.Float(5e-324), qeval.Float(0.1),
	qeval.Float(math.Inf(1)), qeval.Float(math.Inf(-1)), qeval.Float(123456789.0),
	qeval.Text("1e16"), qeval.Text(" 1 "), qeval.Text("\xff"), qeval.Text("None"), qeval.Text("1<class 'int'>"),
	qeval.Bytes([]byte{0}), qeval.Bool(false),
)

// fuzzResults turns fuzz bytes into two rectangular results of the same width, an
// order flag and a column permutation.
func fuzzResults(data []byte) (a, b [][]qeval.Value, order bool, perm []int) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		c := int(data[0])
		data = data[1:]
		return c
	}
	cols := 1 + next()%5
	na, nb := next()%6, next()%6
	order = next()%2 == 1
	perm = make([]int, cols)
	for i := range perm {
		perm[i] = i
	}
	for i := cols - 1; i > 0; i-- {
		j := next() % (i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	fill := func(n int) [][]qeval.Value {
		out := make([][]qeval.Value, n)
		for i := range out {
			out[i] = make([]qeval.Value, cols)
			for j := range out[i] {
				out[i][j] = fuzzPool[next()%len(fuzzPool)]
			}
		}
		return out
	}
	return fill(na), fill(nb), order, perm
}

func permuteCols(rs [][]qeval.Value, perm []int) [][]qeval.Value {
	out := make([][]qeval.Value, len(rs))
	for i, r := range rs {
		out[i] = make([]qeval.Value, len(perm))
		for j, c := range perm {
			out[i][j] = r[c]
		}
	}
	return out
}

func reverseRows(rs [][]qeval.Value) [][]qeval.Value {
	out := make([][]qeval.Value, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r
	}
	return out
}

func rs(r [][]qeval.Value) *qeval.ResultSet { return &qeval.ResultSet{Rows: r} }

func addFuzzSeeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 2, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{1, 3, 3, 1, 0, 2, 5, 2, 1, 1, 5, 2})
	f.Add([]byte{2, 1, 1, 0, 1, 2, 6, 5, 7})
	f.Add([]byte{0, 5, 5, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0})
}

// checkReflexive: every mode finds a result equal to itself.
func checkReflexive(t *testing.T, a [][]qeval.Value, order bool) {
	for _, m := range compare.Modes() {
		if !m.Equal(rs(a), rs(a), order) {
			t.Errorf("%s.Equal(a, a, order=%v)=false for a=%v", m.ID(), order, a)
		}
	}
}

// FuzzSpiderEqual: spider-ts never panics, is symmetric, reflexive, blind to column
// order (and to row order when order does not matter), and agrees with the
// brute-force transcription of the official result_eq.
func FuzzSpiderEqual(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b, order, perm := fuzzResults(data)
		m := compare.SpiderTS
		got := m.Equal(rs(a), rs(b), order)
		if back := m.Equal(rs(b), rs(a), order); back != got {
			t.Fatalf("not symmetric: Equal(a, b)=%v, Equal(b, a)=%v\n a=%v\n b=%v", got, back, a, b)
		}
		if want := refResultEq(a, b, order); got != want {
			t.Fatalf("Equal(a, b, order=%v)=%v, official rule says %v\n a=%v\n b=%v", order, got, want, a, b)
		}
		checkReflexive(t, a, order)
		pa := permuteCols(a, perm)
		if !m.Equal(rs(a), rs(pa), order) {
			t.Fatalf("Equal(a, a with columns %v)=false\n a=%v", perm, a)
		}
		if !order && !m.Equal(rs(a), rs(reverseRows(pa)), false) {
			t.Fatalf("Equal(a, a reversed and permuted)=false\n a=%v", a)
		}
	})
}

// FuzzBagEqual: bag (and ordered, bird-ex) never panic and are symmetric; bag is
// reflexive, blind to column order and to spelling numbers as text; subset accepts an
// extra column.
func FuzzBagEqual(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b, order, perm := fuzzResults(data)
		for _, m := range []compare.Mode{compare.Bag, compare.Ordered, compare.BirdEX} {
			if x, y := m.Equal(rs(a), rs(b), order), m.Equal(rs(b), rs(a), order); x != y {
				t.Fatalf("%s not symmetric: Equal(a, b)=%v, Equal(b, a)=%v\n a=%v\n b=%v", m.ID(), x, y, a, b)
			}
		}
		compare.Subset.Equal(rs(a), rs(b), order)
		compare.Subset.Equal(rs(b), rs(a), order)
		checkReflexive(t, a, order)

		pa := permuteCols(a, perm)
		if !compare.Bag.Equal(rs(a), rs(pa), order) {
			t.Fatalf("Bag.Equal(a, a with columns %v)=false\n a=%v", perm, a)
		}
		if !order && !compare.Bag.Equal(rs(a), rs(reverseRows(pa)), false) {
			t.Fatalf("Bag.Equal(a, a reversed and permuted)=false\n a=%v", a)
		}
		if ta, ok := textNumbers(a); ok && !compare.Bag.Equal(rs(a), rs(ta), order) {
			t.Fatalf("Bag.Equal(a, a with numbers as text)=false\n a=%v\n t=%q", a, ta)
		}
		wide := make([][]qeval.Value, len(pa))
		for i, r := range pa {
			wide[i] = append(append([]qeval.Value(nil), r...), qeval.Text("extra"))
		}
		if !compare.Subset.Equal(rs(a), rs(wide), order) {
			t.Fatalf("Subset.Equal(a, a permuted plus a column)=false\n a=%v", a)
		}
	})
}

// textNumbers spells every number of rs as text; ok is false when a value has no
// numeric spelling (infinities).
func textNumbers(rows [][]qeval.Value) ([][]qeval.Value, bool) {
	out := make([][]qeval.Value, len(rows))
	for i, r := range rows {
		out[i] = make([]qeval.Value, len(r))
		for j, v := range r {
			switch v.Kind {
			case qeval.KindInt, qeval.KindBool:
				v = qeval.Text(strconv.FormatInt(v.Int, 10))
			case qeval.KindFloat:
				if math.IsInf(v.Float, 0) {
					return nil, false
				}
				v = qeval.Text(strconv.FormatFloat(v.Float, 'g', -1, 64))
			}
			out[i][j] = v
		}
	}
	return out, true
}

// FuzzRemoveDistinct: never panics, never lengthens the query, and a second pass
// changes nothing — for queries without operator characters or semicolons. With them
// the official remove_distinct is not idempotent itself: sqlparse lexes a run of
// +/@#%^&|- as one operator, so removing a DISTINCT between "/" and "--" or "^" and
// "@distinct" regroups the neighbours ("*/distinct--DISTINCT" loses its second
// DISTINCT only on a second pass), and its statement splitter has similar corners.
// Without those characters sqlparse was idempotent on 100,000 random queries.
func FuzzRemoveDistinct(f *testing.F) {
	for _, s := range []string{
		"SELECT DISTINCT a FROM t", "select count(distinct a) from t", "select 'distinct' , distinct a",
		"select /* distinct */ distinct a -- distinct\n", "select `distinct`, [distinct], \"distinct\"",
		"select 'a''distinct' distinct 'b'", "select 'a\\'distinct'", "select @distinct, $distinct, :distinct",
		"-distinct- distinct", "/distinct* distinct */ distinct", "SELECT DISTINCT a FROM t; SELECT DISTINCT b",
		"", "distinct", "'", "/*", "DISTINCTdistinct distinct\u00e9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out := compare.RemoveDistinct(q)
		if len(out) > len(q) {
			t.Fatalf("RemoveDistinct(%q)=%q is longer", q, out)
		}
		if !strings.Contains(strings.ToLower(q), "distinct") && !strings.Contains(q, ";") && out != q {
			t.Fatalf("RemoveDistinct(%q)=%q changed a query without DISTINCT", q, out)
		}
		if strings.ContainsAny(q, "+/@#%^&|-*;") {
			return
		}
		if again := compare.RemoveDistinct(out); again != out {
			t.Fatalf("RemoveDistinct not idempotent:\n q    %q\n once %q\n twice %q", q, out, again)
		}
	})
}
