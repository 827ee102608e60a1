package bird

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// Dialects BIRD's scripts run on.
const (
	SQLite     = "SQLite"
	PostgreSQL = "PostgreSQL"
	MySQL      = "MySQL"
)

// Metric names, as reports record them.
const (
	MetricEX        = "bird-ex@1"
	MetricSoftF1    = "bird-soft-f1@1"
	MetricRVES      = "bird-r-ves@1"
	MetricRVESSteps = "bird-r-ves-steps@1"
)

// StepCounter is an executor that can also say how many virtual-machine steps a query
// takes to run to completion (SQLite's SQLITE_STMTSTATUS_VM_STEP): a cost that is the
// same on every run and every machine.
type StepCounter interface {
	VMSteps(ctx context.Context, query string) (int64, error)
}

// Options configures an Evaluator.
type Options struct {
	// Open opens an executor on a database target (required).
	Open qeval.Opener
	// Dialect is SQLite (default), PostgreSQL or MySQL.
	Dialect string
	// DBRoot is, for SQLite, the folder holding <db_id>/<db_id>.sqlite; for PostgreSQL
	// and MySQL, the one database every item runs on (a DSN), as in BIRD.
	DBRoot string
	// Limits caps each query (the official scripts give each item 30 s).
	Limits qeval.Limits
	// Workers is the number of items run at once (default: the number of CPUs).
	Workers int
	// VESRuns is the number of timed runs of each query pair for R-VES (the official
	// script uses 100); 0 computes no R-VES. With SQLite the VM-step R-VES is computed
	// too.
	VESRuns int
}

// Item is the verdict on one gold item.
type Item struct {
	Index      int    `json:"index"`
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty"`
	// Key is the JSON key of the prediction paired with this item by position, as the
	// official scripts pair them ("" when the file has fewer predictions).
	Key    string  `json:"key"`
	EX     int     `json:"ex"`
	SoftF1 float64 `json:"soft_f1"`
	// RVES is the official wall-clock reward (0, 0.25, 0.5, 0.75, 1, 1.25); TimeRatio
	// its mean gold/pred time ratio after outlier removal and TimeRatioStd the spread
	// of the ratios over the runs.
	RVES         *float64 `json:"r_ves,omitempty"`
	TimeRatio    *float64 `json:"time_ratio,omitempty"`
	TimeRatioStd *float64 `json:"time_ratio_std,omitempty"`
	// RVESSteps is the same reward on the ratio of SQLite VM steps, gold/pred.
	RVESSteps *float64 `json:"r_ves_steps,omitempty"`
	StepRatio *float64 `json:"step_ratio,omitempty"`
	// EXByKey and SoftF1ByKey score the prediction whose key is this item's index; set
	// only when that is not the prediction the official pairing by position uses.
	EXByKey     *int     `json:"ex_by_key,omitempty"`
	SoftF1ByKey *float64 `json:"soft_f1_by_key,omitempty"`

	Outcome qeval.Outcome `json:"outcome"`
	Error   string        `json:"error,omitempty"`
	// Verification is, with --verify, what checking the match beyond the database
	// decided.
	Verification *qeval.Verification `json:"verification,omitempty"`
	PredMS       float64             `json:"pred_ms"`
	GoldMS       float64             `json:"gold_ms"`
}

// Pairing says how the prediction file's keys line up with the gold items.
type Pairing struct {
	// Missing are gold indices no key names.
	Missing []int `json:"missing,omitempty"`
	// Extra are keys that name no gold item.
	Extra []string `json:"extra,omitempty"`
	// Duplicates are keys given more than once.
	Duplicates []string `json:"duplicates,omitempty"`
	// Moved counts items whose prediction by position is not the one keyed by their
	// index; when it and Missing are zero, pairing by key and by position agree.
	Moved int `json:"moved"`
}

// Agrees reports whether pairing by position and by key give the same predictions.
func (p Pairing) Agrees() bool { return p.Moved == 0 && len(p.Missing) == 0 }

// Evaluator scores prediction files. It keeps one executor per database and is safe
// for concurrent use; Close releases the executors.
type Evaluator struct {
	opt Options
	mu  sync.Mutex
	dbs map[string]*database
}

type database struct {
	once sync.Once
	ex   qeval.Executor
	err  error
}

// New returns an Evaluator.
func New(opt Options) (*Evaluator, error) {
	if opt.Open == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "bird: no executor opener"}
	}
	switch opt.Dialect {
	case "":
		opt.Dialect = SQLite
	case SQLite, PostgreSQL, MySQL:
	default:
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown dialect %q (known: SQLite, PostgreSQL, MySQL)", opt.Dialect)}
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	opt.Limits = opt.Limits.WithDefaults()
	return &Evaluator{opt: opt, dbs: map[string]*database{}}, nil
}

// Close closes every executor the evaluator opened.
func (e *Evaluator) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for _, d := range e.dbs {
		if d.ex != nil {
			errs = append(errs, d.ex.Close())
		}
	}
	e.dbs = map[string]*database{}
	return errors.Join(errs...)
}

// Target returns the database an item with this db_id runs on.
func (e *Evaluator) Target(dbID string) string {
	if e.opt.Dialect == SQLite {
		return qeval.BenchmarkFile(e.opt.DBRoot, dbID)
	}
	return e.opt.DBRoot
}

func (e *Evaluator) executor(dbID string) (qeval.Executor, error) {
	t := e.Target(dbID)
	e.mu.Lock()
	d := e.dbs[t]
	if d == nil {
		d = &database{}
		e.dbs[t] = d
	}
	e.mu.Unlock()
	d.once.Do(func() {
		d.ex, d.err = e.opt.Open(t, e.opt.Limits)
		if d.err != nil {
			d.ex = nil // an opener may return a typed nil with its error
		}
	})
	return d.ex, d.err
}

// Run scores every gold item against the predictions: item i is paired with the i-th
// prediction of the file, as the official scripts pair them, and also (when that
// differs) with the prediction keyed by i. difficulty, when not nil, overrides the
// gold items' own. Items come back in gold order; a canceled ctx leaves the
// remaining items canceled.
func (e *Evaluator) Run(ctx context.Context, gold []Gold, preds *Predictions, difficulty []string) ([]Item, Pairing) {
	pairing, byKey := pair(gold, preds)
	items := make([]Item, len(gold))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < e.opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				items[i] = e.item(ctx, i, gold[i], preds, byKey, pairing.Agrees())
				if difficulty != nil {
					items[i].Difficulty = ""
					if i < len(difficulty) {
						items[i].Difficulty = difficulty[i]
					}
				}
			}
		}()
	}
	for i := range gold {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return items, pairing
}

func pair(gold []Gold, preds *Predictions) (Pairing, map[int]*Prediction) {
	var p Pairing
	p.Duplicates = preds.Duplicates
	byKey := map[int]*Prediction{}
	for i := range preds.List {
		k := preds.List[i].Key
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 || n >= len(gold) || strconv.Itoa(n) != k {
			p.Extra = append(p.Extra, k)
			continue
		}
		byKey[n] = &preds.List[i]
	}
	for i := range gold {
		kp, ok := byKey[i]
		if !ok {
			p.Missing = append(p.Missing, i)
			continue
		}
		if i >= len(preds.List) || &preds.List[i] != kp {
			p.Moved++
		}
	}
	return p, byKey
}

// result is one executed query.
type result struct {
	rs  *qeval.ResultSet
	err error
	dur time.Duration
}

func (e *Evaluator) item(ctx context.Context, i int, g Gold, preds *Predictions, byKey map[int]*Prediction, agrees bool) Item {
	it := Item{Index: i, DBID: g.DBID, Difficulty: g.Difficulty}
	if i < len(preds.List) {
		it.Key = preds.List[i].Key
	}
	if ctx.Err() != nil {
		it.Outcome, it.Error = qeval.OutcomeCanceled, "run canceled before the item started"
		return it
	}
	if g.Err != nil {
		it.Outcome, it.Error = qeval.OutcomeGoldError, g.Err.Error()
		if !agrees {
			zero, zf := 0, 0.0
			it.EXByKey, it.SoftF1ByKey = &zero, &zf
		}
		return it
	}
	ex, err := e.executor(g.DBID)
	if err != nil {
		it.Outcome, it.Error = qeval.OutcomeGoldError, "open database: "+qeval.ErrorMessage(err)
		return it
	}
	var predSQL string
	hasPred := i < len(preds.List)
	if hasPred {
		predSQL = preds.List[i].SQL
	}
	var pr result
	if hasPred {
		pr = e.query(ctx, ex, predSQL)
	}
	gr := e.query(ctx, ex, g.SQL)
	it.PredMS, it.GoldMS = ms(pr.dur), ms(gr.dur)
	it.EX, it.SoftF1, it.Outcome, it.Error = score(gr, pr, hasPred, i)
	if !agrees {
		kp, ok := byKey[i]
		var kx int
		var kf float64
		switch {
		case ok && hasPred && kp == &preds.List[i]:
			kx, kf = it.EX, it.SoftF1
		case ok:
			kx, kf, _, _ = score(gr, e.query(ctx, ex, kp.SQL), true, i)
		}
		it.EXByKey, it.SoftF1ByKey = &kx, &kf
	}
	if e.opt.VESRuns > 0 && it.EX == 1 {
		e.ves(ctx, ex, predSQL, g.SQL, &it)
	} else if e.opt.VESRuns > 0 {
		zero := 0.0
		it.RVES = &zero
		if _, ok := ex.(StepCounter); ok {
			it.RVESSteps = &zero
		}
	}
	return it
}

// score gives EX, soft-F1 and the outcome of a gold and a predicted result.
func score(gr, pr result, hasPred bool, i int) (int, float64, qeval.Outcome, string) {
	switch {
	case !hasPred:
		return 0, 0, qeval.OutcomeSkipped, fmt.Sprintf("no prediction at position %d of the file", i)
	case gr.err != nil:
		return 0, 0, qeval.OutcomeGoldError, "gold: " + qeval.ErrorMessage(gr.err)
	case pr.err != nil:
		return 0, 0, qeval.FailedOutcome(pr.err, qeval.OutcomePredError), "pred: " + qeval.ErrorMessage(pr.err)
	}
	f1 := compare.SoftF1(gr.rs, pr.rs)
	if compare.BirdEX.Equal(gr.rs, pr.rs, false) {
		return 1, f1, qeval.OutcomeMatch, ""
	}
	return 0, f1, qeval.OutcomeMismatch, ""
}

// query runs one query. A query of white space only returns no rows, as Python's
// sqlite3 cursor does.
func (e *Evaluator) query(ctx context.Context, ex qeval.Executor, sql string) result {
	if strings.TrimSpace(sql) == "" {
		return result{rs: &qeval.ResultSet{}}
	}
	start := time.Now()
	rs, err := ex.Query(ctx, sql)
	return result{rs: rs, err: err, dur: time.Since(start)}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
