package clickhouse_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
	"github.com/qeval/qeval/qevaltest"
)

// testDSN is the local test server (Debian's clickhouse-server); QEVAL_TEST_CLICKHOUSE
// overrides it.
func testDSN() string {
	if v := os.Getenv("QEVAL_TEST_CLICKHOUSE"); v != "" {
		return v
	}
	return "clickhouse://default@127.0.0.1:9000/default"
}

var startOnce sync.Once

// admin returns a connection with write access to the test server, starting Debian's
// clickhouse-server when it is installed and not running, or skips the test when the
// server cannot be reached.
func admin(t *testing.T) ch.Conn {
	t.Helper()
	open := func() (ch.Conn, error) {
		conn, err := ch.Open(&ch.Options{Addr: []string{"127.0.0.1:9000"}, Auth: ch.Auth{Database: "default", Username: "default"}, DialTimeout: 2 * time.Second})
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := conn.Ping(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
	conn, err := open()
	if err != nil && os.Getenv("QEVAL_TEST_CLICKHOUSE") == "" {
		startOnce.Do(func() {
			if _, err := os.Stat("/usr/sbin/clickhouse-server"); err == nil {
				exec.Command("service", "clickhouse-server", "start").Run()
				for i := 0; i < 40; i++ {
					if c, err := open(); err == nil {
						c.Close()
						return
					}
					time.Sleep(500 * time.Millisecond)
				}
			}
		})
		conn, err = open()
	}
	if err != nil {
		t.Skipf("ClickHouse is not reachable at 127.0.0.1:9000 (%v); install Debian's clickhouse-server (.ci/run does) or set QEVAL_TEST_CLICKHOUSE", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// clickhouseDDL turns the fixture's portable CREATE TABLE statements into ClickHouse's.
func clickhouseDDL(s string) string {
	if !strings.HasPrefix(s, "CREATE TABLE") {
		return s
	}
	r := strings.NewReplacer(" INTEGER NOT NULL PRIMARY KEY", " Int64", " INTEGER NOT NULL", " Int64", "VARCHAR(100)", "Nullable(String)",
		"DOUBLE PRECISION", "Nullable(Float64)", "BLOB", "Nullable(String)", "TEXT", "Nullable(String)", " INTEGER", " Nullable(Int64)")
	return r.Replace(s) + " ENGINE = Log"
}

var dbSeq int

func newExecutor(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor {
	t.Helper()
	conn := admin(t)
	dbSeq++
	db := fmt.Sprintf("qeval_test_%d_%d", os.Getpid(), dbSeq)
	ctx := context.Background()
	if err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db) })
	for _, s := range setup {
		s = clickhouseDDL(s)
		s = strings.Replace(strings.Replace(s, "CREATE TABLE ", "CREATE TABLE "+db+".", 1), "INSERT INTO ", "INSERT INTO "+db+".", 1)
		httpExec(t, s)
	}
	// the test server's user is the unrestricted default: TestOpen_RefusesPrivileged
	// and TestReader check the refusal and a real reader
	e, err := clickhouse.OpenWith(strings.TrimSuffix(testDSN(), "/default")+"/"+db, limits, clickhouse.Options{AllowPrivileged: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestConformance(t *testing.T) {
	qevaltest.RunExecutorTests(t, newExecutor, qevaltest.ExecutorOptions{
		SlowQuery: "SELECT count() FROM system.numbers WHERE number = 0 AND sipHash64(number) = 1",
		TextBlobs: true,
		WideQuery: "SELECT a.t FROM qeval_big a CROSS JOIN (SELECT number FROM system.numbers LIMIT 600) b",
		BlobLiteral: func(b []byte) string {
			var s strings.Builder
			for _, c := range b {
				fmt.Fprintf(&s, "\\x%02X", c)
			}
			return "'" + s.String() + "'"
		},
	})
}

// httpExec runs a setup statement through the server's HTTP interface: the native
// client sends INSERT data as blocks, not as the VALUES of a statement.
func httpExec(t *testing.T, stmt string) {
	t.Helper()
	resp, err := http.Post("http://127.0.0.1:8123/", "text/plain", strings.NewReader(stmt))
	if err != nil {
		t.Fatalf("setup %q: %v", stmt, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("setup %q: %s", stmt, b)
	}
}

// Hostile statements: refused by the executor or by the server's readonly mode, with
// the data intact.
func TestHostile(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TABLE t (a INTEGER NOT NULL)", "INSERT INTO t (a) VALUES (1), (2)"}, qeval.Limits{Timeout: 5 * time.Second, MaxBytes: 256 << 20})
	for _, q := range []string{
		"INSERT INTO t VALUES (3)",
		"ALTER TABLE t DELETE WHERE 1",
		"DROP TABLE t",
		"TRUNCATE TABLE t",
		"CREATE TABLE u (a Int8) ENGINE = Log",
		"SET readonly = 0",
		"SYSTEM SHUTDOWN",
		"KILL QUERY WHERE 1",
		"SELECT * FROM file('/etc/passwd', 'TSV', 'a String')",
		"SELECT * FROM url('http://127.0.0.1:8123/?query=DROP+TABLE+t', 'TSV', 'a String')",
		"SELECT * FROM remote('127.0.0.1', system.one)",
		"SELECT * FROM mysql('127.0.0.1:3306', 'test', 't', 'root', '')",
		"SELECT 1; DROP TABLE t",
		"/* x */ ( insert into t values (4))",
		"SELECT 1 SETTINGS readonly = 0",
	} {
		_, err := e.Query(context.Background(), q)
		if c := qeval.ErrorCode(err); c != qeval.CodeForbidden {
			t.Errorf("Query(%q): %v (code %s), want forbidden", q, err, c)
		}
	}
	// memory and time are capped by the server
	_, err := e.Query(context.Background(), "SELECT groupArray(number) FROM (SELECT number FROM system.numbers LIMIT 100000000)")
	if c := qeval.ErrorCode(err); c != qeval.CodeTooLarge && c != qeval.CodeTimeout {
		t.Errorf("a 100M-element array: %v (code %s), want too large or timeout", err, c)
	}
	rs, err := e.Query(context.Background(), "SELECT sum(a), count() FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(3) || rs.Rows[0][1] != qeval.Int(2) {
		t.Errorf("the table after the hostile statements: %v %v", rs, err)
	}
}

// A query past its deadline is stopped on the server too, not only on the client:
// ClickHouse 18.16 ignores the client's cancel packet, and a system.numbers scan with a
// 3 s deadline was still running at 6.8 s (issue 39). The executor kills it by the
// query id it set before Query returns.
func TestQuery_DeadlineKillsServerQuery(t *testing.T) {
	e := newExecutor(t, nil, qeval.Limits{Timeout: time.Second})
	marker := fmt.Sprintf("qeval_kill_%d_%d", os.Getpid(), time.Now().UnixNano())
	q := "SELECT count() FROM system.numbers WHERE number = 0 AND sipHash64(number) = 1 AND '" + marker + "' != ''"
	_, err := e.Query(context.Background(), q)
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Fatalf("Query = %v (code %s), want timeout", err, qeval.ErrorCode(err))
	}
	var n uint64
	if err := admin(t).QueryRow(context.Background(), "SELECT count() FROM system.processes WHERE position(query, ?) > 0 AND position(query, 'system.processes') = 0", marker).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the timed-out query is still running on the server (%d in system.processes)", n)
	}

	// a stopped context stops it too
	ctx, cancel := context.WithCancel(context.Background())
	marker += "_cancel"
	q = "SELECT count() FROM system.numbers WHERE number = 0 AND sipHash64(number) = 1 AND '" + marker + "' != ''"
	done := make(chan error, 1)
	go func() { _, err := e.Query(ctx, q); done <- err }()
	waitRunning(t, marker)
	cancel()
	if err := <-done; qeval.ErrorCode(err) != qeval.CodeCanceled {
		t.Fatalf("Query = %v (code %s), want canceled", err, qeval.ErrorCode(err))
	}
	if err := admin(t).QueryRow(context.Background(), "SELECT count() FROM system.processes WHERE position(query, ?) > 0 AND position(query, 'system.processes') = 0", marker).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the canceled query is still running on the server (%d in system.processes)", n)
	}
}

// waitRunning polls the server (an external process) until a query holding marker runs.
func waitRunning(t *testing.T, marker string) {
	t.Helper()
	conn := admin(t)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n uint64
		if err := conn.QueryRow(context.Background(), "SELECT count() FROM system.processes WHERE position(query, ?) > 0 AND position(query, 'system.processes') = 0", marker).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatalf("the query %s never showed in system.processes", marker)
}
