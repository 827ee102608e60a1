package sqlparse_test

import (
	"testing"

	"github.com/qeval/qeval/sqlparse"
)

func TestStatements(t *testing.T) {
	cases := []struct {
		dialect, sql string
		want         []string
	}{
		{"sqlite", "INSERT INTO t VALUES (';'); UPDATE t SET a = 1 -- x;\n; DELETE FROM t", []string{"INSERT INTO t VALUES (';')", "UPDATE t SET a = 1 -- x;", "DELETE FROM t"}},
		{"sqlite", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE u SET n = n + 1; DELETE FROM v; END; SELECT 1",
			[]string{"CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE u SET n = n + 1;\nDELETE FROM v;\nEND", "SELECT 1"}},
		{"sqlite", "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN SELECT CASE WHEN 1 THEN 2 END; END", []string{"CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN SELECT CASE WHEN 1 THEN 2 END;\nEND"}},
		{"postgres", "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql; SELECT f()", []string{"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql", "SELECT f()"}},
		{"mysql", "INSERT INTO t VALUES ('a\\';b'); # c;\nSELECT 1", []string{"INSERT INTO t VALUES ('a\\';b')", "SELECT 1"}},
		{"sqlite", " ; ;", nil},
	}
	for _, c := range cases {
		got := sqlparse.Statements(c.dialect, c.sql)
		if len(got) != len(c.want) {
			t.Errorf("Statements(%s, %q) = %d statements %+v, want %d", c.dialect, c.sql, len(got), got, len(c.want))
			continue
		}
		for i := range got {
			if got[i].Text != c.want[i] {
				t.Errorf("Statements(%s, %q)[%d] = %q, want %q", c.dialect, c.sql, i, got[i].Text, c.want[i])
			}
		}
	}
}
