package mysql_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
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
		{"SHOW TABLES", "", ""},
		{"DESCRIBE t", "", ""},
		{"EXPLAIN SELECT 1", "", ""},
		{`SELECT 'it\'s; fine', "dq\";", 'a'';'`, "", ""},
		{"SELECT `odd;``name` FROM t", "", ""},
		{"SELECT 1 # ; DROP TABLE t", "", ""},
		{"SELECT 1 -- ; DROP TABLE t", "", ""},
		{"SELECT 1 /* ; DROP TABLE t */", "", ""},
		{"SELECT /*+ MAX_EXECUTION_TIME(1) */ 1", "", ""},
		{"SELECT 1--1", "", ""}, // not a comment: 1 - -1
		{"SELECT SLEEP(1)", "", ""},
		{"SELECT * FROM t FOR UPDATE", "", ""},
		{"SELECT 'INTO' AS x, `into` FROM t", "", ""},
		{"SELEC 1", "", ""}, // the server reports the syntax error
		{"", qeval.CodeQuery, "empty query"},
		{"SELECT 1\x00; DROP TABLE t", qeval.CodeQuery, "NUL byte at line 1, column 9"},
		{" # nothing\n", qeval.CodeQuery, "empty query"},
		{"SELECT 1; SELECT 2", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1;;", qeval.CodeQuery, "multiple statements"},
		{"SELECT 1--1; DROP TABLE t", qeval.CodeQuery, "line 1, column 14"},
		{`SELECT 'a\';'; DROP TABLE t`, qeval.CodeQuery, "multiple statements"},
		{"SELECT 1 /*!; DROP TABLE t */", qeval.CodeQuery, "multiple statements"},
		{"DELETE FROM t", qeval.CodeForbidden, "forbidden: DELETE is not allowed"},
		{"REPLACE INTO t VALUES (1)", qeval.CodeForbidden, "REPLACE"},
		{"/*!50000 DROP TABLE t */", qeval.CodeForbidden, "DROP"},
		{"/*M!100100 DROP TABLE t */", qeval.CodeForbidden, "DROP"},
		{"/* just a comment */ drop table t", qeval.CodeForbidden, "DROP"},
		{"TRUNCATE t", qeval.CodeForbidden, "TRUNCATE"},
		{"RENAME TABLE t TO u", qeval.CodeForbidden, "RENAME"},
		{"LOAD DATA INFILE '/etc/passwd' INTO TABLE t", qeval.CodeForbidden, "LOAD"},
		{"SET GLOBAL max_connections = 1", qeval.CodeForbidden, "SET"},
		{"CALL p()", qeval.CodeForbidden, "CALL"},
		{"ANALYZE DELETE FROM t", qeval.CodeForbidden, "ANALYZE"},
		{"WITH d AS (SELECT 1) DELETE FROM t", qeval.CodeForbidden, "DELETE"},
		{"EXPLAIN UPDATE t SET a = 1", qeval.CodeForbidden, "UPDATE"},
		{"SELECT 1 INTO OUTFILE '/tmp/x'", qeval.CodeForbidden, "INTO"},
		{"SELECT 1 INTO DUMPFILE '/tmp/x'", qeval.CodeForbidden, "INTO"},
		{"SELECT a FROM t INTO @v", qeval.CodeForbidden, "INTO"},
		{"SELECT @v := 1", qeval.CodeForbidden, ":="},
		{"SELECT LOAD_FILE('/etc/passwd')", qeval.CodeForbidden, "LOAD_FILE()"},
		{"SELECT load_file ('/etc/passwd')", qeval.CodeForbidden, "LOAD_FILE()"},
		{"SELECT `load_file`('/etc/passwd')", qeval.CodeForbidden, "LOAD_FILE()"},
		{"SELECT GET_LOCK('a', 0)", qeval.CodeForbidden, "GET_LOCK()"},
		{"SELECT 'load_file(' AS x", "", ""},
	} {
		err := mysql.Check(c.query)
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

func TestCheck_End(t *testing.T) {
	for _, c := range []struct {
		query string
		end   int
	}{
		{"SELECT 1", 8},
		{"SELECT 1;", 8},
		{"SELECT ';' ; -- done", 11},
	} {
		if got := mysql.CheckEnd(c.query); got != c.end {
			t.Errorf("check(%q) end = %d, want %d", c.query, got, c.end)
		}
	}
}

func TestSyntaxPosition(t *testing.T) {
	q := "SELECT a\nFORM t"
	msg := "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 't' at line 2"
	if line, col := mysql.SyntaxPosition(q, msg); line != 2 || col != 6 {
		t.Errorf("SyntaxPosition(%q, ...) = %d:%d, want 2:6", q, line, col)
	}
	msg = "... for the right syntax to use near '' at line 1"
	if line, col := mysql.SyntaxPosition("SELECT a FROM", msg); line != 1 || col != 14 {
		t.Errorf("SyntaxPosition at the end = %d:%d, want 1:14", line, col)
	}
	if line, col := mysql.SyntaxPosition("SELECT", "Unknown column"); line != 0 || col != 0 {
		t.Errorf("SyntaxPosition without a position = %d:%d, want 0:0", line, col)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", `SELECT 'a\';'; DROP`, "/*!50000 DROP */", "/*M!", "`x``", "#", "-- ",
		"WITH x AS (DELETE FROM t) SELECT 1", "((((", "))))SELECT", "SELECT 1;\n;", "SELECT @a:=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		err := mysql.Check(q)
		if err == nil {
			if end := mysql.CheckEnd(q); end < 0 || end > len(q) {
				t.Errorf("check(%q) end = %d, outside the query", q, end)
			}
			return
		}
		code := qeval.ErrorCode(err)
		if code != qeval.CodeQuery && code != qeval.CodeForbidden {
			t.Errorf("Check(%q) code = %s, want query or forbidden", q, code)
		}
	})
}
