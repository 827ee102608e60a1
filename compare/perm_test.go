package compare_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// TestPermutation_EdgeCases: column permutation search in every mode that has it.
func TestPermutation_EdgeCases(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred *qeval.ResultSet
		order      bool
		want       bool
	}{
		{"identical_columns", rows(row(1, 1, 1), row(2, 2, 2)), rows(row(1, 1, 1), row(2, 2, 2)), true, true},
		{"identical_columns_one_differs", rows(row(1, 1, 1), row(2, 2, 2)), rows(row(1, 1, 1), row(2, 2, 3)), false, false},
		{"ambiguous_equal_values", rows(row(1, 2, "x"), row(2, 1, "y")), rows(row(2, 1, "x"), row(1, 2, "y")), true, true},
		{"ambiguous_no_fit", rows(row(1, 2, "x"), row(2, 1, "y"), row(1, 1, "z")), rows(row(2, 1, "x"), row(1, 2, "y"), row(2, 2, "z")), false, false},
		{"five_columns_reversed", rows(row(1, 2, 3, 4, 5), row(6, 7, 8, 9, 10)), rows(row(5, 4, 3, 2, 1), row(10, 9, 8, 7, 6)), true, true},
		{"five_columns_reversed_rows_reordered", rows(row(1, 2, 3, 4, 5), row(6, 7, 8, 9, 10)), rows(row(10, 9, 8, 7, 6), row(5, 4, 3, 2, 1)), false, true},
		{"five_columns_one_cell_differs", rows(row(1, 2, 3, 4, 5), row(6, 7, 8, 9, 10)), rows(row(5, 4, 3, 2, 1), row(10, 9, 8, 7, 7)), false, false},
		{"single_column", rows(row("a"), row("b")), rows(row("b"), row("a")), false, true},
		{"single_column_ordered", rows(row("a"), row("b")), rows(row("b"), row("a")), true, false},
		{"eight_columns_rotated", rows(row(1, 2, 3, 4, 5, 6, 7, 8), row(8, 7, 6, 5, 4, 3, 2, 1)),
			rows(row(8, 1, 2, 3, 4, 5, 6, 7), row(1, 8, 7, 6, 5, 4, 3, 2)), true, true},
		{"all_columns_equal_values", rows(row(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), row(1, 1, 1, 1, 1, 1, 1, 1, 1, 1)),
			rows(row(1, 1, 1, 1, 1, 1, 1, 1, 1, 1), row(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), false, true},
	}
	for _, m := range []compare.Mode{compare.SpiderTS, compare.Bag, compare.Ordered} {
		for _, c := range cases {
			if m.Name == compare.Ordered.Name && !c.order && c.want {
				continue // ordered compares rows in order whatever it is told
			}
			t.Run(m.Name+"/"+c.name, func(t *testing.T) {
				if got := m.Equal(c.gold, c.pred, c.order); got != c.want {
					t.Errorf("%s.Equal(%v, %v, order=%v)=%v, want %v", m.ID(), c.gold.Rows, c.pred.Rows, c.order, got, c.want)
				}
			})
		}
	}
}

// TestSpiderTS_MatchesReference compares spider-ts with a brute-force transcription of
// the official result_eq (no pruning, every permutation) on random small results built
// to be nearly equal: permuted columns, shuffled rows, an int turned into the equal
// float, a cell changed, a row duplicated. The seed is fixed, so the run is repeatable.
func TestSpiderTS_MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 4000
	verdicts := map[bool]int{}
	for i := 0; i < n; i++ {
		cols := 1 + r.IntN(5)
		nrows := r.IntN(5)
		gold := randomRows(r, nrows, cols)
		pred := nearCopy(r, gold, cols)
		order := r.IntN(3) == 0
		want := refResultEq(gold, pred, order)
		got := compare.SpiderTS.Equal(&qeval.ResultSet{Rows: gold}, &qeval.ResultSet{Rows: pred}, order)
		verdicts[want]++
		if got != want {
			t.Fatalf("case %d: SpiderTS.Equal(%v, %v, order=%v)=%v, official rule says %v", i, gold, pred, order, got, want)
		}
	}
	// Both verdicts must be common, or the comparison proves little.
	if verdicts[true] < n/10 || verdicts[false] < n/10 {
		t.Fatalf("verdicts %v: the generator is too one-sided", verdicts)
	}
}

// valuePool holds values whose Python comparisons and sort keys are easy to get wrong.
var valuePool = []qeval.Value{
	qeval.Null, qeval.Int(0), qeval.Int(1), qeval.Int(2), qeval.Int(-1),
	qeval.Float(1), qeval.Float(2), qeval.Float(1.5), qeval.Float(math.Copysign(0, -1)), qeval.Float(0.5),
	qeval.Text("1"), qeval.Text("a"), qeval.Text(""), qeval.Text("1.0"), qeval.Bytes([]byte("a")), qeval.Bool(true),
}

func randomRows(r *rand.Rand, nrows, cols int) [][]qeval.Value {
	out := make([][]qeval.Value, nrows)
	for i := range out {
		out[i] = make([]qeval.Value, cols)
		for j := range out[i] {
			out[i][j] = valuePool[r.IntN(len(valuePool))]
		}
	}
	return out
}

// nearCopy returns rows that often equal gold under some permutation, and often
// differ from it by a little.
func nearCopy(r *rand.Rand, gold [][]qeval.Value, cols int) [][]qeval.Value {
	if r.IntN(6) == 0 {
		return randomRows(r, len(gold)+r.IntN(2)-r.IntN(2)*min(1, len(gold)), cols)
	}
	perm := r.Perm(cols)
	out := make([][]qeval.Value, len(gold))
	for i, g := range gold {
		out[i] = make([]qeval.Value, cols)
		for j, c := range perm {
			out[i][j] = g[c]
		}
	}
	if r.IntN(2) == 0 {
		r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	}
	if len(out) == 0 {
		return out
	}
	switch r.IntN(5) {
	case 0: // an int becomes the equal float, or the reverse
		i, j := r.IntN(len(out)), r.IntN(cols)
		switch v := out[i][j]; v.Kind {
		case qeval.KindInt:
			out[i][j] = qeval.Float(float64(v.Int))
		case qeval.KindFloat:
			if v.Float == math.Trunc(v.Float) {
				out[i][j] = qeval.Int(int64(v.Float))
			}
		}
	case 1: // a cell changes
		out[r.IntN(len(out))][r.IntN(cols)] = valuePool[r.IntN(len(valuePool))]
	case 2: // a row is replaced by a copy of another
		out[r.IntN(len(out))] = append([]qeval.Value(nil), out[r.IntN(len(out))]...)
	}
	return out
}
