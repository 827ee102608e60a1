package sqlparse_test

import (
	"testing"

	"github.com/qeval/qeval/sqlparse"
)

// The counts behind each want are worked out by hand from eval_hardness in the
// official evaluator (comp1 / comp2 / others).
func TestHardness(t *testing.T) {
	tests := []struct{ name, sql, want string }{
		{"Plain", "SELECT count(*) FROM singer", "easy"},                                                                                                                      // 0/0/0
		{"OrderAndColumns", "SELECT name, country, age FROM singer ORDER BY age DESC", "medium"},                                                                              // 1/0/1
		{"TwoConditions", "SELECT name FROM singer WHERE age > 20 AND country = 'France'", "medium"},                                                                          // 1/0/1
		{"NotInIsNestedAndAnAggregate", "SELECT name FROM singer WHERE id NOT IN (SELECT sid FROM c)", "hard"},                                                                // 1/1/0
		{"CompoundOrderDoesNotCount", "SELECT a FROM t UNION SELECT a FROM u ORDER BY a LIMIT 1", "hard"},                                                                     // 0/1/0
		{"LikeAndOr", "SELECT a FROM t WHERE x LIKE '%a%' OR y = 1", "hard"},                                                                                                  // 3/0/1
		{"HavingConnectorCountsAsAggregate", "SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) > 2", "easy"},                                                         // 1/0/0
		{"HavingTwoConnectors", "SELECT a, b FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) > 2 OR max(c) < 3", "extra"},                                                    // 2/0/2
		{"JoinGroupOrderLimit", "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.sid = T2.sid GROUP BY T2.name ORDER BY count(*) DESC LIMIT 1", "extra"}, // 4/0/2
		{"BetweenThenAnd", "SELECT a FROM t WHERE x BETWEEN 1 AND 2 AND y = 3", "medium"},                                                                                     // 1/0/1
		{"FromSubqueryIsATableUnit", "SELECT a FROM (SELECT a FROM t) JOIN u ON 1 = 1 WHERE c = 1 ORDER BY a", "hard"},                                                        // 3/0/0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sqlparse.Hardness(tt.sql)
			if err != nil || got != tt.want {
				t.Errorf("Hardness(%q)=%q, %v; want %q", tt.sql, got, err, tt.want)
			}
		})
	}
	if _, err := sqlparse.Hardness("DELETE FROM t"); err == nil {
		t.Error("Hardness(DELETE) returned no error")
	}
	if _, err := sqlparse.Hardness("SELECT FROM"); err == nil {
		t.Error("Hardness(syntax error) returned no error")
	}
}
