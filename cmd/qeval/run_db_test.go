package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// A suite may name a configured connection: `--db pg=postgres://…` runs its cases on
// the PostgreSQL server (read-only, as every executor).
func TestRun_NamedConnection(t *testing.T) {
	dsn := os.Getenv("QEVAL_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		t.Skipf("PostgreSQL is not reachable (%v); set QEVAL_TEST_POSTGRES to the DSN of a test database to run this test", err)
	}
	table := fmt.Sprintf("qeval_cli_%d", time.Now().UnixNano())
	for _, q := range []string{
		"CREATE TABLE " + table + " (id int PRIMARY KEY, region text, amount numeric)",
		"INSERT INTO " + table + " VALUES (1, 'north', 10.5), (2, 'south', 4), (3, 'north', 1.5)",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer admin.Exec("DROP TABLE " + table)
	// as the superuser the run is refused, with the way to a reader role
	dir0 := t.TempDir()
	p0 := writeFile(t, dir0, "s.yaml", "name: s\ndatabase: w\ncases:\n  - {id: a, expected_query: SELECT 1, generated_query: SELECT 1}\n")
	if code, _, stderr := runCLI(t, "", "run", p0, "--db", "w="+dsn, "--quiet", "--judge", "none"); code != exitUsage ||
		!strings.Contains(stderr, "superuser") || !strings.Contains(stderr, "qeval db setup-role") {
		t.Errorf("run as the superuser: code %d, %s", code, stderr)
	}
	dsn = readerDSN(t, dsn)
	dir := t.TempDir()
	suitePath := writeFile(t, dir, "pg.yaml", `name: pg
database: warehouse
cases:
  - id: total
    expected_query: SELECT region, sum(amount) FROM `+table+` GROUP BY region
    generated_query: SELECT region, SUM(amount) AS total FROM `+table+` GROUP BY 1 ORDER BY 1
  - id: write
    expected_query: SELECT count(*) FROM `+table+`
    generated_query: DELETE FROM `+table+`
`)
	code, out, stderr := runCLI(t, "", "run", suitePath, "--db", "warehouse="+dsn, "--quiet", "--judge", "none", "--threshold", "0.5")
	if code != exitOK || !strings.Contains(out, "1 passed, 1 failed") {
		t.Fatalf("code %d\n%s\n%s", code, out, stderr)
	}
	var n int
	if err := admin.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 3 {
		t.Errorf("the table has %d rows after the run (%v), want 3: the DELETE must not run", n, err)
	}
	// an unknown name is reported like a missing suite file: the run could not be done (exit 1)
	code, _, stderr = runCLI(t, "", "run", suitePath, "--quiet", "--judge", "none")
	if code != exitFailed || !strings.Contains(stderr, `unknown database "warehouse"`) {
		t.Errorf("without --db: code %d, %s", code, stderr)
	}
}

// A query in the server's own dialect is parsed with that dialect's grammar: the
// metrics learn the dialect from the engine the database resolves to (the PostgreSQL
// cast `::int` failed table accuracy and semantic similarity with a SQLite
// syntax error, and the case failed at 66.7% although execution matched).
func TestRun_ServerDialectReachesMetrics(t *testing.T) {
	for _, tc := range []struct {
		engine, env, dsn, query string
	}{
		{"postgres", "QEVAL_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "SELECT 1::int AS one"},
		{"mysql", "QEVAL_TEST_MYSQL", "root@tcp(127.0.0.1:3306)/test", "SELECT 7 DIV 7 AS one"},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			dsn := tc.dsn
			if v := os.Getenv(tc.env); v != "" {
				dsn = v
			}
			if err := ping(map[string]string{"postgres": "pgx", "mysql": "mysql"}[tc.engine], dsn); err != nil {
				t.Skipf("%s is not reachable (%v); set %s to a test database's DSN", tc.engine, err, tc.env)
			}
			dsn = readerDSN(t, dsn)
			dir := t.TempDir()
			suitePath := writeFile(t, dir, "s.yaml", `name: dialect
database: srv
cases:
  - id: one
    expected_query: "`+tc.query+`"
    generated_query: "`+tc.query+`"
`)
			code, out, stderr := runCLI(t, "", "run", suitePath, "--db", "srv="+dsn, "--quiet", "--judge", "none", "--json", filepath.Join(dir, "r.json"))
			if strings.Contains(stderr, "connect") || strings.Contains(stderr, "refused") {
				t.Skipf("%s is not reachable (%s); set %s to a test database's DSN", tc.engine, strings.TrimSpace(stderr), tc.env)
			}
			if code != exitOK || !strings.Contains(out, "1 passed") {
				t.Fatalf("code %d\n%s\n%s", code, out, stderr)
			}
			var rep struct {
				Cases []struct {
					TotalScore *float64                  `json:"total_score"`
					Metrics    map[string]map[string]any `json:"metrics"`
				} `json:"cases"`
			}
			raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
			if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Cases) != 1 {
				t.Fatalf("report: %v", err)
			}
			c := rep.Cases[0]
			if c.TotalScore == nil || *c.TotalScore != 1 {
				t.Errorf("total %v, want 1; metrics %v", c.TotalScore, c.Metrics)
			}
			for _, m := range []string{"table_accuracy", "semantic_similarity"} {
				if c.Metrics[m]["error"] != nil {
					t.Errorf("%s failed: %v", m, c.Metrics[m]["error"])
				}
			}
		})
	}
}

// readerPassword is the password readerDSN gives its role.
const readerPassword = "qeval-cli-reader-pw"

// readerDSN creates (with qeval db setup-role, as the administrator adminDSN) a role that
// can only read the public schema, and returns adminDSN with that role and its password.
func readerDSN(t *testing.T, adminDSN string) string {
	t.Helper()
	const role = "qeval_cli_reader"
	pw := writeFile(t, t.TempDir(), "password", readerPassword+"\n")
	if code, _, stderr := runCLI(t, "", "db", "setup-role", "--dsn", adminDSN, "--role", role, "--password-file", pw); code != exitOK {
		t.Fatalf("db setup-role: %d %s", code, stderr)
	}
	if cfg, err := gomysql.ParseDSN(adminDSN); err == nil && !strings.Contains(adminDSN, "://") {
		cfg.User, cfg.Passwd = role, readerPassword
		return cfg.FormatDSN()
	}
	u, err := url.Parse(adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, readerPassword)
	return u.String()
}

// ping reports why the server of dsn cannot be reached through driver (nil when it can).
func ping(driver, dsn string) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}
