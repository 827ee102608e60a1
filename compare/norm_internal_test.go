package compare

import "testing"

func TestHasOrderBy(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT a FROM t ORDER BY a":                                         true,
		"select a from t order\n  by a desc limit 1":                         true,
		"SELECT a, rank() OVER (ORDER BY b) FROM t":                          false,
		"SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3)":                 false,
		"SELECT 'order by' FROM t":                                           false,
		"SELECT a FROM t -- order by a\n":                                    false,
		"SELECT reorder by FROM t":                                           false,
		"SELECT a, rank() OVER (ORDER BY b) AS r FROM t ORDER BY r":          true,
		"SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b) ORDER BY a": true,
	} {
		if got := hasOrderBy(q); got != want {
			t.Errorf("hasOrderBy(%q) = %v, want %v", q, got, want)
		}
	}
}
