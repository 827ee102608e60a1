package compare

import (
	"strings"

	"github.com/qeval/qeval"
)

// SoftF1 is BIRD's soft-F1 score (mini_dev evaluation_f1.py) of a predicted result
// against a gold one, between 0 and 1. Both empty score 1. Duplicate rows are
// dropped (first occurrence kept), then the i-th predicted row is paired with the i-th
// gold row: a value counts as matched when the other row holds an equal value
// (Python's ==, so 1 == 1.0 and "1" != 1), unmatched values count against precision
// or recall as a fraction of the gold row's width, and unpaired rows count whole.
func SoftF1(gold, pred *qeval.ResultSet) float64 {
	if pred.NumRows() == 0 && gold.NumRows() == 0 {
		return 1
	}
	p, g := uniqueRows(pred), uniqueRows(gold)
	// Sums run in the order the reference builds its lists, so the floating-point
	// result is the same to the last bit.
	var tp, fp, fn float64
	for i, gr := range g {
		if i >= len(p) {
			fn += 1
			continue
		}
		m, po, to := rowMatch(p[i], gr)
		tp += m
		fp += po
		fn += to
	}
	for i := len(g); i < len(p); i++ {
		fp += 1
	}
	precision, recall := 0.0, 0.0
	if tp+fp > 0 {
		precision = tp / (tp + fp)
	}
	if tp+fn > 0 {
		recall = tp / (tp + fn)
	}
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

// uniqueRows returns the rows of rs as Python value keys, duplicates dropped.
func uniqueRows(rs *qeval.ResultSet) [][]string {
	rows := keyRows(rs, pyKey)
	seen := make(map[string]bool, len(rows))
	out := rows[:0]
	var b strings.Builder
	for _, r := range rows {
		k := joinKey(&b, r)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// rowMatch scores one predicted row against one gold row as fractions of the gold
// row's width: values of pred found in gold, values only in pred, values only in gold.
func rowMatch(pred, gold []string) (match, predOnly, goldOnly float64) {
	in := func(v string, row []string) bool {
		for _, x := range row {
			if x == v {
				return true
			}
		}
		return false
	}
	var m, po, to int
	for _, v := range pred {
		if in(v, gold) {
			m++
		} else {
			po++
		}
	}
	for _, v := range gold {
		if !in(v, pred) {
			to++
		}
	}
	w := float64(len(gold))
	return float64(m) / w, float64(po) / w, float64(to) / w
}
