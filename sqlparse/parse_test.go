package sqlparse_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

func mustParse(tb testing.TB, dialect, q string) *qeval.Shape {
	tb.Helper()
	s, err := sqlparse.Parse(dialect, q)
	if err != nil {
		tb.Fatalf("Parse(%q, %q): %v", dialect, q, err)
	}
	return s
}

func cols(s *qeval.Shape) []string {
	out := []string{}
	for _, c := range s.Columns {
		if c.Table != "" {
			out = append(out, c.Table+"."+c.Name)
		} else {
			out = append(out, c.Name)
		}
	}
	return out
}

func filters(s *qeval.Shape) []string {
	out := []string{}
	for _, f := range s.Filters {
		out = append(out, f.Clause+":"+f.Column+" "+f.Operator+" "+f.Value)
	}
	return out
}

func TestParse_Tables(t *testing.T) {
	tests := []struct {
		name, dialect, sql string
		tables             []string
	}{
		{"Join", "", "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id", []string{"concert", "stadium"}},
		{"LeftJoinNoAs", "", "SELECT s.name FROM singer s LEFT OUTER JOIN song g ON s.id = g.singer_id", []string{"singer", "song"}},
		{"CommaJoin", "", "SELECT * FROM a, b CROSS JOIN c NATURAL JOIN d", []string{"a", "b", "c", "d"}},
		{"SubqueryInWhere", "", "SELECT name FROM singer WHERE id NOT IN (SELECT singer_id FROM singer_in_concert)", []string{"singer", "singer_in_concert"}},
		{"SubqueryInFrom", "", "SELECT x.n FROM (SELECT name AS n FROM singer) AS x", []string{"singer"}},
		{"CTEIsNotATable", "", "WITH top AS (SELECT * FROM singer ORDER BY age LIMIT 3) SELECT name FROM top JOIN song ON song.sid = top.id", []string{"singer", "song"}},
		{"CTEShadowsTable", "", "WITH singer AS (SELECT 1 AS id) SELECT id FROM singer", []string{}},
		{"CTEBodyReadsTableOfSameName", "", "WITH singer AS (SELECT * FROM singer WHERE age > 30) SELECT count(*) FROM singer", []string{"singer"}},
		{"RecursiveCTE", "", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n", []string{}},
		{"SetOperations", "", "SELECT a FROM t1 UNION SELECT a FROM t2 EXCEPT SELECT a FROM T1 INTERSECT SELECT a FROM t3", []string{"t1", "t2", "t3"}},
		{"SchemaAndQuoted", "", `SELECT "Name" FROM main."Singer" JOIN other.song ON 1 JOIN [order] ON 1`, []string{"Singer", "other.song", "order"}},
		{"ExistsCorrelated", "", "SELECT name FROM singer s WHERE EXISTS (SELECT 1 FROM song WHERE song.sid = s.id)", []string{"singer", "song"}},
		{"ScalarSubqueryInSelect", "", "SELECT (SELECT max(age) FROM singer), count(*) FROM concert", []string{"concert", "singer"}}, // FROM is walked first
		{"InTable", "", "SELECT * FROM a WHERE x IN b", []string{"a", "b"}},
		{"DedupCaseInsensitive", "", "SELECT * FROM Singer WHERE id IN (SELECT id FROM SINGER)", []string{"Singer"}},
		{"PostgresSchema", "postgres", "SELECT * FROM public.singer JOIN sales.orders o USING (id) JOIN LATERAL (SELECT 1) x ON true", []string{"singer", "sales.orders"}},
		{"PostgresFullJoin", "postgres", "SELECT * FROM a FULL JOIN b ON a.id = b.id RIGHT JOIN c ON c.id = b.id", []string{"a", "b", "c"}},
		{"MySQLBackquotes", "mysql", "SELECT `t`.`name` FROM `db1`.`singer` AS `t` JOIN song ON song.id = t.id", []string{"db1.singer", "song"}},
		{"MySQLIntersect", "mysql", "SELECT a FROM t1 INTERSECT SELECT a FROM t2 EXCEPT SELECT a FROM t3", []string{"t1", "t2", "t3"}},
		{"MySQLCTE", "mysql", "WITH c AS (SELECT id FROM t1) SELECT * FROM c JOIN t2 ON t2.id = c.id", []string{"t1", "t2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.dialect, tt.sql)
			if !reflect.DeepEqual(s.Tables, tt.tables) {
				t.Errorf("Tables=%q, want %q", s.Tables, tt.tables)
			}
		})
	}
}

func TestParse_Shape(t *testing.T) {
	const q = `SELECT T2.name, count(*) AS n FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id
WHERE T1.year >= 2014 AND 'x' < T2.city AND T2.capacity BETWEEN 10 AND 20 AND T1.theme NOT IN ('a', 'b')
GROUP BY T2.name HAVING avg(T2.capacity) > 5 OR n <> 3 ORDER BY n DESC, T2.name LIMIT 3`
	for _, d := range sqlparse.Dialects {
		t.Run(d, func(t *testing.T) {
			s := mustParse(t, d, q)
			if s.Kind != "select" || s.Dialect != d || s.Source != "parser" {
				t.Errorf("Kind=%q Dialect=%q Source=%q", s.Kind, s.Dialect, s.Source)
			}
			low := func(in []string) []string {
				out := make([]string, len(in))
				for i, x := range in {
					out[i] = strings.ToLower(x)
				}
				return out
			}
			wantCols := []string{"concert.stadium_id", "stadium.stadium_id", "stadium.name", "concert.year", "stadium.city", "stadium.capacity", "concert.theme"}
			if got := low(cols(s)); !reflect.DeepEqual(got, wantCols) {
				t.Errorf("Columns=%q\nwant %q", got, wantCols)
			}
			wantFilters := []string{
				"join:concert.stadium_id = ",
				"where:concert.year >= 2014",
				"where:stadium.city > x",
				"where:stadium.capacity between 10 and 20",
				"where:concert.theme not in a, b",
				"having:avg(stadium.capacity) > 5",
				"having:n != 3",
			}
			if got := low(filters(s)); !reflect.DeepEqual(got, wantFilters) {
				t.Errorf("Filters=%q\nwant %q", got, wantFilters)
			}
			wantAggs := []qeval.Aggregate{{Func: "count", Arg: "*"}, {Func: "avg", Arg: "stadium.capacity"}}
			if !reflect.DeepEqual(s.Aggregates, wantAggs) {
				t.Errorf("Aggregates=%v, want %v", s.Aggregates, wantAggs)
			}
			if got := low(s.GroupBy); !reflect.DeepEqual(got, []string{"stadium.name"}) {
				t.Errorf("GroupBy=%q", got)
			}
			wantOrder := []qeval.OrderTerm{{Expr: "n", Desc: true}, {Expr: "stadium.name"}}
			if len(s.OrderBy) != 2 || strings.ToLower(s.OrderBy[0].Expr) != "n" || !s.OrderBy[0].Desc || strings.ToLower(s.OrderBy[1].Expr) != "stadium.name" || s.OrderBy[1].Desc {
				t.Errorf("OrderBy=%v, want %v", s.OrderBy, wantOrder)
			}
			if s.Limit != "3" {
				t.Errorf("Limit=%q, want 3", s.Limit)
			}
			if got := low(s.Output); !reflect.DeepEqual(got, []string{"name", "n"}) {
				t.Errorf("Output=%q", got)
			}
			if len(s.Aliases) != 2 || !strings.EqualFold(s.Aliases[aliasKey(s, "t1")], "concert") {
				t.Errorf("Aliases=%v", s.Aliases)
			}
		})
	}
}

func aliasKey(s *qeval.Shape, name string) string {
	for k := range s.Aliases {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}

func TestParse_Kinds(t *testing.T) {
	tests := []struct{ dialect, sql, kind string }{
		{"", "select 1", "select"},
		{"", "VALUES (1), (2)", "select"},
		{"", "WITH a AS (SELECT 1) SELECT * FROM a", "select"},
		{"", "INSERT INTO t VALUES (1)", "insert"},
		{"", "REPLACE INTO t VALUES (1)", "replace"},
		{"", "UPDATE t SET a = 1 WHERE b IN (SELECT b FROM u)", "update"},
		{"", "DELETE FROM t", "delete"},
		{"", "DROP TABLE t", "drop"},
		{"", "CREATE TABLE t AS SELECT * FROM u", "create"},
		{"", "ALTER TABLE t ADD COLUMN c", "alter"},
		{"", "PRAGMA table_info(t)", "pragma"},
		{"", "EXPLAIN QUERY PLAN SELECT 1", "explain"},
		{"", "BEGIN", "begin"},
		{"postgres", "SELECT * INTO t2 FROM t", "create"},
		{"postgres", "TRUNCATE t", "truncate"},
		{"postgres", "COPY t TO '/tmp/x'", "copy"},
		{"postgres", "SET search_path = x", "set"},
		{"postgres", "DELETE FROM t USING u WHERE t.id = u.id", "delete"},
		{"mysql", "SHOW TABLES", "show"},
		{"mysql", "SELECT * FROM t INTO OUTFILE '/tmp/x'", "select_into"},
		{"mysql", "LOAD DATA INFILE '/tmp/x' INTO TABLE t", "load"},
		{"mysql", "UPDATE t SET a = 1", "update"},
	}
	for _, tt := range tests {
		s, err := sqlparse.Parse(tt.dialect, tt.sql)
		if err != nil {
			t.Errorf("Parse(%q, %q): %v", tt.dialect, tt.sql, err)
			continue
		}
		if s.Kind != tt.kind {
			t.Errorf("Parse(%q, %q).Kind=%q, want %q", tt.dialect, tt.sql, s.Kind, tt.kind)
		}
	}
	s := mustParse(t, "", "UPDATE t SET a = 1 WHERE b IN (SELECT b FROM u)")
	if !reflect.DeepEqual(s.Tables, []string{"t", "u"}) {
		t.Errorf("UPDATE Tables=%q, want [t u]", s.Tables)
	}
}

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name, dialect, sql string
		line, col          int
	}{
		{"SQLiteMissingExpr", "", "SELECT * FROM t WHERE", 1, 22},
		{"SQLiteSecondLine", "", "SELECT a\nFROM t WHERE x = = 1", 2, 18},
		{"SQLiteUnclosedParen", "", "SELECT a FROM t WHERE (x = 1", 1, 23},
		{"SQLiteExtraParen", "", "SELECT a FROM t WHERE x = 1)", 1, 28},
		{"PostgresTypo", "postgres", "SELECT a\nFORM t", 2, 6}, // FORM is read as an alias of a
		{"MySQLSecondLine", "mysql", "SELECT a\nFROM t WHERE x = = 1", 2, 18},
		{"MySQLEnd", "mysql", "SELECT * FROM t WHERE", 1, 22},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlparse.Parse(tt.dialect, tt.sql)
			var e *qeval.Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q)=%v, want a *qeval.Error", tt.sql, err)
			}
			if e.Code != qeval.CodeQuery || e.Line != tt.line || e.Col != tt.col || !strings.Contains(e.Message, "syntax error") {
				t.Errorf("Parse(%q) error %q code %s at %d:%d, want a syntax error (query) at %d:%d", tt.sql, e.Message, e.Code, e.Line, e.Col, tt.line, tt.col)
			}
		})
	}
	t.Run("ErrUnknownDialect", func(t *testing.T) {
		_, err := sqlparse.Parse("oracle", "SELECT 1")
		if qeval.ErrorCode(err) != qeval.CodeInvalid || !strings.Contains(err.Error(), "known: mysql, postgres, sqlite") {
			t.Errorf("Parse(oracle)=%v, want invalid listing the known dialects", err)
		}
	})
	t.Run("ErrTwoStatements", func(t *testing.T) {
		_, err := sqlparse.Parse("", "SELECT 1;\n  DROP TABLE t;")
		var e *qeval.Error
		if !errors.As(err, &e) || e.Code != qeval.CodeQuery || e.Line != 2 || e.Col != 3 {
			t.Errorf("Parse(two statements)=%#v, want a query error at 2:3", err)
		}
	})
	t.Run("ErrEmpty", func(t *testing.T) {
		if _, err := sqlparse.Parse("", " ;; -- nothing\n"); qeval.ErrorCode(err) != qeval.CodeQuery {
			t.Errorf("Parse(empty)=%v, want a query error", err)
		}
	})
}

func TestSplit(t *testing.T) {
	text := "SELECT ';' AS a; -- x;\n/* ; */ ATTACH 'f' AS g;\n\n  select \"a;b\" FROM [t;]"
	got := sqlparse.Split("", text)
	want := []sqlparse.Piece{
		{Text: "SELECT ';' AS a", Line: 1, Col: 1, Keyword: "select"},
		{Text: "ATTACH 'f' AS g", Line: 2, Col: 9, Keyword: "attach"},
		{Text: `select "a;b" FROM [t;]`, Line: 4, Col: 3, Keyword: "select"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Split=%+v\nwant %+v", got, want)
	}
	pg := sqlparse.Split("postgres", "SELECT $$a;b$$; SELECT $1")
	if len(pg) != 2 || pg[1].Text != "SELECT $1" {
		t.Errorf("Split(postgres)=%+v", pg)
	}
	my := sqlparse.Split("mysql", "SELECT 'it\\'s;' # c;\n; SELECT 2")
	if len(my) != 2 || my[1].Text != "SELECT 2" {
		t.Errorf("Split(mysql)=%+v", my)
	}
}
