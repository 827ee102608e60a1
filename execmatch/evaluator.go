package execmatch

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/stateful"
)

// DefaultMaxCandidates caps the predicted queries tried with PlugValue.
const DefaultMaxCandidates = 10_000

// Options configure an Evaluator. The zero value is the default comparison mode with
// the default limits; Catalog must be set.
type Options struct {
	// Mode is a comparison mode name or name@version; "" means qeval.DefaultMode.
	Mode string
	// KeepDistinct keeps DISTINCT in both queries (spider-ts only).
	KeepDistinct bool
	// PlugValue also tries the prediction with every assignment of the gold query's
	// literal values to the prediction's literals, up to MaxCandidates queries.
	PlugValue     bool
	MaxCandidates int
	// Limits bound each query (timeout, rows, bytes).
	Limits qeval.Limits
	// Catalog resolves an item's Database into the source its queries run on (a file,
	// a test-suite folder, a connection). registry.Catalog is the usual one.
	Catalog qeval.Catalog
	// PredCatalog, when set, resolves the database the predictions run on (the same
	// data on another engine); gold queries still run on Catalog's source. Both must
	// have the same number of files.
	PredCatalog qeval.Catalog
	// Dialect is the query language of the items: "sql" (default) or "kql".
	Dialect string
	// DiscardResults leaves Verdict.Gold and Verdict.Pred nil, for batches that need
	// only the verdicts (it keeps a large run's memory flat).
	DiscardResults bool
	// NoExplanations leaves Verdict.Explanation nil, for batches that report only
	// counts (explaining ~170 Spider mismatches is a tenth of such a run).
	NoExplanations bool
	// Now is the clock that times the queries (time.Now when nil).
	Now func() time.Time
	// CacheGold keeps each gold result, keyed by the database's content (a local file's
	// or folder's SHA-256, a server's target), the engine, CacheEpoch, the mode and the
	// query, so a gold query runs once per database version: across items, and with
	// SharedCache across runs and machines. Memory holds at most GoldCacheBytes
	// (DefaultGoldCacheBytes). A server database is known by its target alone: when its
	// data changes, a new CacheEpoch misses every entry kept before.
	CacheGold      bool
	GoldCacheBytes int64
	CacheEpoch     string
	// SharedCache, with CacheGold, is where gold results are also kept and looked up
	// (the SQLite cache file or Redis). OnSharedCacheError is told of its first failure;
	// the evaluation goes on with the memory cache.
	SharedCache        qeval.Cache
	OnSharedCacheError func(error)
}

// Evaluator judges items, keeping each database open once opened. It is safe for
// concurrent use. Close it when done.
type Evaluator struct {
	opt  Options
	mode compare.Mode

	mu    sync.Mutex
	execs map[execKey]*opened

	gold *goldCache // nil unless Options.CacheGold
}

func (e *Evaluator) now() time.Time {
	if e.opt.Now != nil {
		return e.opt.Now()
	}
	return time.Now()
}

// execKey names one opened database: the engine and the file or DSN.
type execKey struct{ engine, file string }

// opened is one database opened, for one version of a local file: when the file
// changes on disk the next item opens it again (an open SQLite pool or DuckDB instance
// reads the file it opened, not the one renamed over it), and this one is closed once
// the items using it are done.
type opened struct {
	once sync.Once
	exec qeval.Executor
	err  error

	ident   fileID // the local file's when opened; zero for a server
	users   int    // items holding it (Evaluator.mu)
	retired bool   // no longer the current one: closed when its last user lets go (Evaluator.mu)
}

func (o *opened) close() error {
	if o.exec == nil {
		return nil
	}
	return o.exec.Close()
}

// New returns an Evaluator, or an error naming the known modes when Mode is unknown.
func New(opt Options) (*Evaluator, error) {
	name := opt.Mode
	if name == "" {
		name = qeval.DefaultMode
	}
	mode, err := compare.Lookup(name)
	if err != nil {
		return nil, err
	}
	if opt.Catalog == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "execmatch", Message: "no catalog to resolve databases with",
			Hint: "set Options.Catalog, e.g. &registry.Catalog{}"}
	}
	if opt.MaxCandidates <= 0 {
		opt.MaxCandidates = DefaultMaxCandidates
	}
	opt.Limits = opt.Limits.WithDefaults()
	e := &Evaluator{opt: opt, mode: mode, execs: map[execKey]*opened{}}
	if opt.CacheGold {
		e.gold = newGoldCache(opt.SharedCache, opt.GoldCacheBytes, opt.CacheEpoch, opt.OnSharedCacheError)
	}
	return e, nil
}

// GoldCacheStats counts the gold results the cache answered and those it did not
// (zero without Options.CacheGold).
func (e *Evaluator) GoldCacheStats() GoldCacheStats {
	if e.gold == nil {
		return GoldCacheStats{}
	}
	return e.gold.stats()
}

// Mode returns the comparison mode in use.
func (e *Evaluator) Mode() compare.Mode { return e.mode }

// Close closes every database opened.
func (e *Evaluator) Close() error {
	e.mu.Lock()
	execs := e.execs
	e.execs = map[execKey]*opened{}
	e.mu.Unlock()
	var first error
	for _, o := range execs {
		if err := o.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Match judges one generated query against a gold query on a database (a name the
// catalog resolves: a file, a test-suite folder, a connection), opening and closing
// what it needs.
func Match(ctx context.Context, db, pred, gold string, opt Options) qeval.Verdict {
	e, err := New(opt)
	if err != nil {
		return qeval.Verdict{Outcome: qeval.OutcomeGoldError, Error: qeval.ErrorMessage(err), Mode: opt.Mode}
	}
	defer e.Close()
	return e.Match(ctx, qeval.Item{Database: db, Pred: pred, Gold: gold})
}

func (e *Evaluator) dialect() string {
	if e.opt.Dialect == "" {
		return "sql"
	}
	return e.opt.Dialect
}

// sources resolves the gold and prediction sources of a database name.
func (e *Evaluator) sources(ctx context.Context, db string) (gold, pred *qeval.Source, err error) {
	gold, err = e.opt.Catalog.Resolve(ctx, db, e.dialect())
	if err != nil {
		return nil, nil, &qeval.Error{Code: qeval.ErrorCode(err), Op: "open database " + db, Message: qeval.ErrorMessage(err), Hint: qeval.ErrorHint(err), Err: err}
	}
	pred = gold
	if e.opt.PredCatalog != nil {
		if pred, err = e.opt.PredCatalog.Resolve(ctx, db, e.dialect()); err != nil {
			return nil, nil, &qeval.Error{Code: qeval.ErrorCode(err), Op: "open prediction database " + db, Message: qeval.ErrorMessage(err), Err: err}
		}
		if len(pred.Files) != len(gold.Files) {
			return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + db,
				Message: fmt.Sprintf("the prediction engine has %d databases for it and the gold engine %d", len(pred.Files), len(gold.Files))}
		}
	}
	return gold, pred, nil
}

// release closes the databases of a name (each once the items using it are done); a
// later item on it opens them again.
func (e *Evaluator) release(ctx context.Context, db string) {
	gold, pred, err := e.sources(ctx, db)
	if err != nil {
		return
	}
	var closing []*opened
	e.mu.Lock()
	for _, src := range []*qeval.Source{gold, pred} {
		for _, f := range src.Files {
			k := execKey{src.Engine, f}
			if o, ok := e.execs[k]; ok {
				delete(e.execs, k)
				if o.retired = true; o.users == 0 {
					closing = append(closing, o)
				}
			}
		}
	}
	e.mu.Unlock()
	for _, o := range closing {
		o.close()
	}
}

// Describe returns the source a database name resolves to and the executor of its
// first file, the one the evaluator runs gold queries on (opened once and shared; the
// evaluator closes it). Callers read its schema or ask it which tables a query reads.
func (e *Evaluator) Describe(ctx context.Context, db string) (*qeval.Source, qeval.Executor, error) {
	src, _, err := e.sources(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	o, err := e.acquire(src, 0)
	if err != nil {
		return nil, nil, err
	}
	e.letGo(o)
	return src, o.exec, o.err
}

// acquire returns file i of a source opened (once for each version of a local file),
// counting the caller among its users until letGo.
func (e *Evaluator) acquire(src *qeval.Source, i int) (*opened, error) {
	file := src.Files[i]
	var ident fileID
	if src.Local != nil {
		id, err := identity(src.Local(file))
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open database " + src.Local(file), Message: err.Error(), Err: err}
		}
		ident = id
	}
	k := execKey{src.Engine, file}
	var stale *opened
	e.mu.Lock()
	o, ok := e.execs[k]
	if !ok || o.ident != ident {
		if ok {
			if o.retired = true; o.users == 0 {
				stale = o
			}
		}
		o = &opened{ident: ident}
		e.execs[k] = o
	}
	o.users++
	e.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	o.once.Do(func() {
		ex, err := src.Open(file, e.opt.Limits)
		if err != nil {
			o.err = err
			return // never keep an executor beside an error: it may be a typed nil
		}
		o.exec = ex
	})
	return o, nil
}

// letGo ends a use of o: a retired one closes after its last.
func (e *Evaluator) letGo(o *opened) {
	e.mu.Lock()
	o.users--
	done := o.retired && o.users == 0
	e.mu.Unlock()
	if done {
		o.close()
	}
}

// held are the databases one item holds, each acquired once, let go when it is done.
type held struct {
	e    *Evaluator
	open map[execKey]*opened
}

func (h *held) executor(src *qeval.Source, i int) (qeval.Executor, fileID, error) {
	k := execKey{src.Engine, src.Files[i]}
	o, ok := h.open[k]
	if !ok {
		var err error
		if o, err = h.e.acquire(src, i); err != nil {
			return nil, fileID{}, err
		}
		h.open[k] = o
	}
	return o.exec, o.ident, o.err
}

func (h *held) letGo() {
	for _, o := range h.open {
		h.e.letGo(o)
	}
}

// unchanged reports whether file i of a local source is still the version ident.
func unchanged(src *qeval.Source, i int, ident fileID) bool {
	if src.Local == nil {
		return true
	}
	now, err := identity(src.Local(src.Files[i]))
	return err == nil && now == ident
}

// Match judges one item; see the package documentation.
func (e *Evaluator) Match(ctx context.Context, it qeval.Item) qeval.Verdict {
	if it.Stateful != nil {
		return e.matchStateful(ctx, it)
	}
	v := qeval.Verdict{Mode: e.mode.ID(), Candidates: 1}
	gold, pred, ordered := e.mode.Prepare(it.Gold, it.Pred, compare.Options{KeepDistinct: e.opt.KeepDistinct})
	bounds := qeval.QueryBounds{}
	if e.dialect() == "kql" {
		bounds.MaxOperators = -1
	}
	if err := bounds.Check(it.Pred); err != nil {
		// bounded before any engine or parser sees it (issue 21)
		v.Outcome, v.Error = qeval.OutcomePredError, qeval.ErrorMessage(err)
		return v
	}
	goldSrc, predSrc, failed, msg := e.itemSources(ctx, it)
	if failed != "" {
		v.Outcome, v.Error = failed, msg
		return v
	}
	files := goldSrc.Files
	// on a test suite that holds its original database (compared first), the verdict
	// of that database alone is kept beside the suite's
	original := false
	if len(files) > 1 {
		v.Databases = len(files)
		original = qeval.IsOriginalDatabase(files[0])
	}
	originalMatch := false
	candidates := []string{pred}
	if e.opt.PlugValue {
		more, total := PlugValues(gold, pred, e.opt.MaxCandidates)
		candidates = append(candidates, more...)
		v.Candidates = 1 + len(more)
		v.CandidateCapHit = total > e.opt.MaxCandidates
	}
	golds := goldResults{rs: make([]*qeval.ResultSet, len(files))}
	h := &held{e: e, open: map[execKey]*opened{}}
	defer h.letGo()
	m := itemMatch{e: e, goldSrc: goldSrc, predSrc: predSrc, gold: gold, ordered: ordered, originalMatch: &originalMatch}
	var first *qeval.Verdict
	for ci, cand := range candidates {
		cv, pass, final := m.judge(ctx, h, &golds, &v, ci, cand)
		if final {
			return cv
		}
		if original {
			cv.OriginalMatch = &originalMatch
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
	if original {
		out.OriginalMatch = &originalMatch // another candidate may have matched there
	}
	return e.trim(out)
}

// itemSources resolves the sources an item's queries run on: the gold's from its
// Database, the prediction's from its PredDatabase when that names another one. When
// one cannot be resolved it returns the outcome and the message the item fails with.
func (e *Evaluator) itemSources(ctx context.Context, it qeval.Item) (goldSrc, predSrc *qeval.Source, failed qeval.Outcome, msg string) {
	goldSrc, predSrc, err := e.sources(ctx, it.Database)
	if err != nil {
		return nil, nil, qeval.OutcomeGoldError, qeval.ErrorMessage(err)
	}
	if it.PredDatabase != "" && it.PredDatabase != it.Database {
		if predSrc, err = e.opt.Catalog.Resolve(ctx, it.PredDatabase, e.dialect()); err != nil {
			return nil, nil, qeval.OutcomePredError, "open the prediction database " + it.PredDatabase + ": " + qeval.ErrorMessage(err)
		}
		if len(predSrc.Files) != len(goldSrc.Files) {
			return nil, nil, qeval.OutcomeGoldError, fmt.Sprintf("the prediction database %s has %d databases and the gold's %d", predSrc.Display, len(predSrc.Files), len(goldSrc.Files))
		}
	}
	return goldSrc, predSrc, "", ""
}

// itemMatch is one item being judged: where its queries run and how they compare.
// The databases the item holds and its gold results are passed beside it rather than
// kept in it: the compiler would move them to the heap with it, since its Evaluator
// and sources escape.
type itemMatch struct {
	e                *Evaluator
	goldSrc, predSrc *qeval.Source
	gold             string
	ordered          bool
	originalMatch    *bool // whether a candidate matched on the suite's original database
}

// goldResults are an item's gold results, one for each file of its gold source,
// fetched once for all its candidates.
type goldResults struct {
	rs     []*qeval.ResultSet
	cached int // how many came from the gold cache
}

// judge runs candidate ci on each file of the suite in turn, against the gold result
// there, until one differs or fails. It starts from the item's verdict v and adds the
// time its queries take to v's. It returns the candidate's verdict, whether it matched
// on every file, and whether that verdict ends the item at once (a gold query failed,
// a database did not open, or the item was canceled).
func (m *itemMatch) judge(ctx context.Context, h *held, golds *goldResults, v *qeval.Verdict, ci int, cand string) (cv qeval.Verdict, pass, final bool) {
	e := m.e
	cv = *v
	for fi, file := range m.goldSrc.Files {
		cv.Database = file
		ex, ident, err := h.executor(m.goldSrc, fi)
		if err != nil {
			return goldFailure(cv, err), false, true
		}
		pex := ex
		if m.predSrc != m.goldSrc {
			if pex, _, err = h.executor(m.predSrc, fi); err != nil {
				cv.Outcome, cv.Error = qeval.OutcomePredError, "open the prediction database: "+qeval.ErrorMessage(err)
				cv.Gold, cv.Pred = nil, nil
				return e.trim(cv), false, true
			}
		}
		if golds.rs[fi] == nil {
			if err := m.fetchGold(ctx, golds, v, &cv, ex, fi, ident); err != nil {
				if qeval.IsCanceled(err) || ctx.Err() != nil {
					return canceled(cv, err), false, true
				}
				return goldFailure(cv, err), false, true
			}
		}
		cv.GoldCached = golds.cached == fi+1 // every gold result so far came from the cache
		start := e.now()
		rs, err := pex.Query(ctx, cand)
		v.PredTime += e.now().Sub(start)
		cv.PredTime = v.PredTime
		cv.Gold = golds.rs[fi]
		if err != nil {
			if ctx.Err() != nil {
				return canceled(cv, err), false, true
			}
			cv.Pred = nil
			cv.Outcome, cv.Error = predFailure(err)
			return cv, false, false
		}
		cv.Pred = rs
		g := golds.rs[fi]
		if m.goldSrc.Engine != m.predSrc.Engine {
			g, rs = compare.Portable(g), compare.Portable(rs)
		}
		if !e.mode.Equal(g, rs, m.ordered) {
			cv.Outcome = qeval.OutcomeMismatch
			if ci == 0 && !e.opt.NoExplanations {
				cv.Explanation = m.explain(g, rs, file)
			}
			return cv, false, false
		}
		if fi == 0 {
			*m.originalMatch = true
		}
	}
	return cv, true, false
}

// fetchGold sets the gold result on file fi from the gold cache when it holds it, or
// else by running the gold query on ex, whose time it adds to the item's verdict v and
// sets on the candidate's cv. It keeps a result it ran in the cache when the file is
// still the version ident. It returns the gold query's error.
func (m *itemMatch) fetchGold(ctx context.Context, golds *goldResults, v, cv *qeval.Verdict, ex qeval.Executor, fi int, ident fileID) error {
	e := m.e
	var goldKey string
	if e.gold != nil {
		if k, err := e.gold.key(m.goldSrc, m.goldSrc.Files[fi], ident, e.mode.ID(), m.gold); err == nil {
			goldKey = k
			if rs, ok := e.gold.get(ctx, k); ok {
				golds.rs[fi] = rs
				golds.cached++
				return nil
			}
		}
	}
	start := e.now()
	rs, err := ex.Query(ctx, m.gold)
	v.GoldTime += e.now().Sub(start)
	cv.GoldTime = v.GoldTime
	if err != nil {
		return err
	}
	golds.rs[fi] = rs
	if goldKey != "" && unchanged(m.goldSrc, fi, ident) { // the result is of the version the key names
		e.gold.put(ctx, goldKey, rs)
	}
	return nil
}

// explain says how a candidate's result differs from the gold one on a file; on a
// test suite it names the file.
func (m *itemMatch) explain(gold, pred *qeval.ResultSet, file string) *qeval.Explanation {
	x := compare.Explain(m.e.mode, gold, pred, m.ordered)
	if len(m.goldSrc.Files) > 1 {
		x.Database = filepath.Base(file) // the file of the suite, not where it lives
	}
	return &x
}

func (e *Evaluator) trim(v qeval.Verdict) qeval.Verdict {
	if e.opt.DiscardResults {
		v.Gold, v.Pred = nil, nil
	}
	return v
}

func predFailure(err error) (qeval.Outcome, string) {
	return qeval.FailedOutcome(err, qeval.OutcomePredError), qeval.ErrorMessage(err)
}

func goldFailure(v qeval.Verdict, err error) qeval.Verdict {
	v.Match = false
	v.Outcome = qeval.FailedOutcome(err, qeval.OutcomeGoldError)
	if v.Outcome != qeval.OutcomeUnscorable {
		v.Outcome = qeval.OutcomeGoldError // a gold that timed out is the gold's failure
	}
	v.Error = "gold query: " + qeval.ErrorMessage(err)
	v.Gold, v.Pred = nil, nil
	return v
}

func canceled(v qeval.Verdict, err error) qeval.Verdict {
	v.Match = false
	v.Outcome = qeval.OutcomeCanceled
	v.Error = "canceled before the item finished"
	v.Gold, v.Pred = nil, nil // an earlier file's results: the item was not judged
	return v
}

// matchStateful judges a stateful item: each answer in its own copy of the database
// (stateful.Match), never on the source the evaluator keeps open.
func (e *Evaluator) matchStateful(ctx context.Context, it qeval.Item) qeval.Verdict {
	goldSrc, predSrc, err := e.sources(ctx, it.Database)
	if err != nil {
		return qeval.Verdict{Mode: e.mode.ID(), Outcome: qeval.OutcomeGoldError, Error: qeval.ErrorMessage(err)}
	}
	if it.PredDatabase != "" && it.PredDatabase != it.Database {
		if predSrc, err = e.opt.Catalog.Resolve(ctx, it.PredDatabase, e.dialect()); err != nil {
			return qeval.Verdict{Mode: e.mode.ID(), Outcome: qeval.OutcomePredError, Error: "open the prediction database " + it.PredDatabase + ": " + qeval.ErrorMessage(err)}
		}
	}
	v := stateful.Match(ctx, *it.Stateful, it.Gold, it.Pred, goldSrc, predSrc, stateful.Options{Mode: e.mode, Limits: e.opt.Limits,
		NoExplanations: e.opt.NoExplanations, Now: e.opt.Now})
	return e.trim(v)
}
