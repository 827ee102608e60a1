package duckdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A query that needs more memory than memory_limit spills to DuckDB's temp_directory,
// which by default is <file>.tmp beside the database (.tmp in the working folder for an
// in-memory instance), bounded only by 90% of the free disk: a hostile DISTINCT wrote
// 1 GB beside a "read-only" database in 8 s, and a run killed mid-query left it there.
// Each worker process spills into a private folder under the system's temporary folder
// instead, qeval-duckdb-spill-<pid>-<random> (mode 0700; pid: the qeval process that started
// the worker, its owner), each instance into its own folder there, at most
// max_temp_directory_size (the byte cap, as memory_limit). The folder goes when the
// worker ends: the worker removes it when its input ends, and qeval once it has reaped
// the worker, however it ended. One left by a qeval that was killed (its workers die
// with it) is removed when any qeval process next starts or reaps a worker, once no
// process runs under its owner's pid.
const (
	spillEnv    = "QEVAL_DUCKDB_SPILL" // the worker's spill folder, set by the parent
	spillPrefix = "qeval-duckdb-spill-"
)

// spillRoot is the folder the spill folders are made in.
var spillRoot = os.TempDir

// newSpillDir makes a private spill folder for a worker this process starts, after
// removing the stale ones.
func newSpillDir() (string, error) {
	root := spillRoot()
	removeStale(root)
	return os.MkdirTemp(root, fmt.Sprintf("%s%d-", spillPrefix, os.Getpid()))
}

// workerSpillDir is the spill folder the parent made for this worker, or "" when there
// is none (then nothing spills: DuckDB's temp_directory is empty).
func workerSpillDir() string {
	d := os.Getenv(spillEnv)
	if _, ok := spillOwner(filepath.Base(d)); !ok || !filepath.IsAbs(d) {
		return ""
	}
	if st, err := os.Lstat(d); err != nil || !st.IsDir() {
		return ""
	}
	return d
}

// removeStale removes the spill folders in root whose owner no longer runs. A folder
// of another user, or a name that merely looks like one (a file, a link), is left.
func removeStale(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := spillOwner(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || running(pid) {
			continue
		}
		if path := filepath.Join(root, e.Name()); ownDir(path) {
			os.RemoveAll(path)
		}
	}
}

// spillOwner reads the owner's pid from a spill folder's name.
func spillOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, spillPrefix)
	if !ok {
		return 0, false
	}
	digits, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
