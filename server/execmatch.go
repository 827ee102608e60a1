package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
)

// Defaults of the exec-match (reward) endpoint.
const (
	// DefaultMaxPairs is the largest batch POST /api/exec-match takes.
	DefaultMaxPairs = 4096
	// latencyWindow is how many recent batches and pairs the quantiles are taken over.
	latencyWindow = 8192
)

// ExecMatchRequest is the body of POST /api/exec-match: pairs of a gold and a
// generated query on a configured database, as a training loop's reward asks them.
type ExecMatchRequest struct {
	Pairs []ExecMatchPair `json:"pairs"`
	// Results asks for both result sets of every pair (as a pair's own results does).
	Results bool `json:"results,omitempty"`
}

// ExecMatchPair is one question of a batch.
type ExecMatchPair struct {
	// DB is a configured database name (--db NAME=…, or a db_id under --db-root).
	DB   string `json:"db"`
	Gold string `json:"gold"`
	Pred string `json:"pred"`
	// Mode is the comparison mode (default: the server's, spider-ts unless set).
	Mode string `json:"mode,omitempty"`
	// TimeoutMS bounds the pair's queries (at most the server's query timeout).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Partial asks for partial credit: BIRD's soft F1 of the two results (1 for a
	// match, 0 when the prediction failed).
	Partial bool `json:"partial,omitempty"`
	// Results asks for both result sets in the answer (pred_results, gold_results).
	Results bool `json:"results,omitempty"`
	// The stateful fields (setup, checks, compare_state, compare_schema, teardown,
	// efficiency) make the pair a stateful one: gold and pred may change data and hold
	// several statements, each run in its own copy of the database (docs/stateful.md).
	qeval.StatefulSpec
}

// MaxResultRows is how many rows of each result an answer with results carries; a
// longer result is cut there and marked truncated.
const MaxResultRows = 1000

// ResultRows is a result set in an answer: its columns and rows, cut at MaxResultRows
// rows (and each text at 64 KiB), with truncated set when something was cut.
type ResultRows struct {
	Columns   []qeval.Column  `json:"columns"`
	Rows      [][]qeval.Value `json:"rows"`
	Truncated bool            `json:"truncated"`
}

func resultRows(rs *qeval.ResultSet) *ResultRows {
	if rs == nil {
		return nil
	}
	const maxText = 64 << 10
	out := &ResultRows{Columns: []qeval.Column{}, Rows: [][]qeval.Value{}, Truncated: rs.NumRows() > MaxResultRows}
	if p := rs.Preview(MaxResultRows, maxText); p != nil {
		out.Columns, out.Rows = append(out.Columns, p.Columns...), append(out.Rows, p.Rows...)
	}
	for _, row := range rs.Head(MaxResultRows).Rows {
		for _, v := range row {
			if (v.Kind == qeval.KindText || v.Kind == qeval.KindBytes) && len(v.Str) > maxText {
				out.Truncated = true
			}
		}
	}
	return out
}

// ExecMatchResult is the answer for one pair, in the order of the request.
type ExecMatchResult struct {
	Match   bool          `json:"match"`
	Outcome qeval.Outcome `json:"outcome"`
	// Error says why the pair failed or was not run (null otherwise): the engine's
	// message, or which field of the pair is wrong.
	Error *string `json:"error"`
	// PredMS and GoldMS are the time spent running each query (GoldMS is 0 when the
	// gold result came from the cache: CachedGold).
	PredMS     float64  `json:"pred_ms"`
	GoldMS     float64  `json:"gold_ms"`
	CachedGold bool     `json:"cached_gold"`
	Partial    *float64 `json:"partial,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	// PredResults and GoldResults are the two results, when the pair asked for them
	// (null when that query failed).
	PredResults *ResultRows `json:"pred_results,omitempty"`
	GoldResults *ResultRows `json:"gold_results,omitempty"`
	// State is what a stateful pair compared: its checks, the tables each answer left
	// with their rows added, removed and changed, the definitions and the costs.
	State *qeval.StateVerdict `json:"state,omitempty"`
}

// ExecMatchResponse is the answer of POST /api/exec-match.
type ExecMatchResponse struct {
	Results []ExecMatchResult `json:"results"`
}

// ExecMatchStats is the answer of GET /api/exec-match/stats.
type ExecMatchStats struct {
	Batches   int64                    `json:"batches"`
	Pairs     int64                    `json:"pairs"`
	Outcomes  map[qeval.Outcome]int64  `json:"outcomes"`
	GoldCache execmatch.GoldCacheStats `json:"gold_cache"`
	// SharedRejected counts the shared cache's entries that failed authentication
	// (--cache-key): written by another, or altered.
	SharedRejected int64 `json:"shared_rejected"`
	// BatchMS and PredMS are latency quantiles (p50, p90, p99, max) over the most
	// recent batches and pairs.
	BatchMS   Quantiles `json:"batch_ms"`
	PredMS    Quantiles `json:"pred_ms"`
	Databases int       `json:"databases"`
}

// Quantiles summarise recent latencies, in milliseconds.
type Quantiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// rewarder answers exec-match batches: one evaluator per mode (databases opened once
// and kept), a gold-result cache shared by all modes' keys, and a bound on the pairs
// running at once on each database.
type rewarder struct {
	cfg     Config
	catalog *registry.Catalog

	mu    sync.Mutex
	evals map[string]*execmatch.Evaluator // by mode as asked ("" = default)
	slots map[string]chan struct{}        // by database name
	// inflight bounds the pairs running at once over every batch: their results share
	// the server's results budget (resultCap)
	inflight chan struct{}

	batches, pairs atomic.Int64
	outMu          sync.Mutex
	outcomes       map[qeval.Outcome]int64
	batchMS        ring
	predMS         ring
}

func newRewarder(cfg Config, dbs map[string]string) *rewarder {
	return &rewarder{cfg: cfg, catalog: &registry.Catalog{Connections: dbs, NamesOnly: true, AllowPrivileged: cfg.AllowPrivileged},
		evals: map[string]*execmatch.Evaluator{}, slots: map[string]chan struct{}{}, outcomes: map[qeval.Outcome]int64{},
		batchMS: newRing(latencyWindow), predMS: newRing(latencyWindow),
		inflight: make(chan struct{}, max(2*runtime.GOMAXPROCS(0), cfg.ExecMatchPerDB))}
}

func (rw *rewarder) close() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	for _, e := range rw.evals {
		e.Close()
	}
	rw.evals = map[string]*execmatch.Evaluator{}
}

// evaluator returns the evaluator of a mode, built on first use.
func (rw *rewarder) evaluator(mode string) (*execmatch.Evaluator, error) {
	if mode == "" {
		mode = rw.cfg.ExecMatchMode
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if e, ok := rw.evals[mode]; ok {
		return e, nil
	}
	if len(rw.evals) >= 64 { // modes are a small set (and name@version spellings); refuse to grow without bound
		return nil, fmt.Errorf("too many comparison modes in use")
	}
	limits := rw.cfg.Limits
	limits.MaxBytes = rw.resultCap()
	e, err := execmatch.New(execmatch.Options{Mode: mode, Catalog: rw.catalog, Limits: limits, CacheGold: true,
		GoldCacheBytes: rw.cfg.GoldCacheBytes, SharedCache: rw.cfg.SharedCache, CacheEpoch: rw.cfg.CacheEpoch, OnSharedCacheError: func(err error) {
			rw.cfg.Logger.Warn("the shared cache failed; gold results are kept in this process only", "err", err)
		}})
	if err != nil {
		return nil, err
	}
	rw.evals[mode] = e
	return e, nil
}

// resultCap is the byte cap of one result of a pair: --max-result-bytes, lowered so
// that the gold and generated results of every pair in flight fit in the server's
// results budget (a batch of hostile pairs took 0.8 GB before).
func (rw *rewarder) resultCap() int64 {
	capped := rw.cfg.Limits.WithDefaults().MaxBytes
	return min(capped, max(1<<20, rw.cfg.MaxRunBytes/int64(2*cap(rw.inflight))))
}

// slot bounds the pairs running at once on one database.
func (rw *rewarder) slot(db string) chan struct{} {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	s, ok := rw.slots[db]
	if !ok {
		n := rw.cfg.ExecMatchPerDB
		if n <= 0 {
			n = 2 * runtime.GOMAXPROCS(0)
		}
		s = make(chan struct{}, n)
		rw.slots[db] = s
	}
	return s
}

func (s *Server) handleExecMatch(w http.ResponseWriter, r *http.Request) {
	var req ExecMatchRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	max := s.cfg.MaxPairs
	if max <= 0 {
		max = DefaultMaxPairs
	}
	if len(req.Pairs) > max {
		s.fail(w, r, &qeval.Error{Code: qeval.CodeTooLarge, Op: "read pairs",
			Message: fmt.Sprintf("the batch has %d pairs, the limit is %d", len(req.Pairs), max), Hint: "split it into smaller batches"})
		return
	}
	if req.Results {
		for i := range req.Pairs {
			req.Pairs[i].Results = true
		}
	}
	writeJSON(w, http.StatusOK, ExecMatchResponse{Results: s.rewarder.batch(r.Context(), req.Pairs)})
}

func (s *Server) handleExecMatchStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.rewarder.stats())
}

// ExecMatchFlush is the answer of POST /api/exec-match/flush.
type ExecMatchFlush struct {
	// SharedDeleted counts the gold results deleted from the shared cache.
	SharedDeleted int64 `json:"shared_deleted"`
}

// handleExecMatchFlush forgets every gold result: those in memory and those in the
// shared cache (for every replica; each keeps its own in memory until flushed too).
func (s *Server) handleExecMatchFlush(w http.ResponseWriter, r *http.Request) {
	n, err := s.rewarder.flush(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.Info("gold results flushed", "shared_deleted", n)
	writeJSON(w, http.StatusOK, ExecMatchFlush{SharedDeleted: n})
}

// batch answers every pair; one bad pair never fails the others.
func (rw *rewarder) batch(ctx context.Context, pairs []ExecMatchPair) []ExecMatchResult {
	start := time.Now()
	out := make([]ExecMatchResult, len(pairs))
	g := new(errgroup.Group)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range pairs {
		g.Go(func() error {
			out[i] = rw.pair(ctx, i, pairs[i])
			return nil
		})
	}
	g.Wait()
	rw.batches.Add(1)
	rw.pairs.Add(int64(len(pairs)))
	rw.outMu.Lock()
	for _, res := range out {
		rw.outcomes[res.Outcome]++
		rw.predMS.add(res.PredMS)
	}
	rw.batchMS.add(float64(time.Since(start)) / float64(time.Millisecond))
	rw.outMu.Unlock()
	return out
}

func (rw *rewarder) pair(ctx context.Context, i int, p ExecMatchPair) (res ExecMatchResult) {
	defer func() {
		// a panic is a bug; it costs this pair only
		if x := recover(); x != nil {
			rw.cfg.Logger.Error("exec-match pair panicked", "pair", i, "panic", x)
			res = invalidPair(fmt.Sprintf("pairs[%d]: internal error: %v", i, x))
		}
	}()
	switch {
	case strings.TrimSpace(p.DB) == "":
		return invalidPair(fmt.Sprintf("pairs[%d].db: no database named", i))
	case !rw.catalog.Known(p.DB):
		return invalidPair(fmt.Sprintf("pairs[%d].db: %s", i, qeval.ErrorMessage(unknownDB(rw.catalog, p.DB))))
	case strings.TrimSpace(p.Gold) == "":
		return invalidPair(fmt.Sprintf("pairs[%d].gold: empty", i))
	case p.TimeoutMS < 0:
		return invalidPair(fmt.Sprintf("pairs[%d].timeout_ms: negative", i))
	}
	if strings.TrimSpace(p.Pred) == "" {
		msg := fmt.Sprintf("pairs[%d].pred: empty", i)
		return ExecMatchResult{Outcome: qeval.OutcomePredError, Error: &msg, Partial: partial(p, 0)}
	}
	if err := qeval.CheckQuerySize(p.Gold, 0, 0); err != nil {
		return invalidPair(fmt.Sprintf("pairs[%d].gold: %s", i, qeval.ErrorMessage(err)))
	}
	var spec *qeval.StatefulSpec
	if p.StatefulSpec.IsSet() {
		if bad := p.StatefulSpec.Problems(); len(bad) > 0 {
			return invalidPair(fmt.Sprintf("pairs[%d].%s", i, strings.Join(bad, "; ")))
		}
		spec = &p.StatefulSpec
	}
	e, err := rw.evaluator(p.Mode)
	if err != nil {
		return invalidPair(fmt.Sprintf("pairs[%d].mode: %s", i, qeval.ErrorMessage(err)))
	}
	for _, slot := range []chan struct{}{rw.inflight, rw.slot(p.DB)} {
		select {
		case slot <- struct{}{}:
			defer func() { <-slot }()
		case <-ctx.Done():
			msg := "the request ended before the pair ran"
			return ExecMatchResult{Outcome: qeval.OutcomeCanceled, Error: &msg}
		}
	}
	limit := rw.cfg.Limits.WithDefaults().Timeout
	timeout := limit
	if p.TimeoutMS > 0 && time.Duration(p.TimeoutMS)*time.Millisecond < limit {
		timeout = time.Duration(p.TimeoutMS) * time.Millisecond
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v := e.Match(pctx, qeval.Item{Database: p.DB, Gold: p.Gold, Pred: p.Pred, Stateful: spec})
	if v.Outcome == qeval.OutcomeCanceled && errors.Is(pctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		v.Outcome, v.Error = qeval.OutcomeTimeout, fmt.Sprintf("the pair ran past its timeout of %s", timeout)
	}
	res = ExecMatchResult{Match: v.Match, Outcome: v.Outcome, Mode: v.Mode, CachedGold: v.GoldCached,
		PredMS: ms(v.PredTime), GoldMS: ms(v.GoldTime), State: v.State}
	if v.Error != "" {
		msg := rw.clientMessage(p.DB, v.Error)
		res.Error = &msg
	}
	if p.Partial && v.Outcome != qeval.OutcomeGoldError {
		score := 0.0
		switch {
		case v.Match:
			score = 1
		case v.Gold != nil && v.Pred != nil:
			score = compare.SoftF1(v.Gold, v.Pred)
		}
		res.Partial = &score
	}
	if p.Results {
		res.PredResults, res.GoldResults = resultRows(v.Pred), resultRows(v.Gold)
	}
	return res
}

func partial(p ExecMatchPair, score float64) *float64 {
	if !p.Partial {
		return nil
	}
	return &score
}

// clientMessage is an error about a pair on database db as a client may read it: the
// database's file and folder, the server's home, data and temporary folders are
// server paths (issue 39: a DuckDB file's absolute path reached the client); the file
// is named by the database's name, the folders by a word.
func (rw *rewarder) clientMessage(db, msg string) string {
	type repl struct{ old, new string }
	var rs []repl
	add := func(old, new string) {
		if old = strings.TrimRight(old, string(filepath.Separator)); len(old) > 1 {
			rs = append(rs, repl{old, new})
			if abs, err := filepath.Abs(old); err == nil && abs != old {
				rs = append(rs, repl{abs, new})
			}
		}
	}
	if target := rw.catalog.Connections[db]; target != "" {
		add(target, db)
		if e := registry.EngineFor(target); e.File != nil {
			add(e.File(target), db)
			add(filepath.Dir(e.File(target)), "<databases>")
		} else {
			add(registry.EngineFor(target).Show(target), db)
		}
	}
	add(rw.cfg.DataDir, "<data>")
	if home, err := os.UserHomeDir(); err == nil {
		add(home, "~")
	}
	add(os.TempDir(), "<tmp>")
	// longest first: a file before its folder, a folder before the home it is in
	sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].old) > len(rs[j].old) })
	for _, r := range rs {
		msg = strings.ReplaceAll(msg, r.old, r.new)
	}
	return msg
}

// invalidPair is a pair that was not run because a field of it is wrong.
func invalidPair(msg string) ExecMatchResult {
	return ExecMatchResult{Outcome: qeval.OutcomeSkipped, Error: &msg}
}

// unknownDB names the database asked for and some of those configured (a --db-root
// can hold hundreds).
func unknownDB(c *registry.Catalog, name string) error {
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return fmt.Errorf("%q is a path; name a database by a name the server was started with", name)
	}
	names := c.Names()
	const shown = 12
	known := strings.Join(names[:min(shown, len(names))], ", ")
	if len(names) > shown {
		known += fmt.Sprintf(", … (%d in all)", len(names))
	}
	if len(names) == 0 {
		known = "none: start the server with --db NAME=TARGET or --db-root DIR"
	}
	return fmt.Errorf("unknown database %q (known: %s)", name, known)
}

// flush forgets the gold results of every evaluator and deletes those of the shared
// cache.
func (rw *rewarder) flush(ctx context.Context) (int64, error) {
	rw.mu.Lock()
	for _, e := range rw.evals {
		e.ForgetGoldResults()
	}
	rw.mu.Unlock()
	if rw.cfg.SharedCache == nil {
		return 0, nil
	}
	n, err := execmatch.FlushGoldResults(ctx, rw.cfg.SharedCache)
	if err != nil {
		return n, &qeval.Error{Code: qeval.CodeUnavailable, Op: "flush the shared cache", Message: qeval.ErrorMessage(err), Err: err}
	}
	return n, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (rw *rewarder) stats() ExecMatchStats {
	st := ExecMatchStats{Batches: rw.batches.Load(), Pairs: rw.pairs.Load(), Outcomes: map[qeval.Outcome]int64{},
		Databases: len(rw.catalog.Connections)}
	rw.outMu.Lock()
	for k, v := range rw.outcomes {
		st.Outcomes[k] = v
	}
	st.BatchMS, st.PredMS = rw.batchMS.quantiles(), rw.predMS.quantiles()
	rw.outMu.Unlock()
	if r, ok := rw.cfg.SharedCache.(interface{ Rejected() int64 }); ok {
		st.SharedRejected = r.Rejected()
	}
	rw.mu.Lock()
	for _, e := range rw.evals {
		g := e.GoldCacheStats()
		st.GoldCache.Hits += g.Hits
		st.GoldCache.Misses += g.Misses
		st.GoldCache.SharedErrors += g.SharedErrors
	}
	rw.mu.Unlock()
	return st
}

// ring keeps the last n samples.
type ring struct {
	buf  []float64
	next int
	full bool
}

func newRing(n int) ring { return ring{buf: make([]float64, n)} }

func (r *ring) add(x float64) {
	r.buf[r.next] = x
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

func (r *ring) quantiles() Quantiles {
	n := r.next
	if r.full {
		n = len(r.buf)
	}
	if n == 0 {
		return Quantiles{}
	}
	s := slices.Clone(r.buf[:n])
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(n-1, int(q*float64(n)))] }
	return Quantiles{N: n, P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: s[n-1]}
}
