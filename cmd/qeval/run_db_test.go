package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

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
	// an unknown name is a suite problem, not a missing file
	code, _, stderr = runCLI(t, "", "run", suitePath, "--quiet", "--judge", "none")
	if code != exitUsage || !strings.Contains(stderr, `unknown database "warehouse"`) {
		t.Errorf("without --db: code %d, %s", code, stderr)
	}
}
