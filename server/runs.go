package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// maxRunConcurrency caps the cases one run runs at once, whatever its suite asks.
const maxRunConcurrency = 16

// Counts are the cases of a run so far by status.
type Counts struct {
	Done   int `json:"done"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Unscorable are the cases whose gold query the engine does not support.
	Unscorable int `json:"unscorable,omitempty"`
}

func (c *Counts) add(status string) {
	c.Done++
	switch status {
	case qeval.StatusPass:
		c.Passed++
	case qeval.StatusFail:
		c.Failed++
	case qeval.StatusUnscorable:
		c.Unscorable++
	default:
		c.Errors++
	}
}

// run is a run in progress. Its event log (each finished case, encoded once) only
// grows; subscribers and the store writer each read it from their own cursor, woken
// by a non-blocking send on their channel, so the runner never waits for them.
type run struct {
	row      runRow
	weights  map[string]float64 // the composite's weights, as the suite gives them
	cancel   context.CancelFunc
	canceled atomic.Bool // a user asked to cancel
	display  func(path string) string

	mu     sync.Mutex
	events [][]byte // the cases, encoded, in the order they finished
	counts Counts
	subs   map[chan struct{}]struct{}
	end    *RunView // the final view (without cases), set when the run has ended
	endMsg []byte   // end, encoded for the event stream
}

// subscribe returns a channel that receives a value (coalesced) whenever the log
// grows or the run ends.
func (r *run) subscribe() chan struct{} {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.subs[ch] = struct{}{}
	r.mu.Unlock()
	return ch
}

func (r *run) unsubscribe(ch chan struct{}) {
	r.mu.Lock()
	delete(r.subs, ch)
	r.mu.Unlock()
}

// notifyLocked wakes every subscriber without blocking; r.mu is held.
func (r *run) notifyLocked() {
	for ch := range r.subs {
		select {
		case ch <- struct{}{}:
		default: // already woken: the subscriber reads everything new when it runs
		}
	}
}

// add records a finished case: the runner's OnCase.
func (r *run) add(cr qeval.CaseResult) {
	redact(&cr, r.display)
	b, err := json.Marshal(cr)
	if err != nil {
		// a metric's details held what JSON cannot (NaN); keep what can be said
		b, _ = json.Marshal(map[string]any{"id": cr.ID, "status": cr.Status, "total_score": nil,
			"reason": "the result of this case could not be encoded: " + err.Error()})
	}
	r.mu.Lock()
	r.events = append(r.events, b)
	r.counts.add(cr.Status)
	r.notifyLocked()
	r.mu.Unlock()
}

// snapshot returns the log from cursor on, the counts, and the end (nil while the run
// goes on). The log's entries never change once appended, so the slice may be read
// without the lock.
func (r *run) snapshot(cursor int) ([][]byte, Counts, *RunView, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cursor > len(r.events) {
		cursor = len(r.events)
	}
	return r.events[cursor:len(r.events):len(r.events)], r.counts, r.end, r.endMsg
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validID reports whether id can be a run id (16 lowercase hex digits), so nothing
// else in a path ever reaches the store.
func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// start records a run and starts it in the background, under the server's context.
func (s *Server) start(p *posted) (*run, error) {
	st := p.suite
	// a suite that sets aside flagged gold (exclude_flagged) is audited first, as
	// qeval run does: the run has the kept cases, and its report the audit
	var goldAudit *qeval.GoldAudit
	if len(st.ExcludeFlagged) > 0 {
		exclude, err := audit.CheckFlags("exclude_flagged", st.ExcludeFlagged)
		if err != nil {
			return nil, err
		}
		opt := audit.Options{Limits: qeval.Limits{Timeout: time.Duration(st.Timeout)}, Reversed: registry.ReversedOpener}
		if goldAudit, err = audit.Suite(s.ctx, st, s.catalog(p), exclude, opt); err != nil {
			return nil, err
		}
	}
	threshold := qeval.DefaultThreshold
	if st.Threshold != nil {
		threshold = *st.Threshold
	}
	r := &run{row: runRow{ID: newID(), Suite: st.Name, Status: StatusRunning, Total: len(st.Cases), Threshold: threshold,
		Started: s.now().UTC()}, display: displayer(p.display), subs: map[chan struct{}]struct{}{}, weights: st.Weights}
	if len(r.weights) == 0 {
		r.weights = qeval.DefaultWeights()
	}
	target, err := targetOf(p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Message: "the server is shutting down"}
	case len(s.active) >= s.cfg.MaxActiveRuns:
		s.mu.Unlock()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable,
			Message: fmt.Sprintf("%d runs are in progress, the most this server runs at once", len(s.active)),
			Hint:    "wait for one to end, or cancel one"}
	}
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancel = cancel
	s.active[r.row.ID] = r
	s.wg.Add(1)
	s.mu.Unlock()

	if err := s.store.createRun(context.Background(), &r.row); err != nil {
		cancel()
		s.mu.Lock()
		delete(s.active, r.row.ID)
		s.mu.Unlock()
		s.wg.Done()
		return nil, fmt.Errorf("record run: %w", err)
	}
	go s.execute(ctx, r, st, target, s.catalog(p), goldAudit)
	return r, nil
}

// execute runs the suite, writes each case to the store as it finishes, and records
// the report and how the run ended.
func (s *Server) execute(ctx context.Context, r *run, st *qeval.Suite, target runner.Target, cat qeval.Catalog, goldAudit *qeval.GoldAudit) {
	defer s.wg.Done()
	defer r.cancel()

	stop, stopped := make(chan struct{}), make(chan struct{})
	wake := r.subscribe()
	go s.persist(r, wake, stop, stopped)

	cfg := s.runConfig(r, st, target, cat)
	rep, err := s.runSafely(ctx, r, st, cfg)
	if rep != nil {
		rep.Audit = goldAudit
	}
	close(stop)
	<-stopped
	r.unsubscribe(wake)

	status, errMsg, repJSON := s.endOf(r, rep, err)
	r.mu.Lock()
	c := r.counts
	r.mu.Unlock()
	finished := s.now().UTC()
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if err := s.store.finishRun(wctx, r.row.ID, status, errMsg, finished, c, repJSON); err != nil {
		// a report the store cannot hold must not leave the run "running" forever:
		// record the end without it, and say why
		s.log.Error("record run end", "run", r.row.ID, "err", err)
		status, errMsg = StatusFailed, "the report could not be stored: "+qeval.ErrorMessage(err)
		if err := s.store.finishRun(wctx, r.row.ID, status, errMsg, finished, c, nil); err != nil {
			s.log.Error("record run end without its report", "run", r.row.ID, "err", err)
		}
	}
	cancel()

	row := r.row
	row.Status, row.Error, row.Finished = status, errMsg, &finished
	row.Done, row.Passed, row.Failed, row.Errors = c.Done, c.Passed, c.Failed, c.Errors
	end := viewOf(&row)
	if rep != nil {
		end.withReport(&rep.Run, &rep.Summary)
	}
	msg, _ := json.Marshal(end)
	if rep != nil && status != StatusFailed {
		// the page asks for the run's table next: it is ready without reading the store
		e := *end
		s.loadedRuns.put(loadedOf(&e, rep))
	}
	r.mu.Lock()
	r.end, r.endMsg = end, msg
	r.notifyLocked()
	r.mu.Unlock()

	s.mu.Lock()
	delete(s.active, r.row.ID)
	s.mu.Unlock()
}

// runConfig is the runner's configuration of a run on the server: the server's judge
// (its stats counted from the run's start), limits, Malloy compiler and concurrency
// (the server's, else the suite's, else the CPUs, at most maxRunConcurrency).
func (s *Server) runConfig(r *run, st *qeval.Suite, target runner.Target, cat qeval.Catalog) runner.Config {
	var base qeval.JudgeStats
	if s.cfg.JudgeStats != nil {
		base = s.cfg.JudgeStats()
	}
	cfg := runner.Config{Catalog: cat, Target: target, Judge: s.cfg.Judge, JudgeInfo: s.cfg.JudgeInfo, JudgeSkipped: s.cfg.JudgeSkipped,
		Concurrency: s.cfg.Concurrency, Version: s.cfg.Version, Logger: s.log, Now: s.cfg.Now, OnCase: r.add,
		MaxResultBytes: s.cfg.Limits.MaxBytes, MaxRunBytes: s.cfg.MaxRunBytes / int64(s.cfg.MaxActiveRuns), Malloy: s.cfg.Malloy}
	if s.cfg.JudgeStats != nil {
		cfg.JudgeStats = func() qeval.JudgeStats { return statsSince(s.cfg.JudgeStats(), base) }
	}
	n := s.cfg.Concurrency
	if n <= 0 {
		n = st.Concurrency
	}
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	cfg.Concurrency = min(n, maxRunConcurrency)
	return cfg
}

// endOf is how a run ended: its status, the error shown, and its report encoded for
// the store (secrets and paths redacted), or nil when there is none.
func (s *Server) endOf(r *run, rep *qeval.Report, err error) (string, string, []byte) {
	status, errMsg := StatusFinished, ""
	var repJSON []byte
	switch {
	case err != nil:
		status, errMsg = StatusFailed, qeval.ErrorMessage(err)
		if h := qeval.ErrorHint(err); h != "" {
			errMsg += " (" + h + ")"
		}
	case rep.Run.Interrupted && r.canceled.Load():
		status = StatusCanceled
	case rep.Run.Interrupted:
		status, errMsg = StatusInterrupted, "the server stopped while the run was in progress"
	}
	if rep != nil {
		rep.Run.SuitePath = ""
		for i := range rep.Cases {
			redact(&rep.Cases[i], r.display)
		}
		if repJSON, err = report.Marshal(rep); err != nil {
			s.log.Error("encode report", "run", r.row.ID, "err", err)
			status, errMsg, repJSON = StatusFailed, "the report could not be encoded: "+qeval.ErrorMessage(err), nil
		}
	}
	return status, errMsg, repJSON
}

// runSafely runs a suite, turning a panic into the run's error (logged with a short
// stack): a run that panics is marked failed and the server goes on, rather than the
// panic ending the process and every other run.
func (s *Server) runSafely(ctx context.Context, r *run, st *qeval.Suite, cfg runner.Config) (rep *qeval.Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("run panicked", "run", r.row.ID, "panic", p, "stack", string(debug.Stack()))
			rep, err = nil, &qeval.Error{Code: qeval.CodeInternal, Message: fmt.Sprintf("internal error: panic: %v", p)}
		}
	}()
	return runner.Run(ctx, st, cfg)
}

// persist writes the cases of r to the store in batches, as they come, until stop is
// closed and everything is written.
func (s *Server) persist(r *run, wake, stop, stopped chan struct{}) {
	defer close(stopped)
	saved := 0
	for {
		last := false
		select {
		case <-wake:
		case <-stop:
			last = true
		}
		batch, c, _, _ := r.snapshot(saved)
		if len(batch) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := s.store.appendCases(ctx, r.row.ID, saved, batch, c); err != nil {
				// store them one by one; a case the store cannot hold is recorded as an
				// error case in its place, and the run goes on
				s.log.Error("record cases", "run", r.row.ID, "err", err)
				for i, b := range batch {
					if err := s.store.appendCases(ctx, r.row.ID, saved+i, [][]byte{b}, c); err != nil {
						stand, _ := json.Marshal(qeval.CaseResult{ID: caseID(b), Status: qeval.StatusError,
							Reason: "the case's result could not be stored: " + qeval.ErrorMessage(err)})
						if err := s.store.appendCases(ctx, r.row.ID, saved+i, [][]byte{stand}, c); err != nil {
							s.log.Error("record a stand-in case", "run", r.row.ID, "err", err)
						}
					}
				}
			}
			cancel()
			saved += len(batch)
		}
		if last {
			return
		}
	}
}

// caseID reads the id of a stored case result.
func caseID(b []byte) string {
	var c struct {
		ID string `json:"id"`
	}
	json.Unmarshal(b, &c)
	return c.ID
}

func statsSince(now, base qeval.JudgeStats) qeval.JudgeStats {
	return qeval.JudgeStats{Calls: now.Calls - base.Calls, CacheHits: now.CacheHits - base.CacheHits,
		InputTokens: now.InputTokens - base.InputTokens, OutputTokens: now.OutputTokens - base.OutputTokens,
		Errors: now.Errors - base.Errors, Timeouts: now.Timeouts - base.Timeouts}
}

// targetOf returns where a run's generated queries come from: the cases themselves,
// or, for a suite the server was started with, the target it names.
func targetOf(p *posted) (runner.Target, error) {
	if !p.configured {
		return runner.Inline{}, nil
	}
	return runner.NewTarget(p.suite.Target, filepath.Dir(p.suite.Path))
}

// displayer maps database paths to the names results show: the name the suite used,
// a file of a test-suite folder under that folder's name, else the file name. Paths
// of the server's machine never reach a client.
func displayer(names map[string]string) func(string) string {
	return func(p string) string {
		if p == "" {
			return ""
		}
		if n, ok := names[p]; ok {
			return n
		}
		best, bestName := "", ""
		for dir, n := range names {
			if len(dir) > len(best) && strings.HasPrefix(p, dir+string(filepath.Separator)) {
				best, bestName = dir, n
			}
		}
		if best != "" {
			rel := filepath.ToSlash(strings.TrimPrefix(p, best+string(filepath.Separator)))
			if bestName == "." {
				return rel
			}
			return bestName + "/" + rel
		}
		return filepath.Base(p)
	}
}

// redact replaces the database paths of a case result by their display names.
func redact(cr *qeval.CaseResult, display func(string) string) {
	cr.Database = display(cr.Database)
	if cr.Verdict != nil {
		v := *cr.Verdict
		v.Database = display(v.Database)
		cr.Verdict = &v
	}
	if m, ok := cr.Metrics[metric.NameExecutionMatch]; ok {
		if db, ok := m.Details["database"].(string); ok {
			d := make(map[string]any, len(m.Details))
			for k, v := range m.Details {
				d[k] = v
			}
			d["database"] = display(db)
			m.Details = d
			metrics := make(map[string]qeval.MetricResult, len(cr.Metrics))
			for k, v := range cr.Metrics {
				metrics[k] = v
			}
			metrics[metric.NameExecutionMatch] = m
			cr.Metrics = metrics
		}
	}
}
