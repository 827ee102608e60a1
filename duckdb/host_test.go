package duckdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/duckdb"
)

func value(t *testing.T, e qeval.Executor, q string) string {
	t.Helper()
	rs, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rs.Rows[0][0].String()
}

// Each executor of a host reads its own file, though every file has a table t and
// the same base name; a file's last executor closing detaches it, and opening it
// again opens it alone; a file the host does not hold opens alone.
func TestHost_EachFileItsOwn(t *testing.T) {
	var files []string
	for i := 0; i < 3; i++ {
		files = append(files, newDB(t, []string{"CREATE TABLE t (v VARCHAR)", fmt.Sprintf("INSERT INTO t VALUES ('file %d')", i)}))
	}
	h := duckdb.NewHost(files[:2])
	defer h.Close()
	var open []*duckdb.Executor
	for i, f := range files {
		e, err := h.Open("duckdb:"+f, qeval.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, e)
		if got, want := value(t, e, "SELECT v FROM t"), fmt.Sprintf("file %d", i); got != want {
			t.Errorf("file %d reads %q", i, got)
		}
	}
	// the first two share one instance: their catalogs are listed side by side
	if got := value(t, open[0], "SELECT count(*) FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'"); got != "2" {
		t.Errorf("the host holds %s files, want 2", got)
	}
	if got := value(t, open[2], "SELECT count(*) FROM duckdb_databases() WHERE NOT internal"); got != "1" {
		t.Errorf("the file the host does not hold sees %s databases, want its own", got)
	}
	second, err := h.Open(files[0], qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	open[0].Close()
	if got := value(t, second, "SELECT v FROM t"); got != "file 0" {
		t.Errorf("a second executor of file 0, after the first closed, reads %q", got)
	}
	second.Close()
	if got := value(t, open[1], "SELECT count(*) FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'"); got != "1" {
		t.Errorf("after file 0's executors closed the host holds %s files, want 1 (file 0 detached)", got)
	}
	again, err := h.Open(files[0], qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := value(t, again, "SELECT v FROM t"); got != "file 0" {
		t.Errorf("file 0 opened again reads %q", got)
	}
	open[1].Close()
	open[2].Close()
	h.Close()
	if _, err := h.Open(files[1], qeval.Limits{}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Open after Close: %v, want the host is closed", err)
	}
}

// A host whose file is missing fails each open with the file named, not a panic.
func TestHost_MissingFile(t *testing.T) {
	h := duckdb.NewHost([]string{"/nonexistent/x.duckdb"})
	defer h.Close()
	_, err := h.Open("duckdb:/nonexistent/x.duckdb", qeval.Limits{})
	if err == nil || !strings.Contains(qeval.ErrorMessage(err), "x.duckdb") {
		t.Fatalf("Open of a missing file: %v", err)
	}
}

// BenchmarkHost_OpenAll opens 19 files (as many as Spider dev has databases), runs a
// query on each and closes them: each alone, or on one Host.
func BenchmarkHost_OpenAll(b *testing.B) {
	var files []string
	for i := 0; i < 19; i++ {
		files = append(files, newDB(b, []string{"CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1)"}))
	}
	run := func(b *testing.B, open func(string) (*duckdb.Executor, error), done func()) {
		var es []*duckdb.Executor
		for _, f := range files {
			e, err := open(f)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Query(context.Background(), "SELECT a FROM t"); err != nil {
				b.Fatal(err)
			}
			es = append(es, e)
		}
		for _, e := range es {
			e.Close()
		}
		done()
	}
	b.Run("alone", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			run(b, func(f string) (*duckdb.Executor, error) { return duckdb.Open(f, qeval.Limits{}) }, func() {})
		}
	})
	b.Run("host", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			h := duckdb.NewHost(files)
			run(b, func(f string) (*duckdb.Executor, error) { return h.Open(f, qeval.Limits{}) }, func() { h.Close() })
		}
	})
}
