package clickhouse_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
)

// The issue 39 reproduction: the default user (every database, not readonly) is
// refused, and --unsafe-allow-privileged still opens it.
func TestOpen_RefusesPrivileged(t *testing.T) {
	admin(t) // starts the test server when needed
	dsn := strings.TrimSuffix(testDSN(), "/default") + "/default"
	_, err := clickhouse.Open(dsn, qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "may read every database") ||
		!strings.Contains(qeval.ErrorHint(err), "setup-role") || !strings.Contains(qeval.ErrorHint(err), "--unsafe-allow-privileged") {
		t.Fatalf("Open as default = %v (hint %q), want forbidden: may read every database, with the setup-role hint", err, qeval.ErrorHint(err))
	}
	e, err := clickhouse.OpenWith(dsn, qeval.Limits{}, clickhouse.Options{AllowPrivileged: true})
	if err != nil {
		t.Fatalf("OpenWith(AllowPrivileged): %v", err)
	}
	e.Close()
}

func TestExcessGrants(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"GRANT SELECT ON evaldb.* TO qeval_reader"}, ""},
		{[]string{"GRANT SHOW TABLES, SELECT(a, b) ON `evaldb`.`t` TO qeval_reader", "GRANT SELECT ON other.* TO qeval_reader"}, ""},
		{[]string{"GRANT SHOW DATABASES ON *.* TO r"}, ""},
		{[]string{"GRANT ALL ON *.* TO default WITH GRANT OPTION"}, "GRANT OPTION on *.*, ALL on *.*"},
		{[]string{"GRANT SELECT ON *.* TO r"}, "SELECT on *.*"},
		{[]string{"GRANT SELECT ON system.* TO r"}, "SELECT on system.*"},
		{[]string{"GRANT SELECT, INSERT ON evaldb.* TO r"}, "INSERT on evaldb.*"},
		{[]string{"GRANT admin TO r"}, "role admin"},
		{[]string{"GRANT SELECT ON evaldb.* TO r", "REVOKE SELECT ON evaldb.secret FROM r"}, ""},
	} {
		if got := strings.Join(clickhouse.ExcessGrants(c.lines), ", "); got != c.want {
			t.Errorf("excessGrants(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}

// privateServer starts a ClickHouse server of its own (the installed binary, a
// temporary folder, free ports) whose users.xml the test may change, and returns its
// native address. It skips the test when the server is not installed.
func privateServer(t *testing.T) (addr, usersDir string) {
	t.Helper()
	bin := "/usr/sbin/clickhouse-server"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("clickhouse-server is not installed; .ci/run installs Debian's")
	}
	dir := t.TempDir()
	tcp, http := freePort(t), freePort(t)
	config := fmt.Sprintf(`<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>%[1]s/server.log</log><errorlog>%[1]s/server.err.log</errorlog></logger>
    <tcp_port>%[2]d</tcp_port>
    <http_port>%[3]d</http_port>
    <listen_host>127.0.0.1</listen_host>
    <path>%[1]s/data/</path>
    <tmp_path>%[1]s/data/tmp/</tmp_path>
    <user_files_path>%[1]s/data/user_files/</user_files_path>
    <format_schema_path>%[1]s/data/format_schemas/</format_schema_path>
    <users_config>%[1]s/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>67108864</mark_cache_size>
    <uncompressed_cache_size>67108864</uncompressed_cache_size>
</yandex>
`, dir, tcp, http)
	users := `<?xml version="1.0"?>
<yandex>
    <profiles><default></default></profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
	for name, text := range map[string]string{"config.xml": config, "users.xml": users} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	usersDir = filepath.Join(dir, "users.d")
	os.Mkdir(usersDir, 0o755)
	cmd := exec.Command(bin, "--config-file="+filepath.Join(dir, "config.xml"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr = fmt.Sprintf("127.0.0.1:%d", tcp)
	poll(t, "the private server answering", func() bool {
		conn, err := ch.Open(&ch.Options{Addr: []string{addr}, DialTimeout: time.Second})
		if err != nil {
			return false
		}
		defer conn.Close()
		return conn.Ping(context.Background()) == nil
	})
	return addr, usersDir
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// poll waits for a condition on an external process (the server), with a generous
// deadline.
func poll(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

// A reader made as qeval db setup-role says, on a server without SQL users (18.16):
// the users.xml entry SetupReader returns makes a user the check accepts, that reads
// the evaluation database, that cannot log in without its password, read another
// database, or read other sessions' queries, and whose timed-out queries are still
// killed on the server.
func TestReader_UsersXML(t *testing.T) {
	addr, usersDir := privateServer(t)
	root := "clickhouse://default@" + addr
	adminConn, err := ch.Open(&ch.Options{Addr: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer adminConn.Close()
	ctx := context.Background()
	for _, q := range []string{"CREATE DATABASE evaldb", "CREATE DATABASE other", "CREATE TABLE evaldb.t (a Int64) ENGINE = Log",
		"CREATE TABLE other.secret (s String) ENGINE = Log", "INSERT INTO evaldb.t SELECT number FROM system.numbers LIMIT 3"} {
		if err := adminConn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	if _, err := clickhouse.Open(root+"/evaldb", qeval.Limits{}); qeval.ErrorCode(err) != qeval.CodeForbidden ||
		!strings.Contains(err.Error(), "may write") || !strings.Contains(err.Error(), "may read every database") {
		t.Fatalf("Open as default = %v, want forbidden: may write, may read every database", err)
	}

	const password = "s3cret-Pass_word"
	r, err := clickhouse.SetupReader(ctx, root+"/evaldb", "qeval_reader", "", password)
	if err != nil {
		t.Fatal(err)
	}
	if r.UsersXML == "" || r.Database != "evaldb" || r.Host != "127.0.0.1" || strings.Contains(r.UsersXML, password) {
		t.Fatalf("SetupReader = %+v, want a users.xml entry for evaldb from 127.0.0.1 without the password in clear", r)
	}
	if err := os.WriteFile(filepath.Join(usersDir, "qeval_reader.xml"), []byte(r.UsersXML), 0o644); err != nil {
		t.Fatal(err)
	}
	reader := "clickhouse://qeval_reader:" + password + "@" + addr + "/evaldb"
	var e *clickhouse.Executor
	poll(t, "the server to read the users.xml entry", func() bool {
		e, err = clickhouse.Open(reader, qeval.Limits{Timeout: time.Second})
		return qeval.ErrorCode(err) != qeval.CodeInvalid // unknown user until the reload
	})
	if err != nil {
		t.Fatalf("Open as the reader: %v", err)
	}
	defer e.Close()

	rs, err := e.Query(ctx, "SELECT sum(a) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(3) {
		t.Errorf("the reader's query on its database: %v %v", rs, err)
	}
	if _, err := e.Query(ctx, "SELECT count() FROM other.secret"); err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Errorf("the reader on another database: %v, want access denied", err)
	}
	if _, err := e.Query(ctx, "SELECT query FROM system.processes"); qeval.ErrorCode(err) != qeval.CodeForbidden {
		t.Errorf("the reader on system.processes: %v, want forbidden", err)
	}
	if _, err := e.Query(ctx, "SELECT count() FROM system.numbers WHERE number = 0 AND sipHash64(number) = 1"); qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Errorf("a slow query as the reader: %v, want timeout", err)
	}
	var n uint64
	if err := adminConn.QueryRow(ctx, "SELECT count() FROM system.processes WHERE user = 'qeval_reader' AND position(query, 'sipHash64') > 0").Scan(&n); err != nil || n != 0 {
		t.Errorf("the reader's timed-out query on the server: %d running (%v), want killed", n, err)
	}
	if s, err := e.Schema(ctx); err != nil || len(s.Tables) != 1 || s.Tables[0].Name != "t" {
		t.Errorf("Schema as the reader = %+v, %v", s, err)
	}

	_, err = clickhouse.Open("clickhouse://qeval_reader@"+addr+"/evaldb", qeval.Limits{})
	if qeval.ErrorCode(err) != qeval.CodeInvalid || !strings.Contains(err.Error(), "Password") {
		t.Errorf("Open as the reader without its password = %v, want refused by the server", err)
	}
}
