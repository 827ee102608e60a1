package execmatch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/sqlite"
)

// DefaultMaxCandidates caps the predicted queries tried with PlugValue.
const DefaultMaxCandidates = 10_000

// Options configure an Evaluator. The zero value is the official Spider semantics on
// SQLite with the default limits.
type Options struct {
	// Mode is a comparison mode name or name@version; "" means spider-ts.
	Mode string
	// KeepDistinct keeps DISTINCT in both queries (spider-ts only).
	KeepDistinct bool
	// PlugValue also tries the prediction with every assignment of the gold query's
	// literal values to the prediction's literals, up to MaxCandidates queries.
	PlugValue     bool
	MaxCandidates int
	// Limits bound each query (timeout, rows, bytes).
	Limits qeval.Limits
	// Open opens a database file; nil means the embedded SQLite executor.
	Open qeval.Opener
	// Conns is the number of connections kept per database file (default: GOMAXPROCS).
	Conns int
	// DiscardResults leaves Verdict.Gold and Verdict.Pred nil, for batches that need
	// only the verdicts (it keeps a large run's memory flat).
	DiscardResults bool
	// WholeSource opens a database path as one source even when it is a folder (a
	// folder of data files for the KQL engine), instead of as a test suite of .sqlite
	// files.
	WholeSource bool
	// Named reports whether a database is a configured connection name (a DSN behind
	// it), which Open takes as it is rather than as a path on disk.
	Named func(database string) bool
}

// DefaultOpener opens a database file with the embedded SQLite executor.
func DefaultOpener(path string, l qeval.Limits) (qeval.Executor, error) { return sqlite.Open(path, l) }

// Evaluator judges items, keeping each database open once opened. It is safe for
// concurrent use. Close it when done.
type Evaluator struct {
	opt  Options
	mode compare.Mode

	mu    sync.Mutex
	execs map[string]*opened
	dirs  map[string]dirResult
}

type opened struct {
	once sync.Once
	exec qeval.Executor
	err  error
}

type dirResult struct {
	files []string
	err   error
}

// New returns an Evaluator, or an error naming the known modes when Mode is unknown.
func New(opt Options) (*Evaluator, error) {
	name := opt.Mode
	if name == "" {
		name = compare.Default.Name
	}
	mode, err := compare.Lookup(name)
	if err != nil {
		return nil, err
	}
	if opt.MaxCandidates <= 0 {
		opt.MaxCandidates = DefaultMaxCandidates
	}
	opt.Limits = opt.Limits.WithDefaults()
	if opt.Conns <= 0 {
		opt.Conns = runtime.GOMAXPROCS(0)
	}
	if opt.Open == nil {
		conns := opt.Conns
		opt.Open = func(path string, l qeval.Limits) (qeval.Executor, error) {
			return sqlite.OpenConns(path, l, conns)
		}
	}

	return &Evaluator{opt: opt, mode: mode, execs: map[string]*opened{}, dirs: map[string]dirResult{}}, nil
}

// Mode returns the comparison mode in use.
func (e *Evaluator) Mode() compare.Mode { return e.mode }

// Close closes every database opened.
func (e *Evaluator) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var first error
	for _, o := range e.execs {
		if o.exec != nil {
			if err := o.exec.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	e.execs = map[string]*opened{}
	return first
}

// Match judges one generated query against a gold query on a database (a file or a
// test-suite folder), opening and closing what it needs.
func Match(ctx context.Context, db, pred, gold string, opt Options) qeval.Verdict {
	e, err := New(opt)
	if err != nil {
		return qeval.Verdict{Outcome: qeval.OutcomeGoldError, Error: err.Error(), Mode: opt.Mode}
	}
	defer e.Close()
	return e.Match(ctx, qeval.Item{Database: db, Pred: pred, Gold: gold})
}

// files returns the database files of a path: the file itself, or the files of a folder
// whose names contain ".sqlite", sorted.
func (e *Evaluator) files(path string) ([]string, error) {
	e.mu.Lock()
	if r, ok := e.dirs[path]; ok {
		e.mu.Unlock()
		return r.files, r.err
	}
	e.mu.Unlock()
	r := dirResult{}
	if e.opt.Named != nil && e.opt.Named(path) {
		r.files = []string{path}
		e.mu.Lock()
		e.dirs[path] = r
		e.mu.Unlock()
		return r.files, nil
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		r.err = &qeval.Error{Code: qeval.CodeNotFound, Op: "open database " + path, Message: "no such file or folder", Err: err}
	case !st.IsDir() || e.opt.WholeSource:
		r.files = []string{path}
	default:
		entries, err := os.ReadDir(path)
		if err != nil {
			r.err = &qeval.Error{Code: qeval.CodeNotFound, Op: "open database folder " + path, Message: err.Error(), Err: err}
			break
		}
		for _, en := range entries {
			if !en.IsDir() && strings.Contains(en.Name(), ".sqlite") {
				r.files = append(r.files, filepath.Join(path, en.Name()))
			}
		}
		sort.Strings(r.files)
		if len(r.files) == 0 {
			r.err = &qeval.Error{Code: qeval.CodeNotFound, Op: "open database folder " + path,
				Message: "no database files in it", Hint: "a test-suite folder holds files whose names contain .sqlite"}
		}
	}
	e.mu.Lock()
	e.dirs[path] = r
	e.mu.Unlock()
	return r.files, r.err
}

// release closes the databases of path (a file or a test-suite folder); a later item
// on them opens them again.
func (e *Evaluator) release(path string) {
	e.mu.Lock()
	files := e.dirs[path].files
	var closing []qeval.Executor
	for _, f := range files {
		if o, ok := e.execs[f]; ok {
			delete(e.execs, f)
			if o.exec != nil {
				closing = append(closing, o.exec)
			}
		}
	}
	e.mu.Unlock()
	for _, ex := range closing {
		ex.Close()
	}
}

func (e *Evaluator) executor(path string) (qeval.Executor, error) {
	e.mu.Lock()
	o, ok := e.execs[path]
	if !ok {
		o = &opened{}
		e.execs[path] = o
	}
	e.mu.Unlock()
	o.once.Do(func() { o.exec, o.err = e.opt.Open(path, e.opt.Limits) })
	return o.exec, o.err
}

// Match judges one item; see the package documentation.
func (e *Evaluator) Match(ctx context.Context, it qeval.Item) qeval.Verdict {
	v := qeval.Verdict{Mode: e.mode.ID(), Candidates: 1}
	gold, pred, ordered := e.mode.Prepare(it.Gold, it.Pred, compare.Options{KeepDistinct: e.opt.KeepDistinct})
	files, err := e.files(it.Database)
	if err != nil {
		return goldFailure(v, err)
	}
	candidates := []string{pred}
	if e.opt.PlugValue {
		more, total := PlugValues(gold, pred, e.opt.MaxCandidates)
		candidates = append(candidates, more...)
		v.Candidates = 1 + len(more)
		v.CandidateCapHit = total > e.opt.MaxCandidates
	}
	golds := make([]*qeval.ResultSet, len(files))
	var first *qeval.Verdict
	for ci, cand := range candidates {
		cv := v
		pass := true
		for fi, file := range files {
			cv.Database = file
			ex, err := e.executor(file)
			if err != nil {
				return goldFailure(cv, err)
			}
			if golds[fi] == nil {
				start := time.Now()
				rs, err := ex.Query(ctx, gold)
				v.GoldTime += time.Since(start)
				cv.GoldTime = v.GoldTime
				if err != nil {
					if qeval.IsCanceled(err) || ctx.Err() != nil {
						return canceled(cv, err)
					}
					return goldFailure(cv, err)
				}
				golds[fi] = rs
			}
			start := time.Now()
			rs, err := ex.Query(ctx, cand)
			v.PredTime += time.Since(start)
			cv.PredTime = v.PredTime
			cv.Gold = golds[fi]
			if err != nil {
				if ctx.Err() != nil {
					return canceled(cv, err)
				}
				cv.Pred = nil
				cv.Outcome, cv.Error = predFailure(err)
				pass = false
				break
			}
			cv.Pred = rs
			if !e.mode.Equal(golds[fi], rs, ordered) {
				cv.Outcome = qeval.OutcomeMismatch
				pass = false
				break
			}
		}
		if pass {
			cv.Match, cv.Outcome, cv.Error = true, qeval.OutcomeMatch, ""
			cv.Candidates = ci + 1 // the ones tried
			return e.trim(cv)
		}
		if ci == 0 {
			f := cv
			first = &f
		}
	}
	out := *first
	out.GoldTime, out.PredTime = v.GoldTime, v.PredTime
	return e.trim(out)
}

func (e *Evaluator) trim(v qeval.Verdict) qeval.Verdict {
	if e.opt.DiscardResults {
		v.Gold, v.Pred = nil, nil
	}
	return v
}

func predFailure(err error) (qeval.Outcome, string) {
	switch qeval.ErrorCode(err) {
	case qeval.CodeTimeout:
		return qeval.OutcomeTimeout, qeval.ErrorMessage(err)
	case qeval.CodeTooLarge:
		return qeval.OutcomeTooLarge, qeval.ErrorMessage(err)
	case qeval.CodeCanceled:
		return qeval.OutcomeCanceled, qeval.ErrorMessage(err)
	}
	return qeval.OutcomePredError, qeval.ErrorMessage(err)
}

func goldFailure(v qeval.Verdict, err error) qeval.Verdict {
	v.Match = false
	v.Outcome = qeval.OutcomeGoldError
	v.Error = "gold query: " + qeval.ErrorMessage(err)
	v.Gold, v.Pred = nil, nil
	return v
}

func canceled(v qeval.Verdict, err error) qeval.Verdict {
	v.Match = false
	v.Outcome = qeval.OutcomeCanceled
	v.Error = "canceled before the item finished"
	return v
}
