package errclass_test

import (
	"os"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/errclass"
)

// TestVocabulary_Examples checks that every subclass's example gets it: first, or for
// a failure the harness names (other.timeout, …), in the list after the differences
// of the queries that explain it.
func TestVocabulary_Examples(t *testing.T) {
	outcomes := map[string]qeval.Outcome{errclass.OtherTimeout: qeval.OutcomeTimeout, errclass.OtherTooLarge: qeval.OutcomeTooLarge}
	for _, s := range errclass.Vocabulary {
		t.Run(s.Name, func(t *testing.T) {
			v := &qeval.Verdict{Outcome: qeval.OutcomeMismatch}
			if s.Message != "" {
				v = &qeval.Verdict{Outcome: qeval.OutcomePredError, Error: s.Message}
				if o, ok := outcomes[s.Name]; ok {
					v.Outcome = o
				}
			}
			got := errclass.Classify(errclass.Pair{Expected: s.Expected, Generated: s.Generated, Verdict: v})
			subs := subclasses(got)
			if s.Class() == qeval.ClassOther && s.Message != "" {
				if !strings.Contains(strings.Join(subs, " "), s.Name) {
					t.Errorf("Classify(%q, %q)=%v, want %s among them", s.Expected, s.Generated, subs, s.Name)
				}
				return
			}
			if len(got) == 0 || got[0].Subclass != s.Name {
				t.Errorf("Classify(%q, %q)=%v, want %s first", s.Expected, s.Generated, subs, s.Name)
			}
		})
	}
}

// TestVocabulary_Documented checks that docs/error-classes.md names every subclass,
// so the page cannot fall behind the vocabulary.
func TestVocabulary_Documented(t *testing.T) {
	b, err := os.ReadFile("../docs/error-classes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range errclass.Vocabulary {
		if !strings.Contains(string(b), "`"+s.Name+"`") {
			t.Errorf("docs/error-classes.md does not name `%s`", s.Name)
		}
	}
}
