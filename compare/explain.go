package compare

import (
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// MaxExplainRows is how many missing and extra rows a qeval.Explanation lists.
const MaxExplainRows = 3

// maxMappingTries bounds the column mappings Explain tries.
const maxMappingTries = 1000

// Explain compares a gold and a predicted result under mode m (its value equality
// where the mode has one: Python's for spider-ts and bird-ex, the normalised one
// otherwise) and says how they differ. It never fails: nil results count as empty.
func Explain(m Mode, gold, pred *qeval.ResultSet, ordered bool) qeval.Explanation {
	key := normKey
	if m.Name == SpiderTS.Name || m.Name == BirdEX.Name {
		key = pyKey
	}
	e := qeval.Explanation{GoldRows: gold.NumRows(), PredRows: pred.NumRows(), Ordered: ordered}
	if m.Equal != nil && gold != nil && pred != nil {
		e.Equal = m.Equal(gold, pred, ordered)
	}
	e.GoldCols, e.PredCols = columnCount(gold), columnCount(pred)
	g, p := keyRows(gold, key), keyRows(pred, key)
	if e.GoldRows > 0 && e.PredRows > 0 {
		e.Unmatched, e.Mapping = columnMapping(g, p, e.PredCols)
	}
	proj := comparedColumns(&e, g, p)
	e.Compared = proj
	if proj == nil {
		return e
	}
	var b strings.Builder
	gk := rowKeys(&b, g)
	pk := projectedKeys(&b, p, proj, make([]string, len(proj)))
	missingAt, extraAt := bagDifference(gk, pk)
	e.MissingCount, e.ExtraCount = len(missingAt), len(extraAt)
	for _, i := range missingAt[:min(len(missingAt), MaxExplainRows)] {
		e.Missing = append(e.Missing, qeval.ShownRow(gold.Rows[i]))
	}
	for _, i := range extraAt[:min(len(extraAt), MaxExplainRows)] {
		e.Extra = append(e.Extra, qeval.ShownRow(projectRow(pred.Rows[i], proj)))
	}
	if len(missingAt) == 0 && len(extraAt) == 0 && ordered {
		for i := range gk {
			if gk[i] != pk[i] {
				e.SameRowsOtherOrder = true
				e.First = firstCell(gold, pred, g, p, i, i, proj)
				break
			}
		}
	}
	switch {
	case e.First != nil:
	case ordered && len(gk) > 0 && len(pk) > 0:
		for i := 0; i < min(len(gk), len(pk)); i++ {
			if gk[i] != pk[i] {
				e.First = firstCell(gold, pred, g, p, i, i, proj)
				break
			}
		}
	case len(missingAt) > 0 && len(extraAt) > 0:
		e.First = firstCell(gold, pred, g, p, missingAt[0], extraAt[0], proj)
	}
	return e
}

// columnMapping returns the gold columns whose set of values no predicted column
// holds, and a mapping from gold to predicted columns: one under which the rows are
// equal as bags, else the first one tried. Both results must have rows.
func columnMapping(g, p keyed, predCols int) (unmatched, mapping []int) {
	cands := setCandidates(g, p)
	for i, c := range cands {
		if len(c) == 0 {
			unmatched = append(unmatched, i)
		}
	}
	var first []int
	tries := 0
	var b strings.Builder
	gRows := rowKeys(&b, g)
	tmp := make([]string, len(cands))
	searchMapping(cands, predCols, func(perm []int) bool {
		tries++
		if first == nil {
			first = append([]int(nil), perm...)
		}
		if sameBag(gRows, projectedKeys(&b, p, perm, tmp)) {
			mapping = append([]int(nil), perm...)
			return true
		}
		return tries >= maxMappingTries
	})
	if mapping == nil {
		mapping = first
	}
	return unmatched, mapping
}

// comparedColumns is the predicted column compared with each gold column: rows are
// compared through the mapping, else through the columns that share the most values,
// else position by position; nil when none of these applies.
func comparedColumns(e *qeval.Explanation, g, p keyed) []int {
	proj := e.Mapping
	if proj == nil && e.GoldRows > 0 && e.PredRows > 0 && e.PredCols >= e.GoldCols {
		proj = closestColumns(g, p)
	}
	if proj == nil && e.GoldCols == e.PredCols {
		proj = make([]int, e.GoldCols)
		for i := range proj {
			proj[i] = i
		}
	}
	return proj
}

// rowKeys joins each row into one key.
func rowKeys(b *strings.Builder, rows keyed) []string {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = joinKey(b, r)
	}
	return keys
}

// projectedKeys joins each row, taken through proj (tmp holds len(proj) cells), into
// one key.
func projectedKeys(b *strings.Builder, rows keyed, proj []int, tmp []string) []string {
	keys := make([]string, len(rows))
	for i, r := range rows {
		for j, c := range proj {
			tmp[j] = r[c]
		}
		keys[i] = joinKey(b, tmp)
	}
	return keys
}

// bagDifference returns the positions of the gold keys the predicted ones lack and of
// the predicted keys the gold ones lack, counting duplicates.
func bagDifference(gk, pk []string) (missingAt, extraAt []int) {
	count := map[string]int{}
	for _, k := range pk {
		count[k]++
	}
	for i, k := range gk {
		if count[k] > 0 {
			count[k]--
			continue
		}
		missingAt = append(missingAt, i)
	}
	left := map[string]int{}
	for _, k := range gk {
		left[k]++
	}
	for i, k := range pk {
		if left[k] > 0 {
			left[k]--
			continue
		}
		extraAt = append(extraAt, i)
	}
	return missingAt, extraAt
}

// setCandidates returns, for each gold column, the predicted columns holding the same
// set of distinct values.
func setCandidates(g, p keyed) [][]int {
	sig := func(k keyed, c int) string {
		seen := map[string]bool{}
		var vals []string
		for _, r := range k {
			if !seen[r[c]] {
				seen[r[c]] = true
				vals = append(vals, r[c])
			}
		}
		sort.Strings(vals)
		var b strings.Builder
		return joinKey(&b, vals)
	}
	ps := make([]string, len(p[0]))
	for c := range ps {
		ps[c] = sig(p, c)
	}
	cands := make([][]int, len(g[0]))
	for i := range cands {
		gs := sig(g, i)
		for j, s := range ps {
			if s == gs {
				cands[i] = append(cands[i], j)
			}
		}
	}
	return cands
}

// closestColumns pairs each gold column, greedily, with the unused predicted column
// sharing the most values with it (the leftmost on a tie).
func closestColumns(g, p keyed) []int {
	n, m := len(g[0]), len(p[0])
	overlap := make([][]int, n)
	for i := 0; i < n; i++ {
		overlap[i] = make([]int, m)
		count := map[string]int{}
		for _, r := range g {
			count[r[i]]++
		}
		for j := 0; j < m; j++ {
			c := map[string]int{}
			for k, v := range count {
				c[k] = v
			}
			for _, r := range p {
				if c[r[j]] > 0 {
					c[r[j]]--
					overlap[i][j]++
				}
			}
		}
	}
	proj := make([]int, n)
	used := make([]bool, m)
	done := make([]bool, n)
	for step := 0; step < n; step++ {
		bi, bj, best := -1, -1, -1
		for i := 0; i < n; i++ {
			if done[i] {
				continue
			}
			for j := 0; j < m; j++ {
				if !used[j] && (overlap[i][j] > best || overlap[i][j] == best && i == j) {
					bi, bj, best = i, j, overlap[i][j]
				}
			}
		}
		proj[bi], used[bj], done[bi] = bj, true, true
	}
	return proj
}

func columnCount(rs *qeval.ResultSet) int {
	if rs == nil {
		return 0
	}
	if len(rs.Columns) > 0 {
		return len(rs.Columns)
	}
	if len(rs.Rows) > 0 {
		return len(rs.Rows[0])
	}
	return 0
}

func projectRow(r []qeval.Value, proj []int) []qeval.Value {
	out := make([]qeval.Value, len(proj))
	for j, c := range proj {
		if c < len(r) {
			out[j] = r[c]
		}
	}
	return out
}

// firstCell finds the first column where gold row gi and predicted row pi differ.
func firstCell(gold, pred *qeval.ResultSet, g, p keyed, gi, pi int, proj []int) *qeval.Difference {
	for j, c := range proj {
		if j < len(g[gi]) && c < len(p[pi]) && g[gi][j] != p[pi][c] {
			name := ""
			if j < len(gold.Columns) {
				name = gold.Columns[j].Name
			}
			return &qeval.Difference{Row: gi, Column: name, Gold: gold.Rows[gi][j].Shown(), Pred: pred.Rows[pi][c].Shown()}
		}
	}
	return nil
}
