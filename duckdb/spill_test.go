package duckdb

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

// spillQuery needs more memory than 64 MB (its distinct strings take ~1 GB): DuckDB
// spills them to disk until the spill reaches its bound.
const spillQuery = "SELECT count(*) FROM (SELECT DISTINCT (i*7919)::VARCHAR || repeat('p',200) AS s FROM range(5000000) t(i))"

// useSpillRoot has the workers started from now on make their spill folders in a
// folder of the test, which it returns; the workers started before are ended first, and
// the test's own at its end.
func useSpillRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	endIdleWorkers()
	old := spillRoot
	spillRoot = func() string { return root }
	t.Cleanup(func() { endIdleWorkers(); spillRoot = old })
	return root
}

// endIdleWorkers ends the idle workers as reap does, and waits until they have exited.
func endIdleWorkers() {
	workers.mu.Lock()
	idle := workers.idle
	workers.idle = nil
	for _, w := range idle {
		delete(workers.live, w)
		w.in.Close()
		w.out.Close()
	}
	workers.trim()
	workers.mu.Unlock()
	for _, w := range idle {
		<-w.exited
	}
}

// spillFolders lists the spill folders in root owned by pid.
func spillFolders(t *testing.T, root string, pid int) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, spillPrefix+strconv.Itoa(pid)+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// A query that spills writes nothing beside the database (DuckDB's default was
// <file>.tmp there, bounded only by 90% of the free disk: 1 GB in 8 s): it spills into
// its worker's private folder, up to the byte cap, and is too_large past it. The folder
// goes with the worker, however it ends.
func TestSpill_PrivateBoundedAndGoneWithItsWorker(t *testing.T) {
	root := useSpillRoot(t)
	path := workerDB(t)
	e, err := Open(path, qeval.Limits{Timeout: 2 * time.Minute, MaxBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Query(context.Background(), spillQuery)
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(err.Error(), "spilled to disk") {
		t.Errorf("a query spilling past the byte cap: %v (code %s), want too_large at the spill's bound", err, qeval.ErrorCode(err))
	}
	if got := names(t, filepath.Dir(path)); len(got) != 1 || got[0] != "w.duckdb" {
		t.Errorf("beside the database: %q, want only w.duckdb", got)
	}
	folders := spillFolders(t, root, os.Getpid())
	if len(folders) != 1 {
		t.Fatalf("spill folders of this process: %q, want its worker's", folders)
	}
	st, err := os.Stat(folders[0])
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the spill folder: %v %v, want mode 0700", st.Mode(), err)
	}
	if got := names(t, folders[0]); len(got) != 1 {
		t.Errorf("in the worker's spill folder: %q, want the folder the file's instance spilled into", got)
	}

	// the worker killed, as the kernel or an overrun would: its folder goes
	workers.mu.Lock()
	if len(workers.idle) != 1 {
		t.Fatalf("%d idle workers, want the one that ran the query", len(workers.idle))
	}
	w := workers.idle[0]
	workers.mu.Unlock()
	w.cmd.Process.Kill()
	<-w.exited
	if _, err := os.Stat(folders[0]); !os.IsNotExist(err) {
		t.Errorf("the spill folder of a killed worker: %v, want it removed", err)
	}
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// The spill folders of a killed qeval (whose workers died with it) are removed when a
// worker starts, and when one is reaped; those of running processes, another's files
// named alike and other folders stay.
func TestSpill_StaleFoldersRemoved(t *testing.T) {
	root := useSpillRoot(t)
	mk := func(name string, dir bool) string {
		p := filepath.Join(root, name)
		if dir {
			if err := os.MkdirAll(filepath.Join(p, "1"), 0o700); err != nil {
				t.Fatal(err)
			}
			p = filepath.Join(p, "1", "duckdb_temp_storage_DEFAULT-0.tmp")
		}
		if err := os.WriteFile(p, []byte("spilled"), 0o600); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(root, name)
	}
	dead := deadPid(t)
	stale := mk(spillPrefix+strconv.Itoa(dead)+"-1", true)
	kept := []string{
		mk(spillPrefix+strconv.Itoa(os.Getppid())+"-1", true), // a running process's
		mk(spillPrefix+strconv.Itoa(dead)+"-2", false),        // a file
		mk("qeval-duckdb-"+strconv.Itoa(dead), true),          // a mirror folder of qeval spider
	}
	e, err := Open(workerDB(t), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the spill folder of a dead process after a worker started: %v, want it removed", err)
	}
	for _, k := range kept {
		if _, err := os.Stat(k); err != nil {
			t.Errorf("%s: %v, want it kept", filepath.Base(k), err)
		}
	}
	stale = mk(spillPrefix+strconv.Itoa(dead)+"-3", true)
	endIdleWorkers()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the spill folder of a dead process after a worker was reaped: %v, want it removed", err)
	}
	if got := spillFolders(t, root, os.Getpid()); len(got) != 0 {
		t.Errorf("spill folders of this process after its workers ended: %q", got)
	}
}
