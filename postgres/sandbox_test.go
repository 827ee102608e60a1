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
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/validate"
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
		"SELECT setval('seq', 100)",
	} {
		_, err := e.Query(context.Background(), q)
		// the reader role may not write at all; where it could, the transaction stops it
		if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "read-only transaction") && !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("Query(%q) = %v (code %s), want forbidden by the role or the read-only transaction", q, err, qeval.ErrorCode(err))
		}
	}
	// a data-modifying WITH query is named as such, not as "cannot execute SELECT in a
	// read-only transaction" (issue 39)
	for _, q := range []string{
		"WITH d AS (DELETE FROM t RETURNING a) SELECT a FROM d",
		"WITH u AS (UPDATE t SET a = 0 RETURNING a) SELECT a FROM u",
	} {
		_, err := e.Query(context.Background(), q)
		if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "data-changing statements are refused") {
			t.Errorf("Query(%q) = %v (code %s), want forbidden: data-changing statements are refused", q, err, qeval.ErrorCode(err))
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
	// the statement check refuses set_config and the large-object functions; what the
	// transaction undoes is tested without it, as a second line of defence
	for _, q := range []string{"SELECT set_config('search_path', 'pg_catalog', false)", "SELECT lo_from_bytea(0, 'qeval')"} {
		if _, err := e.Query(context.Background(), q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v, want forbidden", q, err)
		}
	}
	if rs, err := e.RunUnchecked(context.Background(), "SELECT set_config('search_path', 'pg_catalog', false)"); err != nil || rs.Rows[0][0] != qeval.Text("pg_catalog") {
		t.Fatalf("set_config = %v, %v, want pg_catalog", rs, err)
	}
	if v := queryValue(t, e, "SELECT current_setting('search_path')"); v != path {
		t.Errorf("search_path after a query set it = %q, want %q", v.String(), path.String())
	}

	before := adminValue(t, admin, "SELECT count(*)::text FROM pg_largeobject_metadata")
	if _, err := e.RunUnchecked(context.Background(), "SELECT lo_from_bytea(0, 'qeval')"); err != nil {
		t.Fatal(err)
	}
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

// The attacks generated SQL was tried with (file reads, server programs, signals to
// other sessions, locks), run against the local server as the reader role: each is
// refused, and the victim session survives. Without the parser-backed guard the role
// alone still stops the file reads.
func TestSandbox_Issue22Attacks(t *testing.T) {
	schema := newSchema(t, []string{"CREATE TABLE t (a int)", "INSERT INTO t VALUES (1)"})
	dsn := withParam(asReader(t, schema), "search_path", schema)
	e, err := postgres.OpenWith(dsn, qeval.Limits{}, postgres.Options{Guard: validate.Guard("postgres")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// a session of the same role, which that role could signal
	ctx := context.Background()
	victim, err := pgx.Connect(ctx, withParam(dsn, "application_name", "victim"))
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close(ctx)
	attacks := []string{
		`SELECT U&"pg\005fterminate\005fbackend"(pid) FROM pg_stat_activity WHERE application_name='victim'`,
		`SELECT U&"pg\005fread\005ffile"('/etc/hostname')`,
		`SELECT word FROM ts_stat($$SELECT to_tsvector('simple', pg_read_file('/etc/hostname'))$$)`,
		`SELECT U&"lo\005fimport"('/etc/hostname')`,
		`SELECT * FROM U&"pg\005fls\005fdir"('.')`,
		`SELECT query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, true, '')`,
	}
	for _, q := range attacks {
		if _, err := e.Query(ctx, q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v, want forbidden", q, err)
		}
	}
	if err := victim.Ping(ctx); err != nil {
		t.Errorf("the victim session is gone: %v", err)
	}
	// the role is the real sandbox: without any statement guard, the reads still fail
	bare, err := postgres.Open(dsn, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for _, q := range []string{`SELECT U&"pg\005fread\005ffile"('/etc/hostname')`, `SELECT * FROM U&"pg\005fls\005fdir"('.')`} {
		if _, err := bare.RunUnchecked(ctx, q); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("as the reader role, %q = %v, want permission denied", q, err)
		}
	}
}

// A superuser connection is refused unless asked for, with the way to a reader role.
func TestOpen_RefusesPrivilegedRole(t *testing.T) {
	mustAdmin(t)
	_, err := postgres.Open(testDSN(), qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "superuser") || !strings.Contains(qeval.ErrorHint(err), "setup-role") {
		t.Fatalf("Open as superuser = %v (hint %q), want forbidden with the setup hint", err, qeval.ErrorHint(err))
	}
	e, err := postgres.OpenWith(testDSN(), qeval.Limits{}, postgres.Options{AllowPrivileged: true})
	if err != nil {
		t.Fatalf("OpenWith(AllowPrivileged) = %v", err)
	}
	e.Close()
}
