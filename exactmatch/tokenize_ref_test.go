package exactmatch

import (
	"regexp"
	"strings"
	"testing"
)

// treebankRef applies the word tokenizer's rules literally, one regular expression
// each, in their order. It is the specification the fast treebank is checked against.
func treebankRef(s string) []string {
	rules := []struct {
		re   string
		repl string
	}{
		{"([«“‘„]|`+)", " $1 "},
		{`([^.])(\.)([\])}>"'»”’ ]*)\s*$`, "$1 $2 $3 "},
		{`([:,])([^\p{Nd}])`, " $1 $2"},
		{`([:,])$`, " $1 "},
		{`\.{2,}`, " $0 "},
		{`[;@#$%&]`, " $0 "},
		{`([^.])(\.)([\])}>"']*)\s*$`, "$1 $2$3 "},
		{`[?!]`, " $0 "},
		{`[*]`, " $0 "},
		{`[\][(){}<>]`, " $0 "},
		{`--`, " -- "},
	}
	for _, r := range rules {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.repl)
	}
	s = " " + s + " "
	s = reCloseQuote.ReplaceAllString(s, " $1 ")
	for _, re := range reContractions {
		s = re.ReplaceAllString(s, " $1 $2 $3")
	}
	return strings.Fields(s)
}

func FuzzTreebank(f *testing.F) {
	for _, s := range []string{"SELECT T1.name FROM t AS T1 WHERE a >= 1.", "a,,b", "1,2 :x", "x.) ", "a..b. ", "cannot--x", "«a» ,", "x.\t) ", "a,١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, `"'`) {
			return // literals are taken out before the tokenizer runs
		}
		got, want := treebank(s), treebankRef(s)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q:\n got %q\nwant %q", s, got, want)
		}
	})
}
