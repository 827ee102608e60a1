package errclass_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/errclass"
)

// FuzzClassify: generated queries are untrusted; classifying any pair never panics
// and a wrong query always gets at least one class, with a main class of the
// vocabulary.
func FuzzClassify(f *testing.F) {
	for _, s := range errclass.Vocabulary {
		f.Add(s.Expected, s.Generated, "")
	}
	f.Add("T | where A > 1 | summarize count() by B", "T | where A >= 1 | top 3 by B", "kql")
	f.Add("SELECT a FROM t WHERE x IN (SELECT y FROM u WHERE z = (SELECT 1))", "SELECT a FROM t WHERE NOT x NOT IN (1, 2) OR EXISTS (SELECT 1)", "postgres")
	f.Fuzz(func(t *testing.T, gold, pred, dialect string) {
		got := errclass.Classify(errclass.Pair{Dialect: dialect, Expected: gold, Generated: pred, Verdict: &qeval.Verdict{Outcome: qeval.OutcomeMismatch}})
		if len(got) == 0 {
			t.Fatalf("no class for %q / %q", gold, pred)
		}
		for _, c := range got {
			if qeval.ClassOfSubclass(c.Subclass) != c.Class {
				t.Fatalf("class %q of subclass %q", c.Class, c.Subclass)
			}
			if _, ok := errclass.Lookup(c.Subclass); !ok {
				t.Fatalf("subclass %q is not in the vocabulary", c.Subclass)
			}
		}
	})
}
