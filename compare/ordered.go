package compare

import "github.com/qeval/qeval"

// Ordered compares rows in order whatever the queries say, with any column order and
// normalised values.
var Ordered = Mode{
	Name:    "ordered",
	Version: 1,
	Doc:     "Rows compared in order, column permutation allowed, values normalised as in bag.",
	Equal: func(gold, pred *qeval.ResultSet, _ bool) bool {
		return bagEqual(gold, pred, true)
	},
}
