package sqlparse

import (
	"encoding/json"
	"sync"
	"testing"
)

// Statements parsed side by side are each their own: a parser goes back to the pool
// only after its statements are converted (its nodes live in memory it reuses).
func TestParseMySQL_Concurrent(t *testing.T) {
	queries := []string{
		"SELECT a, b FROM t WHERE a > 1",
		"SELECT count(*) FROM singer GROUP BY country HAVING count(*) > 2 ORDER BY 1",
		"SELECT x.name, avg(y.v) FROM x JOIN y ON x.id = y.id WHERE y.v LIKE '%a%' GROUP BY x.name",
		"SELECT * FROM (SELECT id FROM u UNION SELECT id FROM w) AS s LIMIT 3",
	}
	shape := func(q string) (string, error) {
		st, err := ParseStatements(MySQL, q, nil)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(st)
		return string(b), err
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		var err error
		if want[i], err = shape(q); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 300 {
				i := (g + n) % len(queries)
				if got, err := shape(queries[i]); err != nil || got != want[i] {
					t.Errorf("%q parsed side by side:\n%s (%v)\nwant\n%s", queries[i], got, err, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
