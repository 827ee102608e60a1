package compare

import (
	"strings"

	"github.com/qeval/qeval"
)

// Subset accepts extra generated columns: every gold column must be matched by a
// distinct generated column such that, projected on those columns, the generated rows
// equal the gold rows as a bag. Values are normalised as in bag. This is the "subset"
// rule of defog's sql-eval and IBM's evaluations, for queries that return more than
// was asked.
var Subset = Mode{
	Name:    "subset",
	Version: 1,
	Doc:     "Every gold column is matched by a distinct generated column (extra generated columns allowed); rows as a bag; values normalised as in bag.",
	Equal:   subsetEqual,
}

func subsetEqual(gold, pred *qeval.ResultSet, _ bool) bool {
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
	if len(r2[0]) < len(r1[0]) {
		return false
	}
	g, p := keyRows(gold, normKey), keyRows(pred, normKey)
	cands := columnCandidates(g, p, false)
	var b strings.Builder
	gRows := make([]string, len(g))
	for i, r := range g {
		gRows[i] = joinKey(&b, r)
	}
	tmp := make([]string, len(g[0]))
	return searchMapping(cands, len(p[0]), func(perm []int) bool {
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
