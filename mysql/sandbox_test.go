package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

// These tests check on a real server what the lexical check and the read-only
// transaction stop together (see TestCheck for the check alone).

func queryValue(t *testing.T, e qeval.Executor, q string) qeval.Value {
	t.Helper()
	rs, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("Query(%q): %v", q, err)
	}
	if rs.NumRows() != 1 || len(rs.Rows[0]) != 1 {
		t.Fatalf("Query(%q) = %v, want one value", q, rs.Rows)
	}
	return rs.Rows[0][0]
}

func adminValue(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var s string
	if err := db.QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("admin %q: %v", q, err)
	}
	return s
}

func TestQuery_TransactionBlocksWrites(t *testing.T) {
	e := newExecutor(t, []string{
		"CREATE TABLE t (a INT)",
		"INSERT INTO t VALUES (1), (2)",
		// A function that writes: only the read-only transaction can refuse it.
		"CREATE FUNCTION bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO t VALUES (100); RETURN 1; END",
		"CREATE SEQUENCE seq",
	}, qeval.Limits{})
	for _, q := range []string{"SELECT bump()", "SELECT NEXTVAL(seq)"} {
		_, err := e.Query(context.Background(), q)
		if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "READ ONLY transaction") {
			t.Errorf("Query(%q) = %v (code %s), want forbidden by the read-only transaction", q, err, qeval.ErrorCode(err))
		}
	}
	if v := queryValue(t, e, "SELECT SUM(a) FROM t"); v != qeval.Int(3) {
		t.Errorf("SUM(a) after a refused write = %s, want 3", v.String())
	}
}

func TestQuery_ExecutableCommentRefused(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE t (a INT)"}, qeval.Limits{})
	for _, q := range []string{"/*!50000 DROP TABLE t */", "SELECT 1 /*!, 2 INTO OUTFILE '/tmp/qeval_outfile_probe' */"} {
		if _, err := e.Query(context.Background(), q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v (code %s), want forbidden", q, err, qeval.ErrorCode(err))
		}
	}
	if v := queryValue(t, e, "SELECT COUNT(*) FROM t"); v != qeval.Int(0) {
		t.Errorf("COUNT(*) = %s, want 0 (the table must still exist)", v.String())
	}
}

func TestQuery_SessionTimeout(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{Timeout: 5 * time.Second})
	admin := mustAdmin(t, "")
	v := "@@max_execution_time" // MySQL: milliseconds
	scale := 1.0
	if strings.Contains(strings.ToLower(adminValue(t, admin, "SELECT VERSION()")), "mariadb") {
		v, scale = "@@max_statement_time", 1000 // MariaDB: seconds
	}
	got := queryValue(t, e, "SELECT "+v)
	f, err := strconv.ParseFloat(got.String(), 64)
	if err != nil || f*scale <= 0 || f*scale > 5000 {
		t.Errorf("%s during a query = %s, want between 1ms and 5s", v, got.String())
	}
}

// TestQuery_CancelStopsServer checks that a canceled query stops on the server, not
// only in the client.
func TestQuery_CancelStopsServer(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{})
	admin := mustAdmin(t, "")
	// A cancel, not a deadline: the server's statement timeout (30s by default)
	// cannot be what stops the statement.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := e.Query(ctx, "SELECT SLEEP(30) /* qeval-cancel-probe */")
	if qeval.ErrorCode(err) != qeval.CodeCanceled {
		t.Fatalf("Query = %v, want canceled", err)
	}
	q := "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%qeval-cancel-', 'probe%') AND ID <> CONNECTION_ID()"
	deadline := time.Now().Add(10 * time.Second) // polled: a loaded machine may take a while to run the KILL
	for adminValue(t, admin, q) != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the canceled SLEEP still runs on the server 10s later")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestQuery_ErrorPosition(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE t (id INT)"}, qeval.Limits{})
	q := "SELECT id\nFORM t"
	_, err := e.Query(context.Background(), q)
	var qe *qeval.Error
	if !errors.As(err, &qe) || qe.Code != qeval.CodeQuery {
		t.Fatalf("Query(%q) = %v, want a query error", q, err)
	}
	if !strings.Contains(qe.Message, "SQL syntax") || qe.Line != 2 || qe.Col != 6 {
		t.Errorf("Query(%q) error = %q at %d:%d, want a syntax error at 2:6", q, qe.Message, qe.Line, qe.Col)
	}
}
