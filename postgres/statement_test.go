package postgres_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		query string
		code  qeval.Code // "" when the query may run
		msg   string     // part of the message
	}{
		{"SELECT 1", "", ""},
		{"  select * from t where a = 'x;y' ;  ", "", ""},
		{"(SELECT 1) UNION (SELECT 2)", "", ""},
		{"WITH a AS (SELECT 1) SELECT * FROM a", "", ""},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 3) SELECT n FROM r", "", ""},
		{"VALUES (1), (2)", "", ""},
		{"TABLE t", "", ""},
		{"EXPLAIN SELECT 1", "", ""},
		{"SELECT $$a;b$$, $tag$ ; DROP $tag$", "", ""},
		{"SELECT E'it\\'s; fine'", "", ""},
		{`SELECT "odd;""name" FROM t`, "", ""},
		{"SELECT 1 /* a /* nested ; */ comment */", "", ""},
		{"SELECT 1 -- ; DROP TABLE t", "", ""},
		{"SELECT pg_sleep(1)", "", ""},
		{"SELECT * FROM t FOR UPDATE", "", ""}, // the transaction refuses it
		{"SELEC 1", "", ""},                    // the server reports the syntax error
		{"", qeval.CodeQuery, "empty query"},
		{"SELECT 1\x00; DROP TABLE t", qeval.CodeQuery, "NUL byte at line 1, column 9"},
		{" -- nothing\n", qeval.CodeQuery, "empty query"},
		{";", qeval.CodeQuery, "empty query"},
		{"SELECT 1; SELECT 2", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1;;", qeval.CodeQuery, "multiple statements"},
		{"SELECT 'a'';'; DROP TABLE t", qeval.CodeQuery, "line 1, column 16"},
		{"SELECT 1;\n  DELETE FROM t", qeval.CodeQuery, "line 2, column 3"},
		{"SELECT $x$;$x$; DELETE FROM t", qeval.CodeQuery, "multiple statements"},
		{"DELETE FROM t", qeval.CodeForbidden, "forbidden: DELETE is not allowed"},
		{"/* hi */ ( insert into t values (1))", qeval.CodeForbidden, "INSERT"},
		{"drop table t", qeval.CodeForbidden, "DROP"},
		{"SET statement_timeout = 0", qeval.CodeForbidden, "SET"},
		{"COPY (SELECT 1) TO PROGRAM 'id'", qeval.CodeForbidden, "COPY"},
		{"DO $$ BEGIN END $$", qeval.CodeForbidden, "DO"},
		{"BEGIN", qeval.CodeForbidden, "BEGIN"},
		{"WITH d AS (SELECT 1) DELETE FROM t", qeval.CodeForbidden, "DELETE"},
		// the transaction would refuse it as "cannot execute SELECT" (issue 39)
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", qeval.CodeForbidden, "DELETE in a WITH query is not allowed: data-changing statements are refused"},
		{"with d as materialized (update t set a = 1 returning a) select a from d", qeval.CodeForbidden, "UPDATE in a WITH query"},
		{"WITH a AS (SELECT 1), d AS (INSERT INTO t SELECT * FROM a RETURNING *) SELECT * FROM d", qeval.CodeForbidden, "INSERT in a WITH query"},
		{"EXPLAIN ANALYZE UPDATE t SET a = 1", qeval.CodeForbidden, "UPDATE"},
		{"SELECT pg_read_file('/etc/passwd')", qeval.CodeForbidden, "pg_read_file()"},
		{"SELECT pg_catalog.PG_READ_FILE ('/etc/passwd')", qeval.CodeForbidden, "pg_read_file()"},
		{`SELECT "pg_read_file"('/etc/passwd')`, qeval.CodeForbidden, "pg_read_file()"},
		{"SELECT lo_import('/etc/passwd')", qeval.CodeForbidden, "lo_import()"},
		{"SELECT pg_ls_waldir()", qeval.CodeForbidden, "pg_ls_waldir()"},
		{"SELECT pg_stat_reset()", qeval.CodeForbidden, "pg_stat_reset()"},
		{"SELECT dblink_exec('x', 'DROP TABLE t')", qeval.CodeForbidden, "dblink_exec()"},
		{"SELECT query_to_xml('select 1', true, true, '')", qeval.CodeForbidden, "query_to_xml()"},
		{"SELECT pg_terminate_backend(1)", qeval.CodeForbidden, "pg_terminate_backend()"},
		{"SELECT pg_advisory_lock(1)", qeval.CodeForbidden, "pg_advisory_lock()"},
		{"SELECT pg_advisory_xact_lock(1)", "", ""},
		{"SELECT 'pg_read_file(' AS x", "", ""},
		{"SELECT pg_read_file AS x FROM t", "", ""},
	} {
		err := postgres.Check(c.query)
		if c.code == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", c.query, err)
			}
			continue
		}
		if qeval.ErrorCode(err) != c.code || !strings.Contains(qeval.ErrorMessage(err), c.msg) {
			t.Errorf("Check(%q) = %v (code %s), want code %s and a message containing %q", c.query, err, qeval.ErrorCode(err), c.code, c.msg)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "SELECT 'a'';'; DROP", "SELECT $a$ $$ $a$", "/* /* */", "E'\\", `"x""`,
		"WITH x AS (DELETE FROM t) SELECT 1", "$1$", "((((", "))))SELECT", "SELECT 1;\n;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		err := postgres.Check(q)
		if err == nil {
			return
		}
		code := qeval.ErrorCode(err)
		if code != qeval.CodeQuery && code != qeval.CodeForbidden {
			t.Errorf("Check(%q) code = %s, want query or forbidden", q, code)
		}
	})
}
