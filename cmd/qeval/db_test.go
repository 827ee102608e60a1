package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// setupDSN is the DSN setup-role prints on its last line.
var setupDSN = regexp.MustCompile(`(?m)^  ((?:postgres|mysql|clickhouse)://\S+)$`)

// printedPassword returns the password of the DSN setup-role printed, failing the test
// when there is none.
func printedPassword(t *testing.T, out string) (dsn, password string) {
	t.Helper()
	m := setupDSN.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("setup-role printed no DSN:\n%s", out)
	}
	u, err := url.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok || len(pw) < 32 {
		t.Fatalf("setup-role printed %s: want the role's password (32 random characters) in it", m[1])
	}
	return m[1], pw
}

// qeval db setup-role gives the role a strong password and prints the DSN with it once
// (issue 39: the roles had none; on a server reachable from a network anyone could log
// in and read the evaluation database).
func TestDBSetupRole_PostgresPassword(t *testing.T) {
	admin := "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	if v := os.Getenv("QEVAL_TEST_POSTGRES"); v != "" {
		admin = v
	}
	if err := ping("pgx", admin); err != nil {
		t.Skipf("PostgreSQL is not reachable (%v); set QEVAL_TEST_POSTGRES", err)
	}
	role := fmt.Sprintf("qeval_pw_%d", time.Now().UnixNano())
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t.Cleanup(func() {
		db.Exec("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + role)
		db.Exec("ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM " + role)
		db.Exec("REVOKE ALL ON SCHEMA public FROM " + role)
		db.Exec("DROP ROLE " + role)
	})
	code, out, stderr := runCLI(t, "", "db", "setup-role", "--dsn", admin, "--role", role)
	if code != exitOK {
		t.Fatalf("setup-role: %d %s", code, stderr)
	}
	dsn, pw := printedPassword(t, out)
	// The local server trusts every connection from 127.0.0.1 (pg_hba.conf), so a login
	// without the password cannot be refused here: check that the role has one, and
	// that the printed DSN logs in.
	var stored sql.NullString
	if err := db.QueryRow("SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !stored.Valid || !strings.HasPrefix(stored.String, "SCRAM-SHA-256$") && !strings.HasPrefix(stored.String, "md5") {
		t.Errorf("pg_authid.rolpassword of %s = %v, want a password hash", role, stored)
	}
	if err := ping("pgx", dsn); err != nil {
		t.Errorf("the printed DSN does not log in: %v", err)
	}
	// again: the role is kept and gets a new password
	code, out2, stderr := runCLI(t, "", "db", "setup-role", "--dsn", admin, "--role", role)
	if _, pw2 := printedPassword(t, out2); code != exitOK || pw2 == pw || !strings.Contains(stderr, "password was replaced") {
		t.Errorf("setup-role on an existing role: %d, same password %v, %s", code, pw2 == pw, stderr)
	}
}

func TestDBSetupRole_MySQLPassword(t *testing.T) {
	admin := "root@tcp(127.0.0.1:3306)/test"
	if v := os.Getenv("QEVAL_TEST_MYSQL"); v != "" {
		admin = v
	}
	if err := ping("mysql", admin); err != nil {
		t.Skipf("MySQL is not reachable (%v); set QEVAL_TEST_MYSQL", err)
	}
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	user := fmt.Sprintf("qeval_pw_%d", time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		rows, _ := db.Query("SELECT host FROM mysql.user WHERE user = ?", user)
		var hosts []string
		for rows != nil && rows.Next() {
			var h string
			rows.Scan(&h)
			hosts = append(hosts, h)
		}
		for _, h := range hosts {
			db.Exec("DROP USER '" + user + "'@'" + h + "'")
		}
	})
	code, out, stderr := runCLI(t, "", "db", "setup-role", "--dsn", admin, "--role", user)
	if code != exitOK {
		t.Fatalf("setup-role: %d %s", code, stderr)
	}
	dsn, pw := printedPassword(t, out)
	u, _ := url.Parse(dsn)
	cfg := gomysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.DBName, cfg.User, cfg.Passwd = "tcp", u.Host, "test", user, pw
	if err := ping("mysql", cfg.FormatDSN()); err != nil {
		t.Errorf("the printed password does not log in: %v", err)
	}
	cfg.Passwd = ""
	if err := ping("mysql", cfg.FormatDSN()); err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Errorf("a login without the password: %v, want access denied", err)
	}
	// the account is for the host qeval connects from, not '%'
	var self, host string
	db.QueryRow("SELECT SUBSTRING_INDEX(USER(), '@', -1)").Scan(&self)
	if err := db.QueryRow("SELECT GROUP_CONCAT(host) FROM mysql.user WHERE user = ?", user).Scan(&host); err != nil || host != self {
		t.Errorf("hosts of %s = %q (%v), want %q", user, host, err, self)
	}
	// --password-file: that password, never printed
	file := writeFile(t, t.TempDir(), "pw", "a-chosen-password-1\n")
	code, out, stderr = runCLI(t, "", "db", "setup-role", "--dsn", admin, "--role", user, "--password-file", file)
	if code != exitOK || strings.Contains(out, "a-chosen-password-1") || !strings.Contains(out, user+":xxxxx@") {
		t.Fatalf("setup-role --password-file: %d\n%s%s", code, out, stderr)
	}
	cfg.Passwd = "a-chosen-password-1"
	if err := ping("mysql", cfg.FormatDSN()); err != nil {
		t.Errorf("the file's password does not log in: %v", err)
	}
}

// On ClickHouse 18.16, which keeps its users in users.xml, setup-role prints the entry
// (the password as its SHA-256) and the DSN with the password; clickhouse/privilege_test
// installs such an entry on a server of its own and logs in.
func TestDBSetupRole_ClickHouseUsersXML(t *testing.T) {
	admin := "clickhouse://default@127.0.0.1:9000/default"
	if code, _, stderr := runCLI(t, "", "exec", "--unsafe-allow-privileged", "--db", admin, "--query", "SELECT 1"); code != exitOK {
		t.Skipf("ClickHouse is not reachable at %s (%s)", admin, strings.TrimSpace(stderr))
	}
	code, out, stderr := runCLI(t, "", "db", "setup-role", "--dsn", admin, "--role", "qeval_reader")
	if code != exitOK {
		t.Fatalf("setup-role: %d %s", code, stderr)
	}
	_, pw := printedPassword(t, out)
	sum := sha256.Sum256([]byte(pw))
	for _, want := range []string{"<password_sha256_hex>" + hex.EncodeToString(sum[:]) + "</password_sha256_hex>",
		"<readonly>1</readonly>", "<database>default</database>", "<ip>127.0.0.1</ip>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the users.xml entry lacks %s:\n%s", want, out)
		}
	}
	if strings.Count(out, pw) != 1 {
		t.Errorf("the password is printed %d times, want once (in the DSN)", strings.Count(out, pw))
	}
	file := filepath.Join(t.TempDir(), "qeval_reader.xml")
	code, out, stderr = runCLI(t, "", "db", "setup-role", "--dsn", admin, "--users-xml", file)
	raw, err := os.ReadFile(file)
	if code != exitOK || err != nil || !strings.Contains(string(raw), "<allow_databases>") || strings.Contains(out, "<yandex>") {
		t.Errorf("setup-role --users-xml: %d %v\n%s%s", code, err, out, stderr)
	}
}
