package exactmatch

import (
	"strings"
	"testing"
)

// The expectations below were checked against NLTK 3.8's word tokenizer run through the
// official process_sql.tokenize.
func TestTokenize(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT count(*) FROM singer`, `select|count|(|*|)|from|singer`},
		{`SELECT a FROM t WHERE b != 'x y'`, `select|a|from|t|where|b|!=|"x y"`},
		{`SELECT a FROM t WHERE b >= 2 AND c<=3`, `select|a|from|t|where|b|>=|2|and|c|<|=3`}, // "<" is padded, "=3" stays one word
		{`SELECT a FROM t WHERE b=2`, `select|a|from|t|where|b=2`},                           // "=" is not split off
		{`SELECT a FROM t WHERE b IN (1,2)`, `select|a|from|t|where|b|in|(|1,2|)`},
		{`SELECT a,b FROM t`, `select|a|,|b|from|t`},
		{`SELECT T1.Name FROM t AS T1;`, `select|t1.name|from|t|as|t1|;`},
		{`SELECT a FROM t WHERE a LIKE "%Ab%"`, `select|a|from|t|where|a|like|"%Ab%"`},
		{`SELECT cannot FROM t`, `select|can|not|from|t`},
		{`SELECT a FROM t WHERE b = 1.`, `select|a|from|t|where|b|=|1|.`},
		{"SELECT `a` FROM t", "select|`|a|`|from|t"},
		{`SELECT a-b FROM t`, `select|a-b|from|t`},
		{`SELECT a--b FROM t`, `select|a|--|b|from|t`},
	}
	for _, c := range cases {
		got, err := tokenize(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, g, c.want)
		}
	}
	if _, err := tokenize(`SELECT a FROM t WHERE b = 'it''s`); err == nil {
		t.Error("an odd number of quotes must be a parse error")
	}
}

func TestPyFloat(t *testing.T) {
	for in, want := range map[string]bool{"1": true, "-1.5": true, "1e3": true, "1_000": true, ".5": true, "5.": true,
		"inf": true, "-Infinity": true, "nan": true, "0x10": false, "1__0": false, "_1": false, "--1": false, "1,2": false,
		"a": false, "": false, "1e": false} {
		if _, ok := pyFloat(in); ok != want {
			t.Errorf("pyFloat(%q) ok = %v, want %v", in, ok, want)
		}
	}
}
