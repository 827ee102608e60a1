package compare

// Bag is the seed semantics: rows as a bag (in order when the gold query has ORDER BY),
// any column order, values normalised (see normKey), and the queries run as written.
var Bag = Mode{
	Name:    "bag",
	Version: 1,
	Doc: "Rows as a bag (ordered when the gold query has ORDER BY), column permutation allowed, values " +
		"normalised: 1 == 1.0 == \"1\", floats to 12 significant digits; queries run as written.",
	OrderMatters: hasOrderBy,
	Equal:        bagEqual,
}
