package mysql_test

import (
	"context"
	"os"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// The MySQL side of the attacks generated SQL was tried with (file reads and writes,
// sleeps, locks, other sessions' statements), on the local server through the executor the
// registry opens (statement check, parse-tree guard, read-only transaction): each attack
// is refused, and nothing is written on the server's disk. It connects as the
// administrator (--unsafe-allow-privileged): the guards must hold even where the
// privileges do not.
func TestSandbox_Issue22Attacks(t *testing.T) {
	dsn := dsnFor(t, newDatabase(t, []string{"CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1)"}), nil)
	e, err := registry.EngineFor(dsn).New(dsn, registry.Params{AllowPrivileged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	probe := "/tmp/qeval_issue22_probe"
	os.Remove(probe)
	attacks := []string{
		// server files, however the name or the path is spelled
		"SELECT LOAD_FILE('/etc/hostname')",
		"SELECT LOAD_FILE(0x2f6574632f686f73746e616d65)",
		"SELECT `load_file`('/etc/hostname')",
		"SELECT /*!50000 LOAD_FILE('/etc/hostname') */",
		"WITH x AS (SELECT LOAD_FILE('/etc/hostname') v) SELECT v FROM x",
		"SELECT 1 INTO OUTFILE '" + probe + "'",
		"SELECT 1 INTO DUMPFILE '" + probe + "'",
		"SELECT 1 /*!, 2 INTO OUTFILE '" + probe + "' */",
		// credentials and other sessions' statements
		"SELECT user, password FROM mysql.user",
		"SELECT * FROM `mysql`.`user`",
		"SELECT * FROM information_schema.PROCESSLIST",
		"SELECT * FROM (SELECT * FROM performance_schema.threads) x",
		"SELECT * FROM mysql.general_log",
		// other sessions and the server's state
		"KILL 1",
		"SET GLOBAL max_connections = 1",
		"SELECT GET_LOCK('x', 10)",
		"LOCK TABLES t WRITE",
		"HANDLER t OPEN",
		"DO SLEEP(1)",
		"SELECT * FROM t INTO @x",
		"SELECT a FROM t FOR UPDATE",
		"SELECT 1; DROP TABLE t",
	}
	for _, q := range attacks {
		if _, err := e.Query(context.Background(), q); qeval.ErrorCode(err) != qeval.CodeForbidden && qeval.ErrorCode(err) != qeval.CodeQuery {
			t.Errorf("Query(%q) = %v, want refused", q, err)
		}
	}
	if _, err := os.Stat(probe); err == nil {
		t.Errorf("%s was written", probe)
	}
	rs, err := e.Query(context.Background(), "SELECT COUNT(*) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(1) {
		t.Errorf("the table changed: %v %v", rs, err)
	}
}
