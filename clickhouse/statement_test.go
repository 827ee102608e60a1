package clickhouse_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
)

func TestCheckStatement(t *testing.T) {
	for _, c := range []struct {
		query string
		code  qeval.Code
		want  string // in the message
	}{
		{"SELECT count() FROM singer", "", ""},
		{"SELECT system FROM t WHERE t.system = 1", "", ""}, // a column named system
		{"SELECT 'system.processes' FROM t", "", ""},
		{"SELECT count() FROM system.numbers WHERE number = 0", "", ""},
		{"SELECT dummy FROM system.one", "", ""},
		{"INSERT INTO t VALUES (1)", qeval.CodeForbidden, "INSERT is not allowed"},
		{"/* x */ ( insert into t values (4))", qeval.CodeForbidden, "INSERT"},
		{"KILL QUERY WHERE 1", qeval.CodeForbidden, "KILL"},
		// other sessions' queries and the server's tables (issue 39)
		{"SELECT query FROM system.processes", qeval.CodeForbidden, "system.processes is a system table"},
		{"SELECT * FROM SYSTEM.query_log", qeval.CodeForbidden, "system table"},
		{"SELECT * FROM system . /* x */ processes", qeval.CodeForbidden, "system.processes"},
		{"SELECT * FROM `system`.processes", qeval.CodeForbidden, "system.processes"},
		{`SELECT * FROM "system"."processes"`, qeval.CodeForbidden, "system.processes"},
		{"SELECT * FROM `sys\\x74em`.`processes`", qeval.CodeForbidden, "system.processes"},
		{"SELECT * FROM `sys\\tem`.processes", "", ""}, // \t is a tab: another database
		{"SELECT * FROM `syst``em`.processes", "", ""},
		{"SELECT a FROM t WHERE a IN system.processes", qeval.CodeForbidden, "system table"},
		{"SELECT 1 FROM t JOIN system.tables USING (name)", qeval.CodeForbidden, "system.tables"},
		{"SELECT * FROM system.numbers.number", "", ""},
		{"SELECT * FROM system.", qeval.CodeForbidden, "system table"},
		{"DESCRIBE TABLE system.processes", qeval.CodeForbidden, "system.processes"},
		{"SHOW PROCESSLIST", qeval.CodeForbidden, "SHOW PROCESSLIST is not allowed"},
		{"show users", qeval.CodeForbidden, "SHOW USERS"},
		{"SHOW TABLES", "", ""},
		// what the server reads as code is what the check reads
		{"SELECT 'a\\' FROM system.processes -- '", "", ""},
		{"SELECT 'a'' FROM system.processes -- '", "", ""},
		{"SELECT $$ ' $$ FROM system.processes -- '", qeval.CodeForbidden, "system.processes"},
		{"SELECT $x$ $$ ' $x$ FROM system.processes", qeval.CodeForbidden, "system.processes"},
		{"/* /* */ ' */ SELECT * FROM system.processes -- '", qeval.CodeQuery, "a comment inside a comment"},
		{"SELECT 1 # FROM system.processes", "", ""},
		{"SELECT 1 -- \n FROM system.processes", qeval.CodeForbidden, "system.processes"},
	} {
		err := clickhouse.CheckStatement(c.query)
		if c.code == "" {
			if err != nil {
				t.Errorf("CheckStatement(%q) = %v, want nil", c.query, err)
			}
			continue
		}
		if qeval.ErrorCode(err) != c.code || !strings.Contains(qeval.ErrorMessage(err), c.want) {
			t.Errorf("CheckStatement(%q) = %v (code %s), want %s with %q", c.query, err, qeval.ErrorCode(err), c.code, c.want)
		}
	}
}

func FuzzCheckStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT `a\\", "'", "$$", "$a$", "/* /*", "system.", "SHOW", "(((("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		err := clickhouse.CheckStatement(q)
		if c := qeval.ErrorCode(err); err != nil && c != qeval.CodeForbidden && c != qeval.CodeQuery {
			t.Errorf("CheckStatement(%q) code = %s", q, c)
		}
	})
}
