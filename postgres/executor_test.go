package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/qevaltest"
)

// defaultTestDSN is the local test server; QEVAL_TEST_POSTGRES overrides it.
const defaultTestDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

func testDSN() string {
	if v := os.Getenv("QEVAL_TEST_POSTGRES"); v != "" {
		return v
	}
	return defaultTestDSN
}

// mustAdmin returns a connection with write access to the test server, for setup and
// checks, or skips the test when the server cannot be reached.
func mustAdmin(tb testing.TB) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, testDSN())
	if err != nil {
		tb.Skipf("PostgreSQL is not reachable at %s (%v); set QEVAL_TEST_POSTGRES to the DSN of a test database to run this test",
			postgres.MaskDSN(testDSN()), err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func mustExec(tb testing.TB, conn *pgx.Conn, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("setup %q: %v", sql, err)
	}
}

// withParam adds a connection parameter to a DSN in URL or key=value form.
func withParam(dsn, key, value string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set(key, value)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " " + key + "=" + value
}

// newSchema creates a schema of its own for the test, runs setup in it and returns its
// name; the schema is dropped when the test ends.
func newSchema(tb testing.TB, setup []string) string {
	tb.Helper()
	admin := mustAdmin(tb)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "qeval_test_" + hex.EncodeToString(b)
	mustExec(tb, admin, "CREATE SCHEMA "+schema)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	mustExec(tb, admin, "SET search_path TO "+schema)
	for _, s := range setup {
		mustExec(tb, admin, s)
	}
	return schema
}

// readerRole is the role the executor tests connect as: it can log in and read the
// test schemas, nothing else: least privilege is the real sandbox.
const readerRole = "qeval_test_reader"

// asReader returns the test DSN with the reader role as its user, creating the role
// when missing and letting it read schema.
func asReader(tb testing.TB, schema string) string {
	tb.Helper()
	admin := mustAdmin(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", readerRole).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if !exists {
		// another test process may create it at the same time
		if _, err := admin.Exec(ctx, "CREATE ROLE "+readerRole+" LOGIN"); err != nil && !strings.Contains(err.Error(), "already exists") {
			tb.Fatal(err)
		}
	}
	for _, q := range []string{
		"GRANT USAGE ON SCHEMA " + schema + " TO " + readerRole,
		"GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + readerRole,
		"GRANT SELECT ON ALL SEQUENCES IN SCHEMA " + schema + " TO " + readerRole,
	} {
		mustExec(tb, admin, q)
	}
	return withUser(testDSN(), readerRole)
}

// withUser replaces the user of a DSN in URL or key=value form.
func withUser(dsn, user string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if p, ok := u.User.Password(); ok {
			u.User = url.UserPassword(user, p)
		} else {
			u.User = url.User(user)
		}
		return u.String()
	}
	return dsn + " user=" + user
}

// newExecutor opens an executor, as the reader role, on a new schema built from setup.
func newExecutor(tb testing.TB, setup []string, limits qeval.Limits, params ...string) *postgres.Executor {
	tb.Helper()
	schema := newSchema(tb, setup)
	dsn := withParam(asReader(tb, schema), "search_path", schema)
	for i := 0; i+1 < len(params); i += 2 {
		dsn = withParam(dsn, params[i], params[i+1])
	}
	e, err := postgres.Open(dsn, limits)
	if err != nil {
		tb.Fatalf("Open(%s): %v", postgres.MaskDSN(dsn), err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func TestExecutor(t *testing.T) {
	qevaltest.RunExecutorTests(t, func(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor {
		return newExecutor(t, setup, limits)
	}, qevaltest.ExecutorOptions{
		SlowQuery:   "SELECT pg_sleep(30)",
		BlobType:    "BYTEA",
		BlobLiteral: func(b []byte) string { return `'\x` + hex.EncodeToString(b) + `'::bytea` },
	})
}

func TestOpen_ConnectionRefused(t *testing.T) {
	// Nothing listens on port 1 of the loopback address.
	dsn := "postgres://eval:s3cret@127.0.0.1:1/bench?sslmode=disable"
	e, err := postgres.Open(dsn, qeval.Limits{Timeout: 5 * time.Second})
	if err == nil {
		e.Close()
		t.Fatalf("Open(%q) succeeded, want a connection error", dsn)
	}
	want := "connect postgres://eval:xxxxx@127.0.0.1:1/bench?sslmode=disable: connection refused"
	if err.Error() != want {
		t.Errorf("Open error = %q, want %q", err.Error(), want)
	}
	if qeval.ErrorCode(err) != qeval.CodeUnavailable {
		t.Errorf("Open error code = %s, want %s", qeval.ErrorCode(err), qeval.CodeUnavailable)
	}
	if qeval.ErrorHint(err) == "" {
		t.Errorf("Open error %q has no hint", err)
	}
}

func TestOpen_InvalidDSN(t *testing.T) {
	for _, dsn := range []string{
		"postgres://eval:s3cret@127.0.0.1:5432/bench?sslmode=bogus",
		"host=127.0.0.1 password=s3cret sslmode=bogus",
		"postgres://eval:s3cret@127.0.0.1:notaport/bench",
	} {
		_, err := postgres.Open(dsn, qeval.Limits{})
		if err == nil {
			t.Errorf("Open(%q) succeeded, want an error", dsn)
			continue
		}
		if qeval.ErrorCode(err) != qeval.CodeInvalid {
			t.Errorf("Open(%q) error code = %s (%v), want %s", dsn, qeval.ErrorCode(err), err, qeval.CodeInvalid)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) error %q shows the password", dsn, err)
		}
	}
}

func TestOpen_NoSuchDatabase(t *testing.T) {
	mustAdmin(t)
	u, err := url.Parse(defaultTestDSN)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("QEVAL_TEST_POSTGRES") != "" {
		t.Skip("needs the default test DSN to build a DSN naming a missing database")
	}
	u.Path = "/qeval_no_such_database"
	_, err = postgres.Open(u.String(), qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeNotFound {
		t.Errorf("Open(%s) error code = %s (%v), want %s", u, qeval.ErrorCode(err), err, qeval.CodeNotFound)
	}
}

func TestMaskDSN(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://eval:s3cret@127.0.0.1:5432/bench", "postgres://eval:xxxxx@127.0.0.1:5432/bench"},
		{"postgresql://eval:p%40ss@db/bench?sslmode=disable", "postgresql://eval:xxxxx@db/bench?sslmode=disable"},
		{"postgres://eval@127.0.0.1/bench", "postgres://eval@127.0.0.1/bench"},
		{"postgres://127.0.0.1/bench?password=s3cret", "postgres://127.0.0.1/bench?password=xxxxx"},
		{"host=db user=eval password=s3cret dbname=bench", "host=db user=eval password=xxxxx dbname=bench"},
		{"host=db password = 's3 cret' dbname=bench", "host=db password = xxxxx dbname=bench"},
		{"postgres://eval:s3cret@[bad/bench", "postgres://xxxxx@[bad/bench"},
	} {
		if got := postgres.MaskDSN(c.dsn); got != c.want {
			t.Errorf("MaskDSN(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}

func BenchmarkQuery(b *testing.B) {
	e := newExecutor(b, qevaltest.Fixture(qevaltest.ExecutorOptions{BlobType: "BYTEA",
		BlobLiteral: func(p []byte) string { return `'\x` + hex.EncodeToString(p) + `'::bytea` }}), qeval.Limits{})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Query(ctx, "SELECT id, name, price, data FROM qeval_items ORDER BY id"); err != nil {
			b.Fatal(err)
		}
	}
}
