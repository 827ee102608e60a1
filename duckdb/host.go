package duckdb

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/qeval/qeval"
)

// Host holds several DuckDB files for one run: the executors it opens share one DuckDB
// instance per worker process, each file attached read-only under its base name, so a
// run over many small databases starts one instance per worker, not one per file.
//
// Queries run in worker processes (this program started again), never in this one: a
// DuckDB function that does not check for interruption (repeat, lpad or printf building
// a string of a gigabyte) cannot be stopped in its thread, so a worker whose query
// outlives its deadline is ended, and the query is a timeout. A crash of the engine
// ends a worker too, not the run. At most max(2, GOMAXPROCS) workers run at once; an
// idle one serves the next query of any executor.
type Host struct {
	files []string // cleaned paths, in the order given
	id    string   // names its instance in the workers

	mu       sync.Mutex
	closed   bool
	open     map[string]int  // cleaned path → executors open on it
	detached map[string]bool // files whose last executor closed
}

// NewHost returns a host for the DuckDB files at paths (duckdb:PATH or PATH). Nothing
// is opened until the first Open: the limits of that call size the instance.
func NewHost(paths []string) *Host {
	h := &Host{id: newSpecID(), open: map[string]int{}, detached: map[string]bool{}}
	for _, p := range paths {
		h.files = append(h.files, filepath.Clean(Path(p)))
	}
	return h
}

// Open opens target on the host when the host holds its file, and alone (Open)
// otherwise. When the last executor of a file closes, the file is detached (its
// cached blocks freed); opening it again opens it alone, as files cannot be attached
// once the sandbox is locked.
func (h *Host) Open(target string, limits qeval.Limits) (*Executor, error) {
	path := filepath.Clean(Path(target))
	if !slices.Contains(h.files, path) {
		return Open(target, limits)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: "the DuckDB host is closed"}
	}
	if h.detached[path] {
		h.mu.Unlock()
		return Open(target, limits)
	}
	h.open[path]++
	h.mu.Unlock()
	e, err := openRemote(spec{ID: h.id, Files: h.files, Hosted: true}, path, limits.WithDefaults(), func() { h.closed1(path) })
	if err != nil {
		h.closed1(path)
		return nil, err
	}
	return e, nil
}

// closed1 counts an executor of path closed, and detaches the file after its last.
func (h *Host) closed1(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[path]--; h.open[path] > 0 || h.closed {
		return
	}
	h.detached[path] = true
	workers.release(h.id, path)
}

// Opener is Open as a qeval.Opener.
func (h *Host) Opener() qeval.Opener {
	return func(target string, limits qeval.Limits) (qeval.Executor, error) {
		e, err := h.Open(target, limits)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// Close closes the instance in every worker; calling it again does nothing.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		workers.release(h.id, "")
	}
	return nil
}

// openRemote opens path of sp with one query in a worker (so a file DuckDB cannot open
// fails here, with its message); onClose runs when the executor closes.
func openRemote(sp spec, path string, limits qeval.Limits, onClose func()) (*Executor, error) {
	e := &Executor{path: path, limits: limits, remote: &remote{spec: sp}}
	if _, err := e.Query(context.Background(), "SELECT 1"); err != nil {
		if !sp.Hosted {
			workers.release(sp.ID, "")
		}
		if strings.HasPrefix(qeval.ErrorMessage(err), "open database ") {
			return nil, err
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: qeval.ErrorMessage(err), Err: err}
	}
	e.onClose = onClose
	if !sp.Hosted {
		e.onClose = func() { workers.release(sp.ID, "") }
	}
	return e, nil
}
