package testsuite

import (
	"strings"
	"testing"
)

func TestNeighboursOf(t *testing.T) {
	q := `SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id
		WHERE T1.age > 20 AND T1.country = 'France' GROUP BY T1.id HAVING count(*) >= 2 ORDER BY count(*) DESC LIMIT 3`
	s, err := parseSelect(q)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string][]string{"name": {"country"}, "age": {"name"}}
	got := neighboursOf(s, cols, nil, 200)
	changes := map[string]string{}
	for _, n := range got {
		changes[n.Change] = n.SQL
	}
	for change, want := range map[string]string{
		"change > to >=":                `"T1"."age" >= 20`,
		"drop the right operand of AND": `WHERE "T1"."age" > 20 GROUP BY`,
		"change AND to OR":              `"T1"."age" > 20 OR "T1"."country" = 'France'`,
		"toggle LEFT JOIN":              `LEFT JOIN "concert"`,
		"toggle DISTINCT":               "SELECT DISTINCT",
		"drop HAVING":                   `GROUP BY "T1"."id" ORDER BY`,
		"flip ORDER BY direction":       "ORDER BY count(*) LIMIT 3",
		"LIMIT 4":                       "LIMIT 4",
		"LIMIT 2":                       "LIMIT 2",
		"drop LIMIT":                    "DESC",
		"select column country instead": `SELECT "T1"."country", count(*)`,
		"compare column name instead":   `"T1"."name" > 20`,
		"change literal 20 by one":      `"T1"."age" > 21`,
		"drop WHERE":                    `"T2"."singer_id" GROUP BY`,
		"negate WHERE":                  "WHERE NOT (",
		"change = to !=":                `"T1"."country" != 'France'`,
	} {
		sql, ok := changes[change]
		if !ok {
			t.Errorf("no neighbour %q among %d", change, len(got))
			continue
		}
		if !strings.Contains(sql, want) {
			t.Errorf("neighbour %q = %s, want it to contain %s", change, sql, want)
		}
	}
	seen := map[string]bool{s.String(): true}
	for _, n := range got {
		if seen[n.SQL] {
			t.Errorf("neighbour %q repeats a query: %s", n.Change, n.SQL)
		}
		seen[n.SQL] = true
		if _, err := parseSelect(n.SQL); err != nil {
			t.Errorf("neighbour %q does not parse: %v\n%s", n.Change, err, n.SQL)
		}
	}
	if got := neighboursOf(s, cols, nil, 5); len(got) != 5 {
		t.Errorf("neighboursOf with max 5 returned %d", len(got))
	}
}

func TestTieCheck(t *testing.T) {
	s, _ := parseSelect("SELECT name FROM t GROUP BY name ORDER BY count(*) DESC LIMIT 1")
	tc := newTieCheck(s)
	if tc == nil || !strings.Contains(tc.query, "LIMIT 2") || tc.keys[0] != 1 {
		t.Fatalf("tie check %+v, want the count as an extra column and LIMIT 2", tc)
	}
	if s, _ := parseSelect("SELECT name FROM t ORDER BY name"); newTieCheck(s) != nil {
		t.Error("a query without LIMIT has no cut to check")
	}
	s, _ = parseSelect("SELECT count(*) FROM c WHERE sid = (SELECT sid FROM s ORDER BY cap DESC LIMIT 1)")
	if n := len(newTieChecks(s)); n != 1 {
		t.Errorf("%d checks for a subquery with ORDER BY … LIMIT, want 1", n)
	}
}
