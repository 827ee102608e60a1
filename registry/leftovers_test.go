package registry_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval/registry"
)

// deadPid is a process id no process has (above Linux's largest pid_max).
const deadPid = 999999999

func TestLeftovers_Local(t *testing.T) {
	dir := t.TempDir()
	dead := fmt.Sprintf("qeval_sbx_%d_1_abcd.sqlite", deadPid)
	mine := fmt.Sprintf("qeval_sbx_%d_1_abcd.sqlite", os.Getpid())
	for _, f := range []string{dead, mine, "other.sqlite"} {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600)
	}
	os.Mkdir(filepath.Join(dir, fmt.Sprintf("qeval_sbx_%d_2_abcd", deadPid)), 0o700) // a DuckDB copy's folder
	left, err := registry.Leftovers(context.Background(), dir, nil, false)
	if err != nil || len(left) != 3 {
		t.Fatalf("Leftovers = %v, %v; want 3", left, err)
	}
	left, err = registry.Leftovers(context.Background(), dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, l := range left {
		if l.Removed {
			removed++
		}
		if l.Name == mine && (l.Removed || !l.InUse) {
			t.Errorf("this process's copy: %v", l)
		}
	}
	entries, _ := os.ReadDir(dir)
	if removed != 2 || len(entries) != 2 {
		t.Errorf("removed %d, left %d entries; want 2 removed, the live copy and other.sqlite kept", removed, len(entries))
	}
}

func TestLeftovers_Postgres(t *testing.T) {
	dsn := os.Getenv("QEVAL_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Skipf("PostgreSQL is not reachable (%v); set QEVAL_TEST_POSTGRES to run this test", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("qeval_sbx_%d_7_%d", deadPid, os.Getpid())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name) })
	left, err := registry.Leftovers(ctx, t.TempDir(), []string{dsn}, true)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range left {
		if l.Name == name {
			found = l.Removed
		}
	}
	var n int
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n)
	if !found || n != 0 {
		t.Errorf("the leftover %s: removed %v, still there %d", name, found, n)
	}
}
