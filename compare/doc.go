// Package compare decides whether two result sets are the same answer. Each mode is a
// named, versioned value (see Mode) in its own file; modes.go holds the one table of
// them. A mode's semantics never change under the same version: a change is a new
// version (bag@2), and reports record name@version so older runs stay comparable.
//
// Modes:
//
//	spider-ts@1  the official Spider test-suite evaluator's rules, exactly
//	bag@1        spider-ts without query rewrites and with normalised values
//	bird-ex@1    BIRD's rule: equal sets of row tuples, column order fixed
//	ordered@1    rows in order, column permutation allowed, normalised values
//	subset@1     every gold column matched by a distinct generated column, rows as a bag
//	spider2@1    Spider 2.0's evaluate.py: gold columns matched column by column, extras allowed
//	spider2-strict@1  spider2 with rows kept aligned and the tolerance for numbers only
//
// To add a mode, write compare/<mode>.go exporting one Mode value, add it to the table
// in modes.go, and add cases under compare/testdata/<mode>/.
package compare
