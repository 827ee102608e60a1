package compare

import (
	"strings"

	"github.com/qeval/qeval"
)

// BirdEX is BIRD's execution accuracy: set(predicted rows) == set(gold rows), with
// rows as tuples in column order (no permutation), duplicates collapsed, order ignored,
// values equal as Python compares them.
var BirdEX = Mode{
	Name:    "bird-ex",
	Version: 1,
	Doc:     "BIRD's rule: the sets of row tuples are equal; duplicates collapse, column order matters, row order does not.",
	Equal: func(gold, pred *qeval.ResultSet, _ bool) bool {
		g, p := rowSet(gold), rowSet(pred)
		if len(g) != len(p) {
			return false
		}
		for k := range p {
			if _, ok := g[k]; !ok {
				return false
			}
		}
		return true
	},
}

func rowSet(rs *qeval.ResultSet) map[string]struct{} {
	set := make(map[string]struct{}, rs.NumRows())
	var b strings.Builder
	for _, r := range keyRows(rs, pyKey) {
		set[joinKey(&b, r)] = struct{}{}
	}
	return set
}
