package duckdb

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
)

// The queries of an Executor run in worker processes: this program started again with
// workerEnv set, which serves requests on file descriptors 3 (in) and 4 (out) from the
// package's init, before the program's main (or a test binary's tests) runs. A DuckDB
// scalar function does not check for interruption, so a query building a gigabyte
// string runs on past its deadline in the engine's thread: only ending its process
// stops it.
const (
	workerEnv     = "QEVAL_DUCKDB_WORKER"
	workerVersion = "qeval-duckdb-worker/1"
	// workerGrace is how long past a query's deadline its worker may take to answer
	// (DuckDB stops an interruptible query within milliseconds) before it is ended.
	workerGrace = time.Second
)

// workerIdle is how long an idle worker waits for a query before it exits.
var workerIdle = 30 * time.Second

func init() {
	if os.Getenv(workerEnv) == workerVersion {
		os.Exit(serveWorker(os.NewFile(3, "requests"), os.NewFile(4, "responses")))
	}
}

// request asks a worker to run Query on the executor ID, which the worker opens (Path,
// with Limits) on its first request; Releases are the executors the parent closed since
// the worker's last request.
type request struct {
	ID       string
	Path     string
	Limits   qeval.Limits
	Timeout  time.Duration // the query's own: the executor's, or less when the caller's deadline is nearer
	Query    string
	Releases []string
	// Writable opens the file as a sandbox copy (sandbox.go), which one worker holds
	// for its whole life.
	Writable bool
}

type response struct {
	Result *qeval.ResultSet
	Err    *wireError
}

// wireError is a *qeval.Error as it crosses the pipe.
type wireError struct {
	Code              qeval.Code
	Op, Message, Hint string
	Line, Col         int
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Code: qeval.ErrorCode(err), Message: err.Error()}
	var e *qeval.Error
	if errors.As(err, &e) && error(e) == err {
		w.Op, w.Hint, w.Line, w.Col = e.Op, e.Hint, e.Line, e.Col
		w.Message = e.Message
		if w.Message == "" && e.Err != nil {
			w.Message = e.Err.Error()
		}
	}
	return w
}

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	return &qeval.Error{Code: w.Code, Op: w.Op, Message: w.Message, Hint: w.Hint, Line: w.Line, Col: w.Col}
}

func newExecutorID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ---- the worker side --------------------------------------------------------------

// workerState is what a worker holds: the executors of the parent, each a DuckDB
// instance with its one file alone (a prediction for one database cannot name a table
// of another, as it could when several files were attached to one instance; DuckDB
// shares one instance among the executors of a file), each file spilling into its own
// folder in the worker's (spill.go).
type workerState struct {
	execs  map[string]*workerExec
	spill  string            // the worker's private spill folder; "" spills nothing
	spills map[string]string // file → its spill folder
}

// workerExec is an executor of the parent, opened on one version of its file.
type workerExec struct {
	*Executor
	stamp stamp // of its file when opened
}

// serveWorker answers requests until its input ends; it returns the exit status.
func serveWorker(in, out *os.File) int {
	dec := gob.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := gob.NewEncoder(bw)
	st := &workerState{execs: map[string]*workerExec{}, spill: workerSpillDir(), spills: map[string]string{}}
	defer st.closeAll()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "qeval DuckDB worker: read a request:", err)
			return 2
		}
		resp := st.handle(req)
		if err := enc.Encode(&resp); err != nil {
			fmt.Fprintln(os.Stderr, "qeval DuckDB worker: write a response:", err)
			return 2
		}
		if err := bw.Flush(); err != nil {
			return 2
		}
	}
}

func (st *workerState) handle(req request) response {
	for _, id := range req.Releases {
		st.release(id)
	}
	if req.Query == "" && req.ID == "" {
		return response{} // releases only (a sandbox handing its worker back)
	}
	e, err := st.executor(req)
	if err != nil {
		return response{Err: toWire(err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	rs, err := e.Query(ctx, req.Query)
	return response{Result: rs, Err: toWire(err)}
}

// executor returns the executor req names, opened on the file as it is now: DuckDB
// keeps one instance per path in a process, so when the file has changed (a mirror
// renamed over it) every instance of it is closed first, or the new one would be the
// old, reading the old data; those executors open again on their next query.
func (st *workerState) executor(req request) (*Executor, error) {
	if e := st.execs[req.ID]; e != nil && req.Writable {
		return e.Executor, nil // a sandbox copy changes under its own statements
	}
	stamp := fileStamp(req.Path)
	if e := st.execs[req.ID]; e != nil && e.stamp == stamp {
		return e.Executor, nil
	}
	for id, e := range st.execs {
		if e.path == req.Path && e.stamp != stamp {
			st.release(id)
		}
	}
	spill := st.spills[req.Path]
	if spill == "" && st.spill != "" {
		// DuckDB makes it when it first spills, and removes it when the instance closes;
		// an instance of the same file must be opened with the same one
		spill = filepath.Join(st.spill, strconv.Itoa(len(st.spills)+1))
		st.spills[req.Path] = spill
	}
	open := openLocal
	if req.Writable {
		open = openSandboxCopy
	}
	e, err := open(req.Path, req.Limits, spill)
	if err != nil {
		return nil, err
	}
	st.execs[req.ID] = &workerExec{e, stamp}
	return e, nil
}

func (st *workerState) release(id string) {
	if e := st.execs[id]; e != nil {
		e.Close()
		delete(st.execs, id)
	}
}

// closeAll closes every instance and removes the worker's spill folder.
func (st *workerState) closeAll() {
	for id := range st.execs {
		st.release(id)
	}
	if st.spill != "" {
		os.RemoveAll(st.spill)
	}
}

// ---- the parent side --------------------------------------------------------------

// remote runs an executor's queries in the workers.
type remote struct {
	id string // names the executor in the workers
}

func (r *remote) query(ctx context.Context, path string, limits qeval.Limits, query string) (*qeval.ResultSet, error) {
	timeout := limits.Timeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(d), time.Millisecond))
	}
	return workers.query(ctx, request{ID: r.id, Path: path, Limits: limits, Timeout: timeout, Query: query})
}

// workers is the process's pool: every executor shares it.
var workers = &pool{max: max(2, runtime.GOMAXPROCS(0))}

type pool struct {
	max   int
	once  sync.Once
	slots chan struct{} // one per worker that may run

	mu     sync.Mutex
	idle   []*worker // the most recently used last
	live   map[*worker]bool
	reaper *time.Timer
	reapAt time.Time // when reaper fires; zero when it is not set
	// events are the releases the live workers have yet to hear, events[i] being the
	// base+i-th; a worker's cursor is the next it needs
	events []string
	base   int
}

func (p *pool) init() {
	p.once.Do(func() { p.slots = make(chan struct{}, p.max); p.live = map[*worker]bool{} })
}

func (p *pool) query(ctx context.Context, req request) (*qeval.ResultSet, error) {
	p.init()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, stopped(ctx, ctx.Err())
	}
	defer func() { <-p.slots }()
	w, err := p.take()
	if err != nil {
		return nil, err
	}
	rs, err, keep := p.ask(ctx, w, req)
	if keep {
		p.put(w)
	} else {
		p.drop(w)
	}
	return rs, err
}

// ask sends req to w, which the caller holds, and reads its answer until the query's
// deadline and a grace; keep is false when w must be dropped (it failed or was ended).
func (p *pool) ask(ctx context.Context, w *worker, req request) (rs *qeval.ResultSet, err error, keep bool) {
	p.mu.Lock()
	req.Releases = append(p.pending(w), req.Releases...)
	p.mu.Unlock()
	if err := w.enc.Encode(&req); err != nil {
		return nil, w.died(err), false
	}
	// The answer is read here, until the query's deadline and a grace: a worker
	// that is not done by then is ended. A caller that cancels ends it at once; one
	// whose deadline passes waits for it like the worker does, whose own deadline is
	// the same, and whose answer says more.
	var (
		mu                 sync.Mutex
		answered, killed   bool
		overran, cancelled bool
	)
	end := func(why *bool) { // ends the worker, unless its answer came first
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			*why, killed = true, true
			w.kill()
		}
	}
	timer := time.AfterFunc(req.Timeout+workerGrace, func() { end(&overran) })
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			end(&cancelled)
		}
	})
	var resp response
	err = w.dec.Decode(&resp)
	mu.Lock()
	answered = true
	mu.Unlock()
	timer.Stop()
	stop()
	keep = err == nil && !killed
	switch {
	case err == nil:
		return resp.Result, resp.Err.err(), keep
	case cancelled:
		return nil, stopped(ctx, ctx.Err()), keep
	case overran:
		return nil, &qeval.Error{Code: qeval.CodeTimeout,
			Message: fmt.Sprintf("query timed out (DuckDB did not stop at its %s deadline; its worker process was ended)", req.Timeout)}, keep
	}
	return nil, w.died(err), keep
}

// take returns an idle worker, or starts one.
func (p *pool) take() (*worker, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w, nil
	}
	p.mu.Unlock()
	w, err := startWorker()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.live[w] = true
	w.cursor = p.base + len(p.events) // a new worker holds nothing to release
	p.mu.Unlock()
	return w, nil
}

func (p *pool) put(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.idleSince = time.Now()
	p.idle = append(p.idle, w)
	p.reapBy(w.idleSince.Add(workerIdle))
}

// reapBy has reap run at t, or sooner (p.mu held).
func (p *pool) reapBy(t time.Time) {
	switch {
	case p.reaper == nil:
		p.reaper = time.AfterFunc(time.Until(t), p.reap)
	case p.reapAt.IsZero() || t.Before(p.reapAt):
		p.reaper.Reset(time.Until(t))
	default:
		return
	}
	p.reapAt = t
}

// reap ends the workers idle for workerIdle: a server between runs holds no DuckDB
// instance, nor the files of hosts closed since (a worker hears of those only with
// its next query).
func (p *pool) reap() {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.idle[:0]
	for _, w := range p.idle {
		if time.Since(w.idleSince) < workerIdle {
			keep = append(keep, w)
			continue
		}
		delete(p.live, w)
		w.in.Close() // the worker reads the end of its input and exits
		w.out.Close()
	}
	clear(p.idle[len(keep):])
	p.idle = keep
	p.trim()
	p.reapAt = time.Time{}
	if len(p.idle) > 0 {
		p.reapBy(p.idle[0].idleSince.Add(workerIdle))
	}
}

// drop ends a worker that failed or overran; no read of its answers is under way.
func (p *pool) drop(w *worker) {
	w.kill()
	w.out.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, w)
	p.trim()
}

// release queues the release of executor id for every live worker.
func (p *pool) release(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.live) > 0 {
		p.events = append(p.events, id)
	}
}

// pending hands w the releases it has not heard (p.mu held).
func (p *pool) pending(w *worker) []string {
	out := append([]string(nil), p.events[w.cursor-p.base:]...)
	w.cursor = p.base + len(p.events)
	p.trim()
	return out
}

// trim forgets the releases every live worker has heard (p.mu held).
func (p *pool) trim() {
	low := p.base + len(p.events)
	for w := range p.live {
		low = min(low, w.cursor)
	}
	p.events = p.events[low-p.base:]
	p.base = low
}

// worker is one worker process, serving one request at a time.
type worker struct {
	cmd       *exec.Cmd
	in        *os.File // requests
	out       *os.File // answers
	enc       *gob.Encoder
	dec       *gob.Decoder
	cursor    int
	idleSince time.Time

	spill    string // its private spill folder, removed when it has exited
	stderr   *tail
	killOnce sync.Once
	exited   chan struct{} // closed when its process has exited
	waitErr  error
}

func startWorker() (*worker, error) {
	spill, err := newSpillDir()
	if err != nil {
		return nil, workerStartError(err)
	}
	reqR, reqW, err := pipe()
	if err != nil {
		os.RemoveAll(spill)
		return nil, workerStartError(err)
	}
	respR, respW, err := pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		os.RemoveAll(spill)
		return nil, workerStartError(err)
	}
	cmd := exec.Command(self())
	cmd.Env = append(os.Environ(), workerEnv+"="+workerVersion, spillEnv+"="+spill)
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.SysProcAttr = workerAttr()
	w := &worker{cmd: cmd, in: reqW, out: respR, enc: gob.NewEncoder(reqW), spill: spill,
		dec: gob.NewDecoder(bufio.NewReaderSize(respR, 64<<10)), stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		os.RemoveAll(spill)
		return nil, workerStartError(err)
	}
	go func() {
		w.waitErr = cmd.Wait()
		// whatever ended it (idle, overrun, crash, the kernel), what it spilled goes,
		// and what workers of killed qeval processes left
		os.RemoveAll(spill)
		removeStale(filepath.Dir(spill))
		close(w.exited)
	}()
	return w, nil
}

func workerStartError(err error) error {
	return &qeval.Error{Code: qeval.CodeInternal, Op: "start a DuckDB worker process", Message: err.Error(), Err: err}
}

// self is the program to start as a worker: this one.
func self() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe" // even when the file was replaced since
	}
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// died describes a worker that ended while it ran a query.
func (w *worker) died(err error) error {
	status := "it ended"
	select {
	case <-w.exited:
		if w.waitErr != nil {
			status = "it ended: " + w.waitErr.Error()
		}
	case <-time.After(time.Second):
		status = "it stopped answering (" + err.Error() + ")"
	}
	msg := "the DuckDB worker process failed while running the query: " + status
	if s := strings.TrimSpace(w.stderr.String()); s != "" {
		msg += "; it said: " + s
	}
	w.kill()
	return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
}

// kill ends the worker process; calling it again does nothing.
func (w *worker) kill() {
	w.killOnce.Do(func() {
		w.cmd.Process.Kill()
		w.in.Close()
	})
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
