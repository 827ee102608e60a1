package postgres_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

// These tests check what the read-only transaction does on a real server, beyond the
// lexical check (see TestCheck).

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

func adminValue(t *testing.T, admin *pgx.Conn, q string) string {
	t.Helper()
	var s string
	if err := admin.QueryRow(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("admin %q: %v", q, err)
	}
	return s
}

func TestQuery_ReadOnlyTransaction(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{Timeout: 5 * time.Second})
	if v := queryValue(t, e, "SELECT current_setting('transaction_read_only')"); v != qeval.Text("on") {
		t.Errorf("transaction_read_only = %q, want on", v.String())
	}
	v := queryValue(t, e, "SELECT current_setting('statement_timeout')")
	ms, err := strconv.Atoi(strings.TrimSuffix(v.Str, "ms"))
	if v.Str == "5s" {
		ms, err = 5000, nil
	}
	if err != nil || ms <= 0 || ms > 5000 {
		t.Errorf("statement_timeout = %q, want between 1ms and 5s", v.String())
	}
}

func TestQuery_TransactionBlocksWrites(t *testing.T) {
	setup := []string{
		"CREATE TABLE t (a int)",
		"INSERT INTO t VALUES (1), (2)",
		"CREATE SEQUENCE seq",
	}
	e := newExecutor(t, setup, qeval.Limits{})
	for _, q := range []string{
		"SELECT nextval('seq')",
		"SELECT * FROM t FOR UPDATE",
		"WITH d AS (DELETE FROM t RETURNING a) SELECT a FROM d",
		"WITH u AS (UPDATE t SET a = 0 RETURNING a) SELECT a FROM u",
		"SELECT setval('seq', 100)",
	} {
		_, err := e.Query(context.Background(), q)
		if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "read-only transaction") {
			t.Errorf("Query(%q) = %v (code %s), want forbidden by the read-only transaction", q, err, qeval.ErrorCode(err))
		}
	}
	if v := queryValue(t, e, "SELECT sum(a) FROM t"); v != qeval.Int(3) {
		t.Errorf("sum(a) after refused writes = %s, want 3", v.String())
	}
	if v := queryValue(t, e, "SELECT last_value FROM seq"); v != qeval.Int(1) {
		t.Errorf("seq last_value after refused nextval = %s, want 1", v.String())
	}
}

// TestQuery_RolledBack checks that what a read-only transaction allows is undone: the
// executor's single connection is reused, so a leak would show in the next query.
func TestQuery_RolledBack(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{}, "pool_max_conns", "1")
	admin := mustAdmin(t)
	path := queryValue(t, e, "SELECT current_setting('search_path')")
	if v := queryValue(t, e, "SELECT set_config('search_path', 'pg_catalog', false)"); v != qeval.Text("pg_catalog") {
		t.Fatalf("set_config = %q, want pg_catalog", v.String())
	}
	if v := queryValue(t, e, "SELECT current_setting('search_path')"); v != path {
		t.Errorf("search_path after a query set it = %q, want %q", v.String(), path.String())
	}

	before := adminValue(t, admin, "SELECT count(*)::text FROM pg_largeobject_metadata")
	queryValue(t, e, "SELECT lo_from_bytea(0, 'qeval')")
	if after := adminValue(t, admin, "SELECT count(*)::text FROM pg_largeobject_metadata"); after != before {
		t.Errorf("large objects after lo_from_bytea = %s, want %s", after, before)
	}

	const key = 7340211
	queryValue(t, e, "SELECT pg_advisory_xact_lock("+strconv.Itoa(key)+")")
	if got := adminValue(t, admin, "SELECT pg_try_advisory_lock("+strconv.Itoa(key)+")::text"); got != "true" {
		t.Errorf("advisory lock %d still held after the query", key)
	}
	adminValue(t, admin, "SELECT pg_advisory_unlock("+strconv.Itoa(key)+")::text")
}

// TestQuery_CancelStopsServer checks that a canceled query stops on the server, not
// only in the client.
func TestQuery_CancelStopsServer(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{})
	admin := mustAdmin(t)
	// A cancel, not a deadline: statement_timeout (30s by default) cannot be what
	// stops the statement.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := e.Query(ctx, "SELECT pg_sleep(30) /* qeval-cancel-probe */")
	if qeval.ErrorCode(err) != qeval.CodeCanceled {
		t.Fatalf("Query = %v, want canceled", err)
	}
	q := "SELECT count(*)::text FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%qeval-cancel-' || 'probe%'"
	deadline := time.Now().Add(2 * time.Second)
	for adminValue(t, admin, q) != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the canceled pg_sleep still runs on the server 2s later")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestQuery_ErrorPosition(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE t (id int)"}, qeval.Limits{})
	q := "SELECT id,\n  nme FROM t"
	_, err := e.Query(context.Background(), q)
	var qe *qeval.Error
	if !errors.As(err, &qe) || qe.Code != qeval.CodeQuery {
		t.Fatalf("Query(%q) = %v, want a query error", q, err)
	}
	if qe.Message != `column "nme" does not exist` || qe.Line != 2 || qe.Col != 3 {
		t.Errorf("Query(%q) error = %q at %d:%d, want %q at 2:3", q, qe.Message, qe.Line, qe.Col, `column "nme" does not exist`)
	}
}
