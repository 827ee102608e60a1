package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/kqlexec"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/suite"
)

// Config is everything a run needs besides the suite. Zero fields take defaults.
type Config struct {
	// Target produces generated queries; nil reads them from the cases (Inline).
	Target Target
	// Mode overrides the suite's comparison mode.
	Mode string
	// Threshold and Weights override the suite's.
	Threshold *float64
	Weights   map[string]float64
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
	// Open opens SQL databases (nil: the embedded SQLite executor).
	Open qeval.Opener
	// KQLOpen opens the data of KQL suites (nil: the local KQL engine with "now"
	// pinned at the start of the run; kusto.New for a cluster).
	KQLOpen qeval.Opener
	// Connections are configured database names (DSNs are resolved by Open).
	Connections map[string]bool
	// MaxResultRows is how many rows results_match compares (metric.DefaultMaxRows).
	MaxResultRows int
	// Done holds cases already finished (from a results file): they are not run again
	// and their results are kept.
	Done map[string]qeval.CaseResult
	// OnCase is called after each case finishes, from the worker goroutines; it must
	// not block for long.
	OnCase func(r qeval.CaseResult)
	// Version is the qeval version recorded in the report.
	Version string
	Now     func() time.Time
	Logger  *slog.Logger
}

// Run runs every case of s and returns the report. When ctx ends, the cases not
// finished are left out, Interrupted is set, and the report covers what finished.
func Run(ctx context.Context, s *qeval.Suite, cfg Config) (*qeval.Report, error) {
	r, err := newRun(s, cfg)
	if err != nil {
		return nil, err
	}
	defer r.eval.Close()
	defer r.closeDatabases()
	if r.kqlEval != nil {
		defer r.kqlEval.Close()
	}
	started := r.now()
	results := make([]*qeval.CaseResult, len(s.Cases))
	g := new(errgroup.Group)
	g.SetLimit(r.concurrency)
	for i, c := range s.Cases {
		if done, ok := cfg.Done[c.ID]; ok {
			d := done
			results[i] = &d
			continue
		}
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			cr := r.runCase(ctx, c)
			if ctx.Err() != nil && cr.Status == qeval.StatusError {
				return nil // interrupted, not finished: leave it out so a resume redoes it
			}
			results[i] = &cr
			if cfg.OnCase != nil {
				cfg.OnCase(cr)
			}
			return nil
		})
	}
	g.Wait()
	rep := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion}
	for _, cr := range results {
		if cr != nil {
			rep.Cases = append(rep.Cases, *cr)
		}
	}
	finished := r.now()
	rep.Run = qeval.RunInfo{Suite: s.Name, SuitePath: s.Path, QevalVersion: cfg.Version, Dialect: dialectOf(s),
		Mode: r.eval.Mode().ID(), Weights: r.weights, Threshold: r.threshold, Started: started, Finished: finished,
		DurationMS: float64(finished.Sub(started).Microseconds()) / 1000, Concurrency: r.concurrency,
		Interrupted: ctx.Err() != nil}
	rep.Run.Judge = r.judgeInfo()
	rep.Summary = Summarize(rep.Cases, r.threshold)
	return rep, nil
}

type run struct {
	cfg         Config
	suite       *qeval.Suite
	eval        *execmatch.Evaluator
	kqlEval     *execmatch.Evaluator // KQL suites: the local KQL engine
	weights     map[string]float64
	threshold   float64
	concurrency int
	caseTimeout time.Duration
	target      Target
	targetSlots chan struct{} // bounds concurrent target calls when the target says so
	mu          sync.Mutex
	dbs         map[string]*dbInfo // by database path
}

func newRun(s *qeval.Suite, cfg Config) (*run, error) {
	r := &run{cfg: cfg, suite: s, target: cfg.Target, dbs: map[string]*dbInfo{}}
	if r.target == nil {
		r.target = Inline{}
	}
	mode := s.Mode
	if cfg.Mode != "" {
		mode = cfg.Mode
	}
	if mode == "" {
		mode = "bag"
	}
	qt := time.Duration(s.Timeout)
	if cfg.QueryTimeout > 0 {
		qt = cfg.QueryTimeout
	}
	named := func(db string) bool { return cfg.Connections[db] }
	ev, err := execmatch.New(execmatch.Options{Mode: mode, Open: cfg.Open, Limits: qeval.Limits{Timeout: qt}, Named: named})
	if err != nil {
		return nil, err
	}
	r.eval = ev
	if dialectOf(s) == "kql" {
		open := cfg.KQLOpen
		if open == nil {
			open = kqlexec.OpenerAt(time.Now())
		}
		if r.kqlEval, err = execmatch.New(execmatch.Options{Mode: mode, Open: open, WholeSource: true,
			Limits: qeval.Limits{Timeout: qt}, Named: named}); err != nil {
			return nil, err
		}
	}
	r.threshold = DefaultThreshold
	if s.Threshold != nil {
		r.threshold = *s.Threshold
	}
	if cfg.Threshold != nil {
		r.threshold = *cfg.Threshold
	}
	r.weights = DefaultWeights()
	if len(s.Weights) > 0 {
		r.weights = s.Weights
	}
	if len(cfg.Weights) > 0 {
		r.weights = cfg.Weights
	}
	if s.Target != nil && s.Target.Concurrency > 0 {
		r.targetSlots = make(chan struct{}, s.Target.Concurrency)
	}
	r.concurrency = cfg.Concurrency
	if r.concurrency <= 0 {
		r.concurrency = s.Concurrency
	}
	if r.concurrency <= 0 {
		r.concurrency = runtime.GOMAXPROCS(0)
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

func (r *run) now() time.Time {
	if r.cfg.Now != nil {
		return r.cfg.Now()
	}
	return time.Now()
}

func dialectOf(s *qeval.Suite) string {
	if strings.EqualFold(s.Dialect, "kql") {
		return "kql"
	}
	return "sql"
}

// runCase gets the generated query, runs both queries, computes the metrics and the
// composite score, and decides the status.
func (r *run) runCase(ctx context.Context, c qeval.Case) (res qeval.CaseResult) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.caseTimeout)
	defer cancel()
	res = qeval.CaseResult{ID: c.ID, Question: c.Question, Tags: c.Tags, ExpectedQuery: c.ExpectedQuery,
		ShouldPass: c.ShouldPass, Confidence: c.Confidence, Validator: c.Validator}
	db := c.Database
	if db == "" {
		db = r.suite.Database
	}
	res.Database = db
	defer func() {
		res.Duration = time.Since(start)
		res.DurationMS = float64(res.Duration.Microseconds()) / 1000
	}()

	if r.targetSlots != nil {
		select {
		case r.targetSlots <- struct{}{}:
			defer func() { <-r.targetSlots }()
		case <-ctx.Done():
		}
	}
	tstart := time.Now()
	out, err := r.target.Generate(ctx, r.suite, c)
	if r.target.Kind() != "inline" {
		res.Target = &qeval.TargetCall{Kind: r.target.Kind(), LatencyMS: float64(time.Since(tstart).Microseconds()) / 1000}
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
		ExpectedTables: c.ExpectedTables, ShouldPass: c.ShouldPass}
	if res.Validator != nil {
		mc.SafetyValid, mc.IsValid, mc.ValidatorErrors = res.Validator.SafetyValid, res.Validator.IsValid, res.Validator.Errors
	}
	executed := false
	switch {
	case dialectOf(r.suite) == "kql":
		mc.Dialect = "kql"
		if sh, err := kql.ParseShape(out.Query); err == nil {
			mc.GeneratedShape = sh
		}
		if sh, err := kql.ParseShape(c.ExpectedQuery); err == nil {
			mc.ExpectedShape = sh
		}
		if db == "" {
			mc.ExecutionSkipped = "no data configured for this KQL case (database: a folder of CSV/JSON tables or a SQLite file)"
			break
		}
		// the local KQL engine, with "now" pinned at the start of the run
		path := suite.ResolveDatabase(r.suite, db, r.cfg.Connections)
		v := r.kqlEval.Match(ctx, qeval.Item{ID: c.ID, Database: path, Gold: c.ExpectedQuery, Pred: out.Query})
		mc.Execution = &v
		executed = v.Outcome == qeval.OutcomeMatch || v.Outcome == qeval.OutcomeMismatch
		short := v
		short.Gold, short.Pred = v.Gold.Head(reportRows), v.Pred.Head(reportRows)
		res.Verdict = &short
		if v.Outcome == qeval.OutcomeGoldError {
			res.Status, res.Reason = qeval.StatusError, v.Error
		}
	case db == "":
		mc.ExecutionSkipped = "no database configured for this case"
	default:
		path := suite.ResolveDatabase(r.suite, db, r.cfg.Connections)
		v := r.eval.Match(ctx, qeval.Item{ID: c.ID, Database: path, Gold: c.ExpectedQuery, Pred: out.Query})
		mc.Execution = &v
		db := r.database(ctx, path)
		mc.Schema = db.schema
		if db.reads != nil {
			// the engine's answer to which tables each query reads, when it can tell
			mc.GeneratedReads, _ = db.reads.Reads(ctx, out.Query)
			mc.ExpectedReads, _ = db.reads.Reads(ctx, c.ExpectedQuery)
		}
		executed = v.Outcome == qeval.OutcomeMatch || v.Outcome == qeval.OutcomeMismatch
		short := v
		short.Gold, short.Pred = v.Gold.Head(reportRows), v.Pred.Head(reportRows)
		res.Verdict = &short
		if len(c.ExpectedColumns) > 0 && v.Gold != nil {
			// expected columns named by the case win over the gold result's own
			cols := make([]qeval.Column, len(c.ExpectedColumns))
			for i, n := range c.ExpectedColumns {
				cols[i] = qeval.Column{Name: n}
			}
			mc.ExpectedResult = &qeval.ResultSet{Columns: cols, Rows: v.Gold.Rows}
		}
		if v.Outcome == qeval.OutcomeGoldError {
			res.Status, res.Reason = qeval.StatusError, v.Error
		}
	}
	res.Metrics = metric.Evaluate(ctx, mc, metric.Options{Judge: r.cfg.Judge, MaxRows: r.cfg.MaxResultRows,
		Logger: r.cfg.Logger, Now: r.cfg.Now})
	if r.cfg.Judge == nil && r.cfg.JudgeSkipped != "" {
		for _, n := range []string{metric.NameQueryCorrectness, metric.NameLLMGrading} {
			if m, ok := res.Metrics[n]; ok && m.Skipped != nil {
				res.Metrics[n] = metric.Skip(r.cfg.JudgeSkipped)
			}
		}
	}
	comp := Score(res.Metrics, r.weights)
	res.TotalScore, res.Partial = comp.Total, comp.Partial
	if res.Status == qeval.StatusError {
		return res
	}
	switch {
	case ctx.Err() != nil:
		res.Status, res.Reason = qeval.StatusError, "the case ran past its deadline of "+r.caseTimeout.String()
	case !executed:
		res.Status = qeval.StatusFail
		if mc.Execution != nil {
			res.Reason = fmt.Sprintf("the generated query did not execute (%s): %s", mc.Execution.Outcome, mc.Execution.Error)
		} else {
			res.Reason = "not executed: " + mc.ExecutionSkipped
		}
	case res.TotalScore == nil:
		res.Status, res.Reason = qeval.StatusFail, "no score component could be computed"
	case *res.TotalScore >= r.threshold:
		res.Status = qeval.StatusPass
	default:
		res.Status = qeval.StatusFail
		res.Reason = fmt.Sprintf("total score %.1f%% is below the threshold %.1f%%", 100**res.TotalScore, 100*r.threshold)
	}
	return res
}

// reportRows is how many rows of each result a report keeps.
const reportRows = 20

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

// dbInfo is what the metrics learn from a database besides results: its schema (for
// the reference validator) and the engine's answer to which tables a query reads.
type dbInfo struct {
	schema *qeval.Schema
	reads  readsReader
	exec   qeval.Executor
}

// database opens a database once per run for its schema and reads; a folder (test
// suite) is described by its first file.
func (r *run) database(ctx context.Context, path string) *dbInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.dbs[path]; ok {
		return d
	}
	d := &dbInfo{}
	r.dbs[path] = d
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		entries, _ := os.ReadDir(path)
		file = ""
		for _, en := range entries {
			if strings.Contains(en.Name(), ".sqlite") {
				file = filepath.Join(path, en.Name())
				break
			}
		}
	}
	if file == "" {
		return d
	}
	open := r.cfg.Open
	if open == nil {
		open = execmatch.DefaultOpener
	}
	ex, err := open(file, qeval.Limits{})
	if err != nil {
		return d
	}
	d.exec = ex
	if sr, ok := ex.(qeval.SchemaReader); ok {
		d.schema, _ = sr.Schema(ctx)
	}
	d.reads, _ = ex.(readsReader)
	return d
}

// closeDatabases closes what database opened.
func (r *run) closeDatabases() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.dbs {
		if d.exec != nil {
			d.exec.Close()
		}
	}
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
