package sqlparse_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

var fuzzSeeds = []string{
	"SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.id = T2.id WHERE x BETWEEN 1 AND 2 AND y IN (1, 2) GROUP BY 1 HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 3",
	"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT * FROM n, [t] WHERE \"a\" = 'b'",
	"SELECT (SELECT max(a) FROM u WHERE u.x = t.x) FROM t WHERE EXISTS (SELECT 1) AND NOT a IS NULL",
	"INSERT INTO t SELECT * FROM u; DROP TABLE t; ATTACH 'x' AS y",
	"SELECT a FROM t WHERE (b = 1",
	"SELECT $1, ?, :x FROM t1 NATURAL JOIN t2 USING (id)",
	"SELECT CASE WHEN a THEN b ELSE c END, CAST(x AS int) FROM t",
	"SELECT * FROM t WHERE a IN t2",
	"",
}

// FuzzParse checks the front door never panics, whatever the text, in every dialect,
// with and without a schema. Run it with a short -fuzzminimizetime (say 3s): the
// default minute per new input is spent minimizing through the slower cgo PostgreSQL
// parser, during which the progress line shows no execs.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	schema := &qeval.Schema{Tables: []qeval.TableSchema{{Name: "t", Columns: []qeval.Column{{Name: "a"}, {Name: "x"}}}}}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range sqlparse.Dialects {
			s, err := sqlparse.Parse(d, sql)
			if err == nil && s == nil {
				t.Fatalf("Parse(%q, %q) returned neither a shape nor an error", d, sql)
			}
			sqlparse.ParseStatements(d, sql, schema)
			sqlparse.Split(d, sql)
		}
		sqlparse.Hardness(sql)
	})
}
