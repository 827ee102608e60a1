package compare_test

import (
	"testing"

	"github.com/qeval/qeval/compare"
)

// TestRemoveDistinct: the official remove_distinct (parse.py) drops every sqlparse
// token equal to "distinct" (any case) and keeps every other byte. The wanted outputs
// were printed by that function with sqlparse 0.4.2.
func TestRemoveDistinct(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT DISTINCT a FROM t", "SELECT  a FROM t"},
		{"SELECT DiStInCt a FROM t", "SELECT  a FROM t"},
		{"select count(distinct a) from t", "select count( a) from t"},
		{"select DISTINCT(a) from t", "select (a) from t"},
		{"select distinct\ta from t", "select \ta from t"},
		{"select distinct\n\na from t", "select \n\na from t"},
		{"select distinct* from t", "select * from t"},
		{"select distinct.a from t", "select .a from t"},
		{"select t.distinct from t", "select t. from t"},
		{"SELECT a FROM t", "SELECT a FROM t"},
		// not a token of its own: longer words, strings, quoted names, comments, sigils
		{"select distinct_a from t", "select distinct_a from t"},
		{"select a_distinct from t", "select a_distinct from t"},
		{"select 1distinct from t", "select 1distinct from t"},
		{"select distinct\u00c4 from t", "select distinct\u00c4 from t"},
		{"select 'distinct' from t", "select 'distinct' from t"},
		{`select "distinct" from t`, `select "distinct" from t`},
		{"select `distinct` from t", "select `distinct` from t"},
		{"select 'it''s distinct' , distinct a from t", "select 'it''s distinct' ,  a from t"},
		{"select a from t -- distinct\n", "select a from t -- distinct\n"},
		{"select x -- distinct\r distinct y", "select x -- distinct\r  y"},
		{"select /* distinct */ distinct a from t", "select /* distinct */  a from t"},
		{"select /* distinct a from t", "select /*  a from t"}, // unterminated: not a comment
		{"select a from t # distinct", "select a from t # distinct"},
		{"select @distinct from t", "select @distinct from t"},
		{"select $distinct from t", "select $distinct from t"},
		{"select :distinct from t", "select :distinct from t"},
		{"select 'unterminated distinct", "select 'unterminated "},
		// sqlparse reads [..] as a quoted name (SQLite accepts it too)
		{"select [distinct] from t", "select [distinct] from t"},
		// sqlparse 0.4.2 lexes strings with the regex '(''|\\'|[^'])*' and Python's
		// backtracking: a backslash escapes only a quote, and a string whose doubled
		// or escaped quote runs into the end of the query ends at that quote instead.
		{`select 'a\\'distinct' from t`, `select 'a\\'distinct' from t`},
		{`select "distinct x""`, `select "distinct x""`},
		{`select 'distinct x''`, `select 'distinct x''`},
		{`select 'distinct x\'`, `select 'distinct x\'`},
	}
	for _, c := range cases {
		if got := compare.RemoveDistinct(c.in); got != c.want {
			t.Errorf("RemoveDistinct(%q)=%q, want %q", c.in, got, c.want)
		}
	}
}

// TestRemoveDistinct_FirstStatementOnly: the official remove_distinct joins the tokens
// of sqlparse.parse(s)[0], the first statement only, so whatever follows the first
// semicolon is dropped (with or without a DISTINCT in the query). A prediction such as
// "SELECT ...; SELECT ..." therefore runs its first statement under the default flags.
func TestRemoveDistinct_FirstStatementOnly(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT distinct a FROM t; SELECT distinct b FROM t", "SELECT  a FROM t; "},
		{"SELECT a FROM t; SELECT b FROM t", "SELECT a FROM t; "},
		{"SELECT a FROM t;", "SELECT a FROM t;"},
		{"SELECT a FROM t; ", "SELECT a FROM t; "},
		{"SELECT 'x;y' FROM t", "SELECT 'x;y' FROM t"},
		{"SELECT 1;\nSELECT 2", "SELECT 1;"},
		{"SELECT 1 /* ; */ ; SELECT 2", "SELECT 1 /* ; */ ; "},
		{"SELECT 1 ;.030 sec", "SELECT 1 ;"},
	}
	for _, c := range cases {
		if got := compare.RemoveDistinct(c.in); got != c.want {
			t.Errorf("RemoveDistinct(%q)=%q, want %q", c.in, got, c.want)
		}
	}
}

// TestReplaceCurYear: the official regex YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s* → 2020,
// any case, eating the spaces after it (outputs printed by exec_eval.replace_cur_year).
func TestReplaceCurYear(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT YEAR(CURDATE()) - age FROM t", "SELECT 2020- age FROM t"},
		{"select year ( curdate ( ) )  -  age from t", "select 2020-  age from t"},
		{"SELECT Year(CurDate())", "SELECT 2020"},
		{"SELECT YEAR(NOW())", "SELECT YEAR(NOW())"},
		{"select yearx(curdate())", "select yearx(curdate())"},
		{"select xYEAR(CURDATE())", "select x2020"},
		{"SELECT age FROM t", "SELECT age FROM t"},
	}
	for _, c := range cases {
		if got := compare.ReplaceCurYear(c.in); got != c.want {
			t.Errorf("ReplaceCurYear(%q)=%q, want %q", c.in, got, c.want)
		}
	}
}
