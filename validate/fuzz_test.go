package validate_test

import (
	"testing"

	"github.com/qeval/qeval/validate"
)

// FuzzCheck checks the validator never panics and always gives a verdict whose
// category matches its first problem.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"SELECT name FROM singer", "ATTACH 'x' AS y; SELECT 1", "SELECT foo FROM nonexistent WHERE (", "PRAGMA x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []string{"sqlite", "postgres", "mysql"} {
			v := validate.Check(sql, validate.Options{Dialect: d, Schema: singers, AllowTables: []string{"singer"}})
			if v.Valid != (len(v.Problems) == 0) || (!v.Valid && v.Category != v.Problems[0].Category) {
				t.Fatalf("Check(%q, %s) = %+v: valid and problems disagree", sql, d, v)
			}
		}
	})
}
