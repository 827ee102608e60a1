package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/errclass"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/metric"
)

// Config is everything a run needs besides the suite. Zero fields take defaults.
type Config struct {
	// Catalog resolves the databases the suite names (required): files, test-suite
	// folders, configured connections. The runner never interprets a name itself.
	Catalog qeval.Catalog
	// Target produces generated queries; nil reads them from the cases (Inline).
	Target Target
	// Mode overrides the suite's comparison mode.
	Mode string
	// Threshold and Weights override the suite's.
	Threshold *float64
	Weights   map[string]float64
	// Verifier checks each match beyond its database when the suite says verify: true
	// (nil: such a suite's matches are unverified, and the run says so).
	Verifier qeval.Verifier
	// Malloy compiles the queries of a Malloy suite (dialect: malloy) into SQL for its
	// model's connection (malloy.Compiler); nil makes every Malloy case unscorable,
	// saying so.
	Malloy Compiler
	// Judge answers the judge-based metrics; nil skips them with JudgeSkipped (or
	// metric.NoJudgeReason).
	Judge        qeval.Judge
	JudgeInfo    *qeval.JudgeInfo
	JudgeSkipped string
	// JudgeStats, when set, is read at the end for the judge's usage.
	JudgeStats func() qeval.JudgeStats
	// Concurrency bounds the cases run at once (the suite's, else GOMAXPROCS).
	Concurrency int
	// CaseTimeout bounds one case (the suite's timeout × 4, else 2 minutes).
	CaseTimeout time.Duration
	// QueryTimeout bounds each query (the suite's timeout, else qeval.DefaultTimeout).
	QueryTimeout time.Duration
	// JudgeOnExecMatch asks the judge about cases whose execution matched.
	JudgeOnExecMatch bool
	// MaxResultBytes caps the bytes one query may fetch (qeval.DefaultMaxBytes when 0);
	// a bigger result is too_large.
	MaxResultBytes int64
	// MaxRunBytes bounds the results the whole run holds at once (DefaultMaxRunBytes
	// when 0): each of the Concurrency cases in flight holds a gold and a generated
	// result, so one result may take at most MaxRunBytes / (2 × Concurrency), and
	// memory follows the concurrency, never the number or the size of hostile queries.
	MaxRunBytes int64
	// GoldCache, when set, keeps gold results keyed by database content, engine, mode
	// and query (the local cache file or Redis): a second run on the same databases
	// executes only the generated queries. A server database is known by its target
	// alone: GoldCacheEpoch, mixed into every key, misses the entries kept under another
	// (after its data changed).
	GoldCache      qeval.Cache
	GoldCacheEpoch string
	// MaxResultRows is how many rows results_match compares (metric.DefaultMaxRows).
	MaxResultRows int
	// Done holds cases already finished (from a results file): they are not run again
	// and their results are kept.
	Done map[string]qeval.CaseResult
	// Store, when set, receives each finished case in full; the run summarizes it and
	// keeps only its id, status, score and time, and the report's Store reads the
	// cases back (a run of 200,000 cases then holds a few numbers per case, not their
	// results). A case the store refuses is kept whole.
	Store CaseStore
	// OnCase is called after each case finishes, from the worker goroutines; it must
	// not block for long.
	OnCase func(r qeval.CaseResult)
	// Score, when set, scores each case in place of the composite: a benchmark's
	// official verdict (qeval.BenchmarkRun.Score). The run's catalog, target, judge and
	// metrics are then unused; concurrency, the case deadline, resume, the store and
	// OnCase work as for any suite.
	Score func(ctx context.Context, c qeval.Case) qeval.CaseResult
	// Version is the qeval version recorded in the report.
	Version string
	Now     func() time.Time
	Logger  *slog.Logger
}

// errStopWalk stops the walk over the suite's cases when the run is canceled.
var errStopWalk = errors.New("run canceled")

// Run runs every case of s and returns the report. When ctx ends, the cases not
// finished are left out, Interrupted is set, and the report covers what finished.
func Run(ctx context.Context, s *qeval.Suite, cfg Config) (*qeval.Report, error) {
	r, err := newRun(s, cfg)
	if err != nil {
		return nil, err
	}
	if r.eval != nil {
		defer r.eval.Close()
	}
	started := r.now()
	col := newCollector(s.NumCases(), r.threshold)
	g := new(errgroup.Group)
	g.SetLimit(r.concurrency)
	// a streamed suite is read as the cases are started: g.Go waits for a free slot,
	// so the cases held are the ones in flight
	walkErr := s.EachCase(func(i int, c qeval.Case) error {
		if done, ok := cfg.Done[c.ID]; ok {
			col.finish(i, done, done)
			return nil
		}
		if ctx.Err() != nil {
			return errStopWalk
		}
		g.Go(func() error {
			cr := r.runCaseSafely(ctx, c)
			if ctx.Err() != nil && cr.Status == qeval.StatusError {
				return nil // interrupted, not finished: leave it out so a resume redoes it
			}
			kept := cr
			if cfg.Store != nil {
				if err := cfg.Store.Put(cr); err != nil {
					if cfg.Logger != nil {
						cfg.Logger.Warn("store case result; it is kept in memory", "case", cr.ID, "err", err)
					}
				} else {
					kept = indexView(cr)
				}
			}
			col.finish(i, cr, kept)
			if cfg.OnCase != nil {
				cfg.OnCase(cr)
			}
			return nil
		})
		return nil
	})
	g.Wait()
	stopped := ""
	if walkErr != nil && walkErr != errStopWalk {
		// the cases that finished are kept and reported; the run says why it stopped
		stopped = qeval.ErrorMessage(walkErr)
		if cfg.Logger != nil {
			cfg.Logger.Error("read the suite's cases", "err", walkErr)
		}
	}
	rep := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion, Store: cfg.Store} // nil without a store
	rep.Cases, rep.Summary = col.close()
	finished := r.now()
	rep.Run = qeval.RunInfo{Suite: s.Name, SuitePath: s.Path, QevalVersion: cfg.Version, Dialect: dialectOf(s), StoppedBy: stopped,
		Mode: r.modeID(), Weights: r.weights, Threshold: r.threshold, Started: started, Finished: finished,
		DurationMS: float64(finished.Sub(started).Microseconds()) / 1000, Concurrency: r.concurrency,
		Interrupted: ctx.Err() != nil || stopped != "", PassRequires: s.PassRequires, FailOn: s.FailOn}
	rep.Run.Judge = r.judgeInfo()
	return rep, nil
}

// collector gathers the finished cases of a run in suite order: each is summarized
// as soon as the cases before it are (so a full result waits only for the slower
// cases in flight), and only what the report keeps of it stays, in one slice the
// report takes as it is.
type collector struct {
	mu   sync.Mutex
	kept []qeval.CaseResult
	full []*qeval.CaseResult // a finished case until it is summarized
	done []bool
	next int
	sm   *Summarizer
}

func newCollector(n int, threshold float64) *collector {
	return &collector{kept: make([]qeval.CaseResult, n), full: make([]*qeval.CaseResult, n), done: make([]bool, n), sm: NewSummarizer(threshold)}
}

// finish records case i: full is summarized, kept is what the report holds.
func (c *collector) finish(i int, full, kept qeval.CaseResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kept[i], c.full[i], c.done[i] = kept, &full, true
	for c.next < len(c.done) && c.done[c.next] {
		c.add(c.next)
		c.next++
	}
}

func (c *collector) add(i int) {
	c.sm.Add(c.full[i])
	c.full[i] = nil
}

// close summarizes what is left (the cases after one that did not finish) and returns
// the kept cases in suite order with the summary.
func (c *collector) close() ([]qeval.CaseResult, qeval.Summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cases := c.kept[:0] // finished cases move up over the ones that did not finish
	for i := range c.kept {
		if !c.done[i] {
			continue
		}
		if c.full[i] != nil {
			c.add(i)
		}
		cases = append(cases, c.kept[i])
	}
	c.kept, c.full, c.done = nil, nil, nil
	return cases, c.sm.Summary()
}

// indexView is what a report keeps in memory of a case whose full result is in a
// store: what picks and orders cases (status, score, time); Report.Case reads the rest.
func indexView(c qeval.CaseResult) qeval.CaseResult {
	return qeval.CaseResult{ID: c.ID, Status: c.Status, TotalScore: c.TotalScore, Partial: c.Partial, DurationMS: c.DurationMS, Duration: c.Duration}
}

// CaseStore is where a run puts its finished cases in full (ResultsWriter is one).
type CaseStore interface {
	qeval.CaseStore
	Put(qeval.CaseResult) error
}

type run struct {
	cfg         Config
	suite       *qeval.Suite
	dialect     string // "sql" or "kql"
	eval        *execmatch.Evaluator
	metrics     metric.Config
	weights     map[string]float64
	threshold   float64
	concurrency int
	caseTimeout time.Duration
	target      Target
	targetSlots chan struct{} // bounds concurrent target calls when the target says so
	mu          sync.Mutex
	dbs         map[string]*dbInfo // by database name
}

// DefaultMaxRunBytes bounds the results a run holds at once: with two cases in flight,
// a result may take 64 MiB, and 222 hostile queries with every report peak at 0.46 GB.
const DefaultMaxRunBytes = 256 << 20

// resultCap is the byte cap of one result: MaxResultBytes, lowered so that the results
// of every case in flight fit in MaxRunBytes.
func resultCap(cfg Config, concurrency int) int64 {
	capped := cfg.MaxResultBytes
	if capped <= 0 {
		capped = qeval.DefaultMaxBytes
	}
	run := cfg.MaxRunBytes
	if run <= 0 {
		run = DefaultMaxRunBytes
	}
	return min(capped, max(1<<20, run/int64(2*max(1, concurrency))))
}

// newRun prepares a run of suite s. With cfg.Score it sets only the concurrency and
// the case deadline; otherwise it also opens the execution evaluator and sets the
// target, the scoring and the limits, each from cfg, else the suite, else a default.
func newRun(s *qeval.Suite, cfg Config) (*run, error) {
	if cfg.Score != nil {
		r := &run{cfg: cfg, suite: s, concurrency: cfg.Concurrency, caseTimeout: cfg.CaseTimeout, dialect: dialectOf(s), threshold: qeval.DefaultThreshold}
		if r.concurrency <= 0 {
			r.concurrency = runtime.GOMAXPROCS(0)
		}
		return r, nil
	}
	if cfg.Catalog == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "run suite", Message: "no catalog to resolve databases with"}
	}
	r := &run{cfg: cfg, suite: s, target: cfg.Target, dbs: map[string]*dbInfo{}, dialect: dialectOf(s)}
	if r.target == nil {
		r.target = Inline{}
	}
	qt := time.Duration(s.Timeout)
	if cfg.QueryTimeout > 0 {
		qt = cfg.QueryTimeout
	}
	r.concurrency = cfg.Concurrency
	if r.concurrency <= 0 {
		r.concurrency = s.Concurrency
	}
	if r.concurrency <= 0 {
		r.concurrency = runtime.GOMAXPROCS(0)
	}
	ev, err := execmatch.New(r.evaluatorOptions(s, cfg, qt))
	if err != nil {
		return nil, err
	}
	r.eval = ev
	r.configureScoring(s, cfg)
	if s.Target != nil && s.Target.Concurrency > 0 {
		r.targetSlots = make(chan struct{}, s.Target.Concurrency)
	}
	r.caseTimeout = cfg.CaseTimeout
	if r.caseTimeout <= 0 {
		r.caseTimeout = 2 * time.Minute
		if qt > 0 {
			r.caseTimeout = 4 * qt
		}
	}
	return r, nil
}

// evaluatorOptions are the options of the run's execution evaluator: the comparison
// mode (the Config's, else the suite's), the query timeout qt and a result cap shared
// out among the cases in flight, the prediction database when the suite names one,
// and the gold cache when the Config has one.
func (r *run) evaluatorOptions(s *qeval.Suite, cfg Config, qt time.Duration) execmatch.Options {
	mode := s.Mode
	if cfg.Mode != "" {
		mode = cfg.Mode
	}
	evalDialect := r.dialect
	if evalDialect == qeval.DialectMalloy {
		evalDialect = "sql" // Malloy is compiled to SQL before it runs
	}
	opts := execmatch.Options{Mode: mode, Catalog: cfg.Catalog, Dialect: evalDialect, Limits: qeval.Limits{Timeout: qt, MaxBytes: resultCap(cfg, r.concurrency)}, Now: cfg.Now}
	if s.PredictionDatabase != "" {
		opts.PredCatalog = predictionCatalog{cfg.Catalog, s}
	}
	if cfg.GoldCache != nil {
		opts.CacheGold, opts.SharedCache, opts.CacheEpoch = true, cfg.GoldCache, cfg.GoldCacheEpoch
	}
	return opts
}

// configureScoring sets how the run scores its cases: the threshold and the weights
// (the Config's, else the suite's, else the defaults), what the suite's pass_requires
// asks for, the judge, and the metrics of the run's dialect.
func (r *run) configureScoring(s *qeval.Suite, cfg Config) {
	r.threshold = qeval.DefaultThreshold
	if s.Threshold != nil {
		r.threshold = *s.Threshold
	}
	if cfg.Threshold != nil {
		r.threshold = *cfg.Threshold
	}
	r.weights = qeval.DefaultWeights()
	if len(s.Weights) > 0 {
		r.weights = s.Weights
	}
	if len(cfg.Weights) > 0 {
		r.weights = cfg.Weights
	}
	th := r.threshold
	r.metrics = metric.Config{Weights: r.weights, Threshold: &th, JudgeSkipped: cfg.JudgeSkipped,
		RequireExecutionMatch: slices.Contains(s.PassRequires, "execution"),
		ExecutionOnly:         slices.Contains(s.PassRequires, "execution") && !slices.Contains(s.PassRequires, "score"),
		Options:               metric.Options{Judge: cfg.Judge, JudgeOnExecMatch: cfg.JudgeOnExecMatch, MaxRows: cfg.MaxResultRows, Logger: cfg.Logger, Now: cfg.Now}}
	switch r.dialect {
	case qeval.DialectMalloy:
		// the Malloy-level metrics, from the compiler's description of each query
		r.metrics.Options.Metrics = append(slices.Clone(metric.Metrics), metric.Malloy...)
	case "sql":
		// the benchmark scorers' own numbers (Spider's exact-set match) beside the metrics
		r.metrics.Options.Metrics = append(slices.Clone(metric.Metrics), metric.Benchmark...)
	}
}

func (r *run) modeID() string {
	if r.eval == nil {
		return ""
	}
	return r.eval.Mode().ID()
}

func (r *run) now() time.Time {
	if r.cfg.Now != nil {
		return r.cfg.Now()
	}
	return time.Now()
}

func dialectOf(s *qeval.Suite) string {
	switch {
	case strings.EqualFold(s.Dialect, "kql"):
		return "kql"
	case strings.EqualFold(s.Dialect, qeval.DialectMalloy):
		return qeval.DialectMalloy
	}
	return "sql"
}

// runCaseSafely is runCase that turns a panic into an ERROR for that case, with a short
// stack in the log: one case never takes the run, or a server running it, down.
func (r *run) runCaseSafely(ctx context.Context, c qeval.Case) (res qeval.CaseResult) {
	defer func() {
		if p := recover(); p != nil {
			stack := string(debug.Stack())
			if r.cfg.Logger != nil {
				r.cfg.Logger.Error("case panicked", "case", c.ID, "panic", p, "stack", stack)
			}
			res = qeval.CaseResult{ID: c.ID, Question: c.Question, Tags: c.Tags, ExpectedQuery: c.ExpectedQuery, ExpectedQueries: severalGolds(c),
				Status: qeval.StatusError, Reason: fmt.Sprintf("internal error: panic: %v (a bug in qeval: please report it)", p),
				Metrics: skipAll("the case could not be scored: internal error")}
		}
	}()
	return r.runCase(ctx, c)
}

// runCase gets the generated query, runs both queries, computes the metrics and the
// composite score, and decides the status.
func (r *run) runCase(ctx context.Context, c qeval.Case) (res qeval.CaseResult) {
	start := r.now()
	if r.caseTimeout > 0 || r.cfg.Score == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.caseTimeout)
		defer cancel()
	}
	if r.cfg.Score != nil {
		res = r.cfg.Score(ctx, c)
		if res.Duration == 0 {
			res.Duration = r.now().Sub(start)
			res.DurationMS = float64(res.Duration.Microseconds()) / 1000
		}
		return res
	}
	res = qeval.CaseResult{ID: c.ID, Question: c.Question, Tags: c.Tags, ExpectedQuery: c.ExpectedQuery, ExpectedQueries: severalGolds(c),
		ShouldPass: c.ShouldPass, Confidence: c.Confidence, Validator: c.Validator}
	db := c.Database
	if db == "" {
		db = r.suite.Database
	}
	res.Database = db
	defer func() {
		res.Duration = r.now().Sub(start)
		res.DurationMS = float64(res.Duration.Microseconds()) / 1000
	}()

	if r.targetSlots != nil {
		select {
		case r.targetSlots <- struct{}{}:
			defer func() { <-r.targetSlots }()
		case <-ctx.Done():
		}
	}
	tstart := r.now()
	out, err := r.target.Generate(ctx, r.suite, c)
	if r.target.Kind() != "inline" {
		res.Target = &qeval.TargetCall{Kind: r.target.Kind(), LatencyMS: float64(r.now().Sub(tstart).Microseconds()) / 1000}
	}
	if err != nil {
		msg := qeval.ErrorMessage(err)
		if res.Target != nil {
			res.Target.Error = msg
		}
		res.Status, res.Reason = qeval.StatusError, "no generated query: "+msg
		res.Metrics = skipAll("no generated query: " + msg)
		return res
	}
	res.GeneratedQuery = out.Query
	if out.Confidence != nil {
		res.Confidence = out.Confidence
	}
	if out.Validator != nil {
		res.Validator = out.Validator
	}

	mc := metric.Case{ID: c.ID, Question: c.Question, Generated: out.Query, Expected: c.ExpectedQuery,
		ExpectedTables: c.ExpectedTables, ShouldPass: c.ShouldPass, Dialect: "sqlite"}
	if r.dialect == "kql" {
		mc.Dialect = "kql"
	}
	if res.Validator != nil {
		mc.SafetyValid, mc.IsValid, mc.ValidatorErrors = res.Validator.SafetyValid, res.Validator.IsValid, res.Validator.Errors
	}
	malloy := r.dialect == qeval.DialectMalloy && !(qeval.IsSQLQuery(out.Query) && !qeval.IsMalloyQuery(c.ExpectedQuery))
	switch {
	case malloy:
		r.executeMalloy(ctx, c, db, out.Query, &mc, &res)
	case db == "":
		mc.ExecutionSkipped = "no database configured for this case"
		if r.dialect == "kql" {
			mc.ExecutionSkipped = "no data configured for this KQL case (database: a folder of CSV/JSON tables or a SQLite file)"
		}
	default:
		r.execute(ctx, c, db, out.Query, &mc, &res)
	}
	r.score(ctx, c, mc, &res)
	return res
}

// score computes a case's metrics and composite and decides its status; a wrong case
// gets its error classes.
func (r *run) score(ctx context.Context, c qeval.Case, mc metric.Case, res *qeval.CaseResult) {
	cfg := r.metrics
	if c.Stateful() {
		// a stateful case passes when its checks, tables and definitions agree: the
		// text-based components are computed, but they do not decide it
		cfg.ExecutionOnly = true
	}
	sc := metric.Score(ctx, mc, cfg)
	res.Metrics = sc.Metrics
	res.TotalScore, res.Partial = sc.Composite.Total, sc.Composite.Partial
	res.Status, res.Reason, res.JudgeError = sc.Status, sc.Reason, sc.JudgeError
	if c.Stateful() && mc.Execution != nil && mc.Execution.Outcome.Judged() {
		// a data-changing answer has no result to match by columns or values: its
		// score is the state's verdict (as BIRD-Critic's test cases score it), the
		// text-based metrics reported beside it
		score := 0.0
		if mc.Execution.Match {
			score = 1
		}
		res.TotalScore, res.Partial = &score, false
	}
	if res.Status != qeval.StatusPass {
		res.ErrorClass = errorClass(mc, res)
	}
	if res.Status == qeval.StatusError && ctx.Err() != nil && sc.Reason == "the case ran past its deadline" {
		res.Reason = "the case ran past its deadline of " + r.caseTimeout.String()
	}
}

// errorClass says why a case that did not pass is wrong (package errclass), from its
// queries as its grammar reads them (a Malloy case's compiled SQL) and its verdict.
func errorClass(mc metric.Case, res *qeval.CaseResult) []qeval.ErrorClass {
	p := errclass.Pair{Dialect: mc.Dialect, Expected: mc.Expected, Generated: mc.Generated, Verdict: mc.Execution, Schema: mc.Schema}
	if cc := res.Compiled; cc != nil && cc.GeneratedSQL != "" {
		p.Dialect, p.Generated = cc.Dialect, cc.GeneratedSQL
		if cc.ExpectedSQL != "" {
			p.Expected = cc.ExpectedSQL
		}
	}
	return errclass.Classify(p)
}

// execute runs both queries of a case on its database and gives the metrics what the
// database knows: the verdict, the dialect its queries are parsed in, its schema and
// the engine's answer to which tables each query reads. On a case with several golds
// the metrics are computed against the gold that matched, else the first (matchGolds).
func (r *run) execute(ctx context.Context, c qeval.Case, db, generated string, mc *metric.Case, res *qeval.CaseResult) {
	v := r.eval.Match(ctx, qeval.Item{ID: c.ID, Database: db, Gold: c.ExpectedQuery, Pred: generated, Stateful: c.Spec()})
	if len(c.OtherGolds) > 0 {
		var gold string
		v, gold, res.MatchedGold = r.matchGolds(ctx, c, db, generated, v)
		mc.Expected, res.ExpectedQuery = gold, gold
	}
	mc.Execution = &v
	short := v
	short.Gold, short.Pred = v.Gold.Preview(reportRows, reportValueBytes), v.Pred.Preview(reportRows, reportValueBytes)
	res.Verdict = &short
	if r.suite.Verify && !c.Stateful() {
		short.Verification = r.verifyCase(ctx, c, db, mc.Expected, generated, v.Match)
	}
	if c.Stateful() {
		// the source is never opened for a stateful case: on PostgreSQL a session on it
		// would stop the next copy being made
		if src, err := r.cfg.Catalog.Resolve(ctx, db, "sql"); err == nil {
			mc.Dialect = src.Dialect
		}
		return
	}
	d := r.database(ctx, db)
	if d.src != nil {
		mc.Dialect = d.src.Dialect
	}
	mc.Schema = d.schema
	if d.reads != nil {
		// the engine's answer to which tables each query reads, when it can tell
		mc.GeneratedReads, _ = d.reads.Reads(ctx, generated)
		mc.ExpectedReads, _ = d.reads.Reads(ctx, mc.Expected)
	}
	if len(c.ExpectedColumns) > 0 && v.Gold != nil {
		// expected columns named by the case win over the gold result's own
		cols := make([]qeval.Column, len(c.ExpectedColumns))
		for i, n := range c.ExpectedColumns {
			cols[i] = qeval.Column{Name: n}
		}
		mc.ExpectedResult = &qeval.ResultSet{Columns: cols, Rows: v.Gold.Rows}
	}
}

// matchGolds tries the other golds of a case whose first gold gave verdict first, in
// order, until one matches: it returns the verdict to keep, its gold and its number
// from 1 (0 when none matched: the first gold's verdict then stands). A generated query
// that failed on its own (an error, a timeout, a result too large) is not run again
// for the other golds. The verdict kept counts the time spent on every gold tried.
func (r *run) matchGolds(ctx context.Context, c qeval.Case, db, generated string, first qeval.Verdict) (qeval.Verdict, string, int) {
	if first.Match {
		return first, c.ExpectedQuery, 1
	}
	goldTime, predTime, last := first.GoldTime, first.PredTime, first.Outcome
	for i, gold := range c.OtherGolds {
		if predFailed(last) || ctx.Err() != nil {
			break
		}
		v := r.eval.Match(ctx, qeval.Item{ID: c.ID, Database: db, Gold: gold, Pred: generated})
		goldTime, predTime, last = goldTime+v.GoldTime, predTime+v.PredTime, v.Outcome
		if v.Match {
			v.GoldTime, v.PredTime = goldTime, predTime
			return v, gold, i + 2
		}
	}
	first.GoldTime, first.PredTime = goldTime, predTime
	return first, c.ExpectedQuery, 0
}

// predFailed says whether an outcome is the generated query's own failure, which
// another gold would not change.
func predFailed(o qeval.Outcome) bool {
	switch o {
	case qeval.OutcomePredError, qeval.OutcomeTimeout, qeval.OutcomeTooLarge, qeval.OutcomeCanceled, qeval.OutcomeUnsupported:
		return true
	}
	return false
}

// severalGolds is every gold of a case with more than one, for its report; nil
// otherwise.
func severalGolds(c qeval.Case) []string {
	if len(c.OtherGolds) == 0 {
		return nil
	}
	return c.Golds()
}

// reportRows is how many rows of each result a report keeps, and reportValueBytes how
// much of each text or bytes value: a report needs a preview, not the result.
const (
	reportRows       = 20
	reportValueBytes = 1024
)

func skipAll(reason string) map[string]qeval.MetricResult {
	out := map[string]qeval.MetricResult{}
	for _, n := range metric.Names() {
		out[n] = metric.Skip(reason)
	}
	return out
}

// readsReader is an executor that can say which tables a query reads.
type readsReader interface {
	Reads(ctx context.Context, query string) (*qeval.Shape, error)
}

// dbInfo is what the metrics learn from a database besides results: its source (the
// dialect to parse in), its schema (for the reference validator) and the engine's
// answer to which tables a query reads.
type dbInfo struct {
	src    *qeval.Source
	schema *qeval.Schema
	reads  readsReader
}

// database describes a database once per run, through the executor the evaluator
// already opened for it.
func (r *run) database(ctx context.Context, name string) *dbInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.dbs[name]; ok {
		return d
	}
	d := &dbInfo{}
	r.dbs[name] = d
	src, ex, err := r.eval.Describe(ctx, name)
	d.src = src
	if err != nil {
		return d
	}
	if sr, ok := ex.(qeval.SchemaReader); ok {
		d.schema, _ = sr.Schema(ctx)
	}
	d.reads, _ = ex.(readsReader)
	return d
}

func (r *run) judgeInfo() *qeval.JudgeInfo {
	if r.cfg.JudgeInfo == nil && r.cfg.Judge == nil {
		reason := r.cfg.JudgeSkipped
		if reason == "" {
			reason = metric.NoJudgeReason
		}
		return &qeval.JudgeInfo{Skipped: reason}
	}
	info := qeval.JudgeInfo{}
	if r.cfg.JudgeInfo != nil {
		info = *r.cfg.JudgeInfo
	}
	if r.cfg.JudgeStats != nil {
		st := r.cfg.JudgeStats()
		info.Calls, info.CacheHits = int(st.Calls), int(st.CacheHits)
		info.TokensIn, info.TokensOut = int(st.InputTokens), int(st.OutputTokens)
	}
	return &info
}

// predictionCatalog resolves every database of a suite to its prediction_database: the
// same data on another engine, where the generated queries run.
type predictionCatalog struct {
	qeval.Catalog
	suite *qeval.Suite
}

func (p predictionCatalog) Resolve(ctx context.Context, db string, dialect string) (*qeval.Source, error) {
	return p.Catalog.Resolve(ctx, p.suite.PredictionDatabaseFor(db), dialect)
}
