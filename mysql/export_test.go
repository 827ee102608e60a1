package mysql

import "github.com/qeval/qeval"

// Check is check, for the tests of the external test package.
func Check(query string) error {
	_, err := check(query)
	return err
}

// CheckEnd is the end offset check returns.
func CheckEnd(query string) int {
	end, _ := check(query)
	return end
}

// Convert is convert.
func Convert(typ string, v any) qeval.Value { return convert(typ, v) }

// SyntaxPosition is syntaxPosition.
var SyntaxPosition = syntaxPosition

// ExcessGrants is excessGrants.
func ExcessGrants(lines []string) []string { return excessGrants(lines) }
