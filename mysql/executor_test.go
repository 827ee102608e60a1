package mysql_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/qevaltest"
)

// defaultTestDSN is the local test server; QEVAL_TEST_MYSQL overrides it.
const defaultTestDSN = "root@tcp(127.0.0.1:3306)/test"

func testDSN() string {
	if v := os.Getenv("QEVAL_TEST_MYSQL"); v != "" {
		return v
	}
	return defaultTestDSN
}

// mustAdmin returns a database handle with write access to the test server (database
// name from dbName when not empty), for setup and checks, or skips the test when the
// server cannot be reached.
func mustAdmin(tb testing.TB, dbName string) *sql.DB {
	tb.Helper()
	cfg, err := gomysql.ParseDSN(testDSN())
	if err != nil {
		tb.Fatalf("QEVAL_TEST_MYSQL: %v", err)
	}
	if dbName != "" {
		cfg.DBName = dbName
	}
	cfg.MultiStatements = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'" // as the executor's sessions
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		tb.Skipf("MySQL is not reachable at %s (%v); set QEVAL_TEST_MYSQL to the DSN of a test database to run this test",
			mysql.MaskDSN(testDSN()), err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustExec(tb testing.TB, db *sql.DB, q string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, q); err != nil {
		tb.Fatalf("setup %q: %v", q, err)
	}
}

// newDatabase creates a database of its own for the test, runs setup in it and returns
// its name; the database is dropped when the test ends.
func newDatabase(tb testing.TB, setup []string) string {
	tb.Helper()
	admin := mustAdmin(tb, "")
	b := make([]byte, 6)
	rand.Read(b)
	name := "qeval_test_" + hex.EncodeToString(b)
	mustExec(tb, admin, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	db := mustAdmin(tb, name)
	for _, s := range setup {
		mustExec(tb, db, s)
	}
	return name
}

// dsnFor returns the test DSN naming database name, with extra parameters.
func dsnFor(tb testing.TB, name string, params map[string]string) string {
	cfg, err := gomysql.ParseDSN(testDSN())
	if err != nil {
		tb.Fatalf("QEVAL_TEST_MYSQL: %v", err)
	}
	cfg.DBName = name
	for k, v := range params {
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[k] = v
	}
	return cfg.FormatDSN()
}

// readerFor returns the DSN of a user of its own that may read database name and
// nothing else (as qeval db setup-role makes one), dropped when the test ends: the
// executors under test run as such a user, as they must in use.
func readerFor(tb testing.TB, name string) string {
	tb.Helper()
	admin := mustAdmin(tb, "")
	user := "qr_" + strings.TrimPrefix(name, "qeval_test_")
	for _, q := range mysql.ReaderSetupSQL(user, "%", name, "") {
		mustExec(tb, admin, q)
	}
	tb.Cleanup(func() {
		if _, err := admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'"); err != nil {
			tb.Errorf("drop user %s: %v", user, err)
		}
	})
	cfg, err := gomysql.ParseDSN(dsnFor(tb, name, nil))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.User, cfg.Passwd = user, ""
	return cfg.FormatDSN()
}

// newExecutor opens an executor, as a user that may only read, on a new database built
// from setup.
func newExecutor(tb testing.TB, setup []string, limits qeval.Limits) *mysql.Executor {
	tb.Helper()
	dsn := readerFor(tb, newDatabase(tb, setup))
	e, err := mysql.Open(dsn, limits)
	if err != nil {
		tb.Fatalf("Open(%s): %v", mysql.MaskDSN(dsn), err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func TestExecutor(t *testing.T) {
	qevaltest.RunExecutorTests(t, func(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor {
		return newExecutor(t, setup, limits)
	}, qevaltest.ExecutorOptions{SlowQuery: "SELECT SLEEP(30)"})
}

func TestOpen_ConnectionRefused(t *testing.T) {
	// Nothing listens on port 1 of the loopback address.
	dsn := "eval:s3cret@tcp(127.0.0.1:1)/bench"
	e, err := mysql.Open(dsn, qeval.Limits{Timeout: 5 * time.Second})
	if err == nil {
		e.Close()
		t.Fatalf("Open(%q) succeeded, want a connection error", dsn)
	}
	want := "connect eval:xxxxx@tcp(127.0.0.1:1)/bench: connection refused"
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
		"eval:s3cret@tcp(127.0.0.1:3306)/bench?parseTime=maybe",
		"eval:s3cret@tcp(127.0.0.1:3306",
		"eval:s3cret@tcp(127.0.0.1:3306)/bench?timeout=soon",
	} {
		_, err := mysql.Open(dsn, qeval.Limits{})
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

func TestOpen_Errors(t *testing.T) {
	mustAdmin(t, "")
	cfg, err := gomysql.ParseDSN(testDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = "qeval_no_such_database"
	_, err = mysql.Open(cfg.FormatDSN(), qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeNotFound {
		t.Errorf("Open(database %s) error code = %s (%v), want %s", cfg.DBName, qeval.ErrorCode(err), err, qeval.CodeNotFound)
	}
	cfg.DBName = ""
	cfg.User, cfg.Passwd = "qeval_no_such_user", "s3cret"
	_, err = mysql.Open(cfg.FormatDSN(), qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeInvalid || strings.Contains(err.Error(), "s3cret") ||
		!strings.Contains(err.Error(), "qeval_no_such_user:xxxxx@") {
		t.Errorf("Open(unknown user) error = %v (code %s), want an invalid error naming the masked DSN", err, qeval.ErrorCode(err))
	}
}

func TestMaskDSN(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"root:s3cret@tcp(127.0.0.1:3306)/test", "root:xxxxx@tcp(127.0.0.1:3306)/test"},
		{"root@tcp(127.0.0.1:3306)/test", "root@tcp(127.0.0.1:3306)/test"},
		{"u:p@ss:w@rd@tcp(db)/x?parseTime=true", "u:xxxxx@tcp(db)/x?parseTime=true"},
		{"u:s3cret@/x", "u:xxxxx@/x"},
		{"/x", "/x"},
		{"garbage", "garbage"},
		{"u:s3cret@tcp(db:3306", "u:xxxxx@tcp(db:3306"},
	} {
		if got := mysql.MaskDSN(c.dsn); got != c.want {
			t.Errorf("MaskDSN(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}

func BenchmarkQuery(b *testing.B) {
	e := newExecutor(b, qevaltest.Fixture(qevaltest.ExecutorOptions{}), qeval.Limits{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Query(ctx, "SELECT id, name, price, data FROM qeval_items ORDER BY id"); err != nil {
			b.Fatal(err)
		}
	}
}

// A mysql:// URL works as the driver's DSN does, and a half-opened executor closes
// (a URL was once "invalid dsn", then Close panicked on a nil pointer).
func TestOpen_URLForm(t *testing.T) {
	if got := mysql.MaskDSN("mysql://root:s3cret@127.0.0.1:3306/test"); got != "mysql://root:xxxxx@127.0.0.1:3306/test" {
		t.Errorf("MaskDSN = %q", got)
	}
	var half *mysql.Executor
	if err := half.Close(); err != nil {
		t.Errorf("Close on a nil executor: %v", err)
	}
	if _, err := mysql.Open("mysql://root@127.0.0.1:1/test", qeval.Limits{Timeout: 2 * time.Second}); qeval.ErrorCode(err) != qeval.CodeUnavailable {
		t.Errorf("Open on a closed port = %v, want unavailable (the URL was understood)", err)
	}
	dsn := os.Getenv("QEVAL_TEST_MYSQL")
	if dsn == "" {
		dsn = "mysql://root@127.0.0.1:3306/test"
	}
	if !strings.HasPrefix(dsn, "mysql://") {
		return
	}
	e, err := mysql.OpenWith(dsn, qeval.Limits{}, mysql.Options{AllowPrivileged: true})
	if err != nil {
		t.Skipf("MySQL is not reachable at %s (%v); set QEVAL_TEST_MYSQL to test the URL form against a server", mysql.MaskDSN(dsn), err)
	}
	defer e.Close()
	if rs, err := e.Query(context.Background(), "SELECT 1"); err != nil || rs.NumRows() != 1 {
		t.Errorf("SELECT 1 = %v, %v", rs, err)
	}
}

// A user that holds more than reading the evaluation database is refused, with the
// privileges named and the way to create one that does not; --unsafe-allow-privileged
// (Options.AllowPrivileged) lets it through: least privilege is the real sandbox of
// generated SQL, on every server.
func TestOpen_PrivilegedUserRefused(t *testing.T) {
	name := newDatabase(t, []string{"CREATE TABLE t (a INT)"})
	admin := mustAdmin(t, "")
	root := dsnFor(t, name, nil)
	_, err := mysql.Open(root, qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "ALL PRIVILEGES on *.*") ||
		!strings.Contains(qeval.ErrorHint(err), "GRANT SELECT, SHOW VIEW ON `"+name+"`.*") {
		t.Errorf("Open as the administrator = %v (hint %q), want forbidden naming ALL PRIVILEGES and the GRANT to run", err, qeval.ErrorHint(err))
	}
	if e, err := mysql.OpenWith(root, qeval.Limits{}, mysql.Options{AllowPrivileged: true}); err != nil {
		t.Errorf("OpenWith AllowPrivileged: %v", err)
	} else {
		e.Close()
	}
	reader := readerFor(t, name)
	e, err := mysql.Open(reader, qeval.Limits{})
	if err != nil {
		t.Fatalf("Open as a reader: %v", err)
	}
	e.Close()
	user := "qr_" + strings.TrimPrefix(name, "qeval_test_")
	for _, grant := range []string{
		"GRANT INSERT ON `" + name + "`.* TO '" + user + "'@'%'",
		"GRANT SELECT ON *.* TO '" + user + "'@'%'",
		"GRANT FILE ON *.* TO '" + user + "'@'%'",
	} {
		mustExec(t, admin, grant)
		_, err := mysql.Open(reader, qeval.Limits{})
		if qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("after %s: Open = %v, want forbidden", grant, err)
		}
		mustExec(t, admin, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM '"+user+"'@'%'")
		for _, q := range mysql.ReaderSetupSQL(user, "%", name, "") {
			mustExec(t, admin, q)
		}
	}
}
