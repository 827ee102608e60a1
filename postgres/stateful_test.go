package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
)

// SandboxDB makes a source database of its own with setup, a sandbox role and its
// template (postgres.SetupSandbox), and returns the sandbox DSN and the source's name;
// all of it is dropped when the test ends.
func sandboxDB(tb testing.TB, setup ...string) (dsn, source string) {
	tb.Helper()
	admin := mustAdmin(tb)
	var b [4]byte
	rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	source, role := "qeval_st_"+suffix, "qeval_sbx_role_"+suffix
	mustExec(tb, admin, "CREATE DATABASE "+source)
	tb.Cleanup(func() {
		ctx := context.Background()
		admin.Exec(ctx, "ALTER DATABASE "+postgres.TemplateName(source)+" IS_TEMPLATE false")
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+postgres.TemplateName(source)+" WITH (FORCE)")
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+source+" WITH (FORCE)")
		admin.Exec(ctx, "DROP ROLE IF EXISTS "+role)
	})
	u, err := url.Parse(testDSN())
	if err != nil {
		tb.Skipf("QEVAL_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + source
	srcDSN := u.String()
	conn, err := pgx.Connect(context.Background(), srcDSN)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range setup {
		mustExec(tb, conn, s)
	}
	conn.Close(context.Background())
	dsn, err = postgres.SetupSandbox(context.Background(), srcDSN, role, "pw-"+suffix+"-long-enough")
	if err != nil {
		tb.Fatal(err)
	}
	return dsn, source
}

var shop = []string{
	"CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, price numeric(6, 2), stock int)",
	"INSERT INTO item (name, price, stock) VALUES ('pen', 1.5, 10), ('ink', 4.0, 0), ('pad', 2.5, 7)",
	"CREATE INDEX item_stock ON item (stock)",
}

func TestSandbox_Postgres(t *testing.T) {
	dsn, source := sandboxDB(t, shop...)
	ctx := context.Background()
	sb, err := postgres.NewSandbox(ctx, dsn, qeval.Limits{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, q := range []string{"UPDATE item SET price = price * 2 WHERE stock = 0", "INSERT INTO item (name, price, stock) VALUES ('cap', 0.5, 3)",
		"DELETE FROM item WHERE name = 'pad'", "CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2", "ALTER TABLE item ADD COLUMN note text",
		"CREATE UNIQUE INDEX item_name ON item (name)", "BEGIN", "DELETE FROM item", "ROLLBACK", "SET search_path = public"} {
		if _, err := sb.Query(ctx, q); err != nil {
			t.Fatalf("Query(%q): %v", q, err)
		}
	}
	rs, err := sb.Rows(ctx, "item", true)
	if err != nil {
		t.Fatal(err)
	}
	if rs.NumRows() != 3 || rs.Rows[2][1] != qeval.Text("cap") || rs.Rows[1][2].String() != "8.00" && rs.Rows[1][2].String() != "8" {
		t.Errorf("rows of item = %v", rs.Rows)
	}
	tables, err := sb.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[1].Name != "item" || !reflect.DeepEqual(tables[1].PrimaryKey, []string{"id"}) ||
		!reflect.DeepEqual(tables[1].Indexes, []string{"(stock)", "unique (name)"}) || tables[1].Columns[2].Type != "NUMERIC(6,2)" {
		t.Errorf("Tables = %+v", tables)
	}
	if c, err := sb.Cost(ctx, "UPDATE item SET stock = 0"); err != nil || c <= 0 {
		t.Errorf("Cost = %v, %v", c, err)
	}
	// what reaches outside the copy is refused, by the check or by the server
	for _, q := range []string{"CREATE DATABASE x", "DROP DATABASE " + source, "CREATE ROLE x", "ALTER ROLE CURRENT_USER PASSWORD 'x'",
		"GRANT ALL ON item TO PUBLIC", "CREATE EXTENSION dblink", "COPY item TO '/tmp/qeval-item.csv'", "SELECT pg_read_file('/etc/passwd')",
		"SELECT pg_terminate_backend(1)", "SET statement_timeout = 0", "SET ROLE postgres", "ALTER SYSTEM SET work_mem = '1GB'",
		"SELECT set_config('statement_timeout', '0', false)", "LOAD 'plpgsql'", "SELECT lo_import('/etc/passwd')"} {
		if _, err := sb.Query(ctx, q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v (%s), want forbidden", q, err, qeval.ErrorCode(err))
		}
	}
	_, err = sb.Query(ctx, "INSERT INTO item (name) SELECT 'x' || g FROM generate_series(1, 100000000) g")
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Errorf("a statement that never ends: %v, want a timeout", err)
	}
	name := sb.Name()
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	admin := mustAdmin(t)
	var n int
	admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n)
	if n != 0 {
		t.Errorf("the copy %s is still there", name)
	}
	// the source is as it was
	var prices string
	src, _ := url.Parse(testDSN())
	src.Path = "/" + source
	conn, err := pgx.Connect(ctx, src.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	conn.QueryRow(ctx, "SELECT string_agg(name || ':' || price, ',' ORDER BY id) FROM item").Scan(&prices)
	if prices != "pen:1.50,ink:4.00,pad:2.50" {
		t.Errorf("the source changed: %s", prices)
	}
}

// TestSandbox_PostgresRoleCannotTouchTheSource: the sandbox role may log in to the
// source (every role may) but neither read nor change its tables.
func TestSandbox_PostgresRoleCannotTouchTheSource(t *testing.T) {
	dsn, source := sandboxDB(t, shop...)
	u, _ := url.Parse(dsn)
	u.Path = "/" + source
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"SELECT * FROM item", "UPDATE item SET stock = 0", "DROP TABLE item", "CREATE TABLE public.x (a int)"} {
		if _, err := conn.Exec(ctx, q); err == nil || !strings.Contains(err.Error(), "permission denied") && !strings.Contains(err.Error(), "must be owner") {
			t.Errorf("as the sandbox role on the source, %q: %v, want permission denied", q, err)
		}
	}
}
