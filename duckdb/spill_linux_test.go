package duckdb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

// helperDB, set, makes TestSpill_HelperProcess a qeval that runs spillQuery on that
// file, writes its workers' pids to helperPids, and waits to be killed.
const (
	helperDB   = "QEVAL_TEST_SPILL_DB"
	helperPids = "QEVAL_TEST_SPILL_PIDS"
)

func TestSpill_HelperProcess(t *testing.T) {
	db := os.Getenv(helperDB)
	if db == "" {
		return // a helper process of TestSpill_KilledRunLeavesNothingBeside only
	}
	e, err := Open(db, qeval.Limits{Timeout: 2 * time.Minute, MaxBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var pids bytes.Buffer
	workers.mu.Lock()
	for w := range workers.live {
		fmt.Fprintln(&pids, w.cmd.Process.Pid)
	}
	workers.mu.Unlock()
	if err := os.WriteFile(os.Getenv(helperPids), pids.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Query(context.Background(), spillQuery)
	io.Copy(io.Discard, os.Stdin) // until killed
}

// A qeval killed (kill -9) while a query spills leaves nothing beside the database (it
// left 600 MB there); its workers die with it, and the folder they spilled into is
// removed when a qeval process next starts a worker.
func TestSpill_KilledRunLeavesNothingBeside(t *testing.T) {
	root := useSpillRoot(t)
	path := workerDB(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpill_HelperProcess$")
	cmd.Env = append(os.Environ(), "TMPDIR="+root, helperDB+"="+path, helperPids+"="+pidFile)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// an external process: polled, with a generous deadline
	deadline := time.Now().Add(time.Minute)
	for spilled(root)+spilled(path+".tmp") < 1<<20 { // DuckDB spilled beside the file by default
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the helper spilled nothing in a minute; it said: %s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	pids, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(pids)) {
		pid, _ := strconv.Atoi(f)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("the helper's worker %d still runs after it was killed", pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if got := names(t, filepath.Dir(path)); len(got) != 1 || got[0] != "w.duckdb" {
		t.Errorf("beside the database after the kill: %q, want only w.duckdb", got)
	}
	left := spillFolders(t, root, cmd.Process.Pid)
	if len(left) != 1 {
		t.Fatalf("spill folders of the killed helper: %q, want the one its worker left", left)
	}
	w, err := startWorker()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
		t.Errorf("the killed helper's spill folder after a worker started: %v, want it removed", err)
	}
	w.in.Close()
	w.out.Close()
	<-w.exited
	if got := names(t, root); len(got) != 0 {
		t.Errorf("left in the spill root: %q", got)
	}
}

// spilled is how many bytes the files under root hold.
func spilled(root string) int64 {
	var n int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// alive reports whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
