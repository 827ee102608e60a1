package duckdb_test

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/duckdb"
)

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestSandbox_WritesStayInTheCopy(t *testing.T) {
	src := newDB(t, []string{"CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, n INTEGER)",
		"INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)"})
	before := sum(t, src)
	dir := t.TempDir()
	ctx := context.Background()
	sb, err := duckdb.NewSandbox(ctx, "duckdb:"+src, qeval.Limits{}, duckdb.SandboxOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, q := range []string{"UPDATE t SET n = n + 1 WHERE id = 1", "INSERT INTO t VALUES (3, 'c', 30)", "DELETE FROM t WHERE id = 2",
		"CREATE TABLE big AS SELECT id, n * 2 AS m FROM t", "CREATE UNIQUE INDEX t_name ON t(name)", "BEGIN", "UPDATE t SET n = 0", "ROLLBACK"} {
		if _, err := sb.Query(ctx, q); err != nil {
			t.Fatalf("Query(%q): %v", q, err)
		}
	}
	rs, err := sb.Rows(ctx, "t", true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]qeval.Value{{qeval.Int(1), qeval.Text("a"), qeval.Int(11)}, {qeval.Int(3), qeval.Text("c"), qeval.Int(30)}}
	if !reflect.DeepEqual(rs.Rows, want) {
		t.Errorf("rows of t = %v, want %v", rs.Rows, want)
	}
	tables, err := sb.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[1].Name != "t" || !reflect.DeepEqual(tables[1].PrimaryKey, []string{"id"}) ||
		!reflect.DeepEqual(tables[1].Indexes, []string{"unique (name)"}) || !tables[1].Columns[1].NotNull {
		t.Errorf("Tables = %+v", tables)
	}
	cost, err := sb.Cost(ctx, "UPDATE t SET n = 1 WHERE n > 5")
	if err != nil || cost <= 0 {
		t.Errorf("Cost = %v, %v; want a positive estimate", cost, err)
	}
	out := filepath.Join(dir, "out.csv")
	for _, q := range []string{"ATTACH '" + filepath.Join(dir, "x.duckdb") + "' AS x", "COPY t TO '" + out + "'", "SET enable_external_access = true",
		"CREATE TABLE f AS SELECT * FROM read_csv('/etc/passwd')", "INSTALL httpfs", "LOAD httpfs", "EXPORT DATABASE '" + dir + "/e'"} {
		if _, err := sb.Query(ctx, q); err == nil {
			t.Errorf("Query(%q) ran", q)
		}
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the sandbox folder: %v", entries)
	}
	if sum(t, src) != before {
		t.Error("the source changed")
	}
}

func TestSandbox_Bounds(t *testing.T) {
	src := newDB(t, []string{"CREATE TABLE t (id INTEGER)", "INSERT INTO t VALUES (1)"})
	ctx := context.Background()
	sb, err := duckdb.NewSandbox(ctx, src, qeval.Limits{Timeout: 5 * time.Second}, duckdb.SandboxOptions{Dir: t.TempDir(), MaxGrowthBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = sb.Query(short, "INSERT INTO t SELECT count(*) FROM range(100000000000) a")
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Errorf("a statement that never ends: %v, want a timeout", err)
	}
	// the copy goes on after a timeout (its worker may have been ended)
	if _, err := sb.Query(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Errorf("after a timeout: %v", err)
	}
	_, err = sb.Query(ctx, "CREATE TABLE big AS SELECT range AS i, md5(random()::VARCHAR) || md5(random()::VARCHAR) AS s FROM range(200000)")
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(qeval.ErrorMessage(err), "size bound") {
		t.Errorf("a copy grown past its bound: %v", err)
	}
}
