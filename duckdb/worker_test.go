package duckdb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
)

// workerDB writes a DuckDB file of setup (by default a table t of 0..9) and returns its
// path.
func workerDB(t testing.TB, setup ...string) string {
	t.Helper()
	if len(setup) == 0 {
		setup = []string{"CREATE TABLE t AS SELECT range AS a FROM range(10)"}
	}
	path := filepath.Join(t.TempDir(), "w.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range setup {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("setup %q: %v", s, err)
		}
	}
	return path
}

// lpad builds its gigabyte string one character at a time and never checks for an
// interrupt: in this process it ran 65 s past a 30 s deadline. In a worker the query
// ends at its deadline (and a grace), and the next query runs on a new worker.
func TestWorker_QueryPastItsDeadlineIsEnded(t *testing.T) {
	e, err := Open(workerDB(t), qeval.Limits{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	_, err = e.Query(context.Background(), "SELECT length(lpad('x', 1000000000, 'y'))")
	took := time.Since(start)
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Fatalf("the overrunning query: %v (code %s) after %s, want a timeout", err, qeval.ErrorCode(err), took)
	}
	if limit := 200*time.Millisecond + workerGrace + 3*time.Second; took > limit {
		t.Errorf("the overrunning query returned after %s, want within %s", took, limit)
	}
	rs, err := e.Query(context.Background(), "SELECT count(*) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(10) {
		t.Fatalf("the next query: %v %v", rs, err)
	}
}

// A caller that cancels gets its answer at once, and the worker is ended.
func TestWorker_CancelEndsTheQuery(t *testing.T) {
	e, err := Open(workerDB(t), qeval.Limits{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = e.Query(ctx, "SELECT length(lpad('x', 1000000000, 'y'))")
	if qeval.ErrorCode(err) != qeval.CodeCanceled || time.Since(start) > 10*time.Second {
		t.Fatalf("canceled query: %v (code %s) after %s, want canceled at once", err, qeval.ErrorCode(err), time.Since(start))
	}
}

// A worker that dies (here: killed from outside, as the kernel would on memory
// exhaustion) fails the query it ran with a message saying so; the next query runs on
// a new worker.
func TestWorker_DeadWorkerFailsOneQuery(t *testing.T) {
	e, err := Open(workerDB(t), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	workers.mu.Lock()
	for _, w := range workers.idle {
		w.cmd.Process.Kill()
		<-w.exited
	}
	killed := len(workers.idle)
	workers.mu.Unlock()
	if killed == 0 {
		t.Fatal("no idle worker after Open")
	}
	_, err = e.Query(context.Background(), "SELECT count(*) FROM t")
	if err == nil || !strings.Contains(err.Error(), "worker process failed") {
		t.Fatalf("query on a dead worker: %v, want it to say the worker failed", err)
	}
	for range killed { // each killed worker fails one query
		e.Query(context.Background(), "SELECT 1")
	}
	rs, err := e.Query(context.Background(), "SELECT count(*) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(10) {
		t.Fatalf("the query after: %v %v", rs, err)
	}
}

// Results, errors and refusals cross the pipe whole.
func TestWorker_ResultsAndErrorsCrossWhole(t *testing.T) {
	e, err := Open(workerDB(t), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rs, err := e.Query(context.Background(), "SELECT a, a * 1.5 AS f, 'x' || a AS s, NULL AS n, a % 2 = 0 AS b, '\\xFF'::BLOB AS bl FROM t ORDER BY a LIMIT 3")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Columns) != 6 || rs.Columns[1].Name != "f" || rs.Columns[0].Type == "" || len(rs.Rows) != 3 ||
		rs.Rows[2][0] != qeval.Int(2) || rs.Rows[2][2] != qeval.Text("x2") || rs.Rows[2][3] != qeval.Null ||
		rs.Rows[2][4] != qeval.Bool(true) || rs.Rows[0][5] != qeval.Bytes([]byte{0xFF}) {
		t.Errorf("result: %+v", rs)
	}
	_, err = e.Query(context.Background(), "DELETE FROM t")
	if qeval.ErrorCode(err) != qeval.CodeForbidden || !strings.Contains(err.Error(), "DELETE") {
		t.Errorf("DELETE: %v (code %s)", err, qeval.ErrorCode(err))
	}
	_, err = e.Query(context.Background(), "SELECT nope FROM t")
	if qeval.ErrorCode(err) != qeval.CodeQuery || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v (code %s)", err, qeval.ErrorCode(err))
	}
}

// An error of the bounded statement names the lines of the query as written.
func TestQuery_ErrorLinesAreTheQuerys(t *testing.T) {
	e, err := Open(workerDB(t), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Query(context.Background(), "SELECT a FROM t\nWHERE CAST('x' || a AS INTEGER) = 5")
	if err == nil || !strings.Contains(err.Error(), "LINE 2:") {
		t.Errorf("error of a two-line query: %v, want it at LINE 2", err)
	}
}

// Idle workers exit: nothing stays alive between the runs of a server.
func TestWorker_IdleWorkersExit(t *testing.T) {
	defer func(d time.Duration) { workerIdle = d }(workerIdle)
	workerIdle = 200 * time.Millisecond
	e, err := Open(workerDB(t), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	workers.mu.Lock()
	idle := append([]*worker(nil), workers.idle...)
	workers.mu.Unlock()
	if len(idle) == 0 {
		t.Fatal("no idle worker after Open")
	}
	for _, w := range idle {
		select {
		case <-w.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("an idle worker still runs 10 s after it fell idle")
		}
	}
	workers.mu.Lock()
	left := len(workers.idle)
	workers.mu.Unlock()
	if left != 0 {
		t.Errorf("%d idle workers listed after they exited", left)
	}
	rs, err := e.Query(context.Background(), "SELECT count(*) FROM t")
	if err != nil || rs.Rows[0][0] != qeval.Int(10) {
		t.Fatalf("a query after the workers exited: %v %v", rs, err)
	}
}

// Out of memory is too_large, without DuckDB's advice to its own user (raise
// memory_limit): the cap is the executor's.
func TestClassify_OutOfMemoryWithoutDuckDBsAdvice(t *testing.T) {
	e := &Executor{}
	ctx := context.Background()
	err := e.classify(ctx, ctx, &ddb.Error{Type: ddb.ErrorTypeOutOfMemory,
		Msg: "Out of Memory Error: Failed to allocate block of 8589934592 bytes (bad allocation)\n\nPossible solutions:\n* Increasing the memory limit (SET memory_limit='...GB')"})
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(err.Error(), "Failed to allocate block") || strings.Contains(err.Error(), "SET memory_limit") {
		t.Errorf("out of memory: %v (code %s)", err, qeval.ErrorCode(err))
	}
}

// A file replaced on disk (a mirror renamed over it) is read afresh by an executor
// opened after, and by one opened before at its next query. DuckDB keeps one instance
// per path in a process: a second executor of the file was given the first one's
// instance, and read the old rows (and the gold-result cache kept them under the new
// file's content).
func TestWorker_ReplacedFileIsReadAfresh(t *testing.T) {
	path := workerDB(t)
	count := func(e *Executor) qeval.Value {
		t.Helper()
		rs, err := e.Query(context.Background(), "SELECT count(*) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		return rs.Rows[0][0]
	}
	before, err := Open(path, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	if n := count(before); n != qeval.Int(10) {
		t.Fatalf("count %v, want 10", n)
	}
	if err := os.Rename(workerDB(t, "CREATE TABLE t AS SELECT range AS a FROM range(11)"), path); err != nil {
		t.Fatal(err)
	}
	after, err := Open(path, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if n := count(after); n != qeval.Int(11) {
		t.Errorf("an executor opened after the file was replaced counts %v, want 11", n)
	}
	if n := count(before); n != qeval.Int(11) {
		t.Errorf("an executor opened before the file was replaced counts %v, want 11", n)
	}
}
