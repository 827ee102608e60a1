// Package spider is the Spider benchmark (Yu et al., EMNLP 2018) as qeval scores it:
// the official test-suite evaluator's execution accuracy and exact-set match, item for
// item, on its gold and prediction files and its database folder, and its official
// tables. It is a qeval.Benchmark: the runner of suites runs it.
package spider

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/errclass"
	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/suite"
)

// Benchmark is Spider's scorer.
type Benchmark struct{}

var _ qeval.Benchmark = Benchmark{}

// Name is the command's name.
func (Benchmark) Name() string { return "spider" }

// Version names the official evaluator reproduced (taoyds/test-suite-sql-eval).
func (Benchmark) Version() string { return "test-suite-sql-eval@1" }

// Summary describes the command.
func (Benchmark) Summary() string {
	return "score predictions against gold SQL by execution (and exact-set match), as the official Spider evaluator does"
}

// Synopsis is the usage line.
func (Benchmark) Synopsis() string {
	return "--gold GOLD --pred PRED --db DBDIR [--etype exec|match|all --table tables.json] [flags]"
}

// flags are the command's own flags.
type flags struct {
	gold, pred, db, table, etype, mode, predEngine, predDSN, cache string
	mismatches, keepDistinct, plugValue, keep                      bool
	maxCands                                                       int
	// verification of the matches (--verify, qeval verify)
	verify bool
	out    string
	bound  int
}

// Flags declares the Spider evaluator's flags.
func (Benchmark) Flags(fs *flag.FlagSet) qeval.BenchmarkOpener {
	f := &flags{}
	fs.StringVar(&f.gold, "gold", "", "gold file: one `SQL<TAB>db_id` per line; blank lines separate interactions")
	fs.StringVar(&f.pred, "pred", "", "predictions file: one query per line, aligned with --gold")
	fs.StringVar(&f.db, "db", "", "database folder: DBDIR/<db_id>/ holds <db_id>.sqlite (every .sqlite file there is a test-suite database)")
	fs.StringVar(&f.table, "table", "", "Spider's tables.json: the foreign keys exact-set match unifies (needed by --etype match and all)")
	fs.StringVar(&f.etype, "etype", "exec", "evaluation type: exec (execution match), match (exact-set match) or all (both)")
	fs.BoolVar(&f.mismatches, "print-mismatches", false, "with --etype match or all, print each exact-match miss before the table, as the official evaluator does")
	fs.StringVar(&f.mode, "mode", qeval.OfficialMode, "comparison mode (see 'qeval modes')")
	fs.BoolVar(&f.keepDistinct, "keep-distinct", false, "keep DISTINCT in both queries (by default it is removed, as the official evaluator does)")
	fs.BoolVar(&f.plugValue, "plug-value", false, "also try the prediction with the gold query's literal values plugged in")
	fs.IntVar(&f.maxCands, "max-candidates", execmatch.DefaultMaxCandidates, "cap on queries tried per item with --plug-value")
	fs.StringVar(&f.predEngine, "pred-engine", "", "run the predictions on another engine (duckdb, postgres, mysql, clickhouse): the databases are mirrored there; the gold stays on SQLite")
	fs.StringVar(&f.predDSN, "pred-dsn", "", "with --pred-engine: duckdb:DIR for the copies (default a temporary folder), or the server to mirror into")
	fs.BoolVar(&f.keep, "keep", false, "with --pred-engine: keep the mirrored databases afterwards")
	fs.StringVar(&f.cache, "cache", "", "keep gold results in a cache: a `DIR` (the local cache file) or redis://HOST:PORT/DB, keyed by each database's content; a second run on the same databases (another model's predictions, another shard) runs only the predictions")
	fs.BoolVar(&f.verify, "verify", false, "verify every match beyond the database(s): a counterexample database or a proof up to --bound rows per table (see qeval verify)")
	f.verifyFlags(fs, "with --verify: ")
	return f.open
}

// verifyFlags declares the flags of verification, their help after prefix.
func (f *flags) verifyFlags(fs *flag.FlagSet, prefix string) {
	fs.StringVar(&f.out, "out", "", prefix+"write each counterexample to `CEX_DIR`/<index>.sqlite, with <index>.json beside it (the pair, both results, why they differ)")
	fs.IntVar(&f.bound, "bound", qeval.DefaultVerifyBound, prefix+"K, the rows per table the complete check covers")
}

func (f *flags) open(ctx context.Context, env qeval.BenchmarkEnv) (qeval.BenchmarkRun, error) {
	var missing []string
	for _, m := range []struct{ name, v string }{{"--db", f.db}, {"--gold", f.gold}, {"--pred", f.pred}} {
		if m.v == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(missing, ", "),
			Hint: "qeval spider --gold dev_gold.sql --pred predictions.txt --db database/"}
	}
	doExec, doMatch := f.etype == "exec" || f.etype == "all", f.etype == "match" || f.etype == "all"
	if !doExec && !doMatch {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--etype %s is not an evaluation type", f.etype),
			Hint: "use --etype exec, match or all"}
	}
	if doMatch && f.table == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--etype " + f.etype + " needs --table",
			Hint: "exact-set match unifies foreign-key columns from Spider's tables.json: add --table tables.json"}
	}
	if f.table != "" {
		if _, err := os.Stat(f.table); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --table " + f.table, Message: "no such file"}
		}
	}
	if st, err := os.Stat(f.db); err != nil || !st.IsDir() {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + f.db, Message: "no such folder",
			Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"}
	}
	set, err := suite.LoadSpider(f.gold, f.pred)
	if err != nil {
		return nil, err
	}
	for i := range set.Items {
		set.Items[i].Database = filepath.Join(f.db, set.Items[i].DBID) // the folder: a test suite's every database
	}
	r := &run{f: f, env: env, set: set, doExec: doExec, doMatch: doMatch, byID: map[string]int{}, closers: nil}
	r.index()
	if doMatch {
		// tables.json is read while the databases' schemas are, each on its own
		// goroutine; a schema or a tables.json that cannot be read stops the run
		r.fks = make(chan struct{})
		go func() { r.fkMap, r.fkErr = exactmatch.LoadForeignKeys(f.table, set.DBIDs()...); close(r.fks) }()
		var g errgroup.Group
		g.SetLimit(max(env.Workers, runtime.GOMAXPROCS(0)))
		for _, id := range set.DBIDs() {
			g.Go(func() error { _, err := r.schema(ctx, id); return err })
		}
		err := g.Wait()
		if <-r.fks; err == nil {
			err = r.fkErr
		}
		if err != nil {
			return nil, err
		}
	}
	if doExec {
		if err := r.openExec(ctx); err != nil {
			r.Close()
			return nil, err
		}
	}
	if f.verify {
		if err := r.openVerify(); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// run is one Spider evaluation: the files read, the evaluator open.
type run struct {
	f               *flags
	env             qeval.BenchmarkEnv
	set             *suite.Spider
	doExec, doMatch bool
	byID            map[string]int // case id → position in set

	ev         *execmatch.Evaluator
	predEngine string
	closers    []func()
	verifier   qeval.Verifier

	fks   chan struct{} // closed when tables.json is read
	fkMap exactmatch.ForeignKeys
	fkErr error

	schemaMu sync.Mutex
	schemas  map[string]*schemaOnce
}

type schemaOnce struct {
	once sync.Once
	raw  *qeval.Schema
	s    *exactmatch.Schema
	err  error
}

func (r *run) index() {
	clear(r.byID)
	for k, it := range r.set.Items {
		r.byID[strconv.Itoa(it.Index)] = k
	}
}

func (r *run) openExec(ctx context.Context) error {
	opts := execmatch.Options{Mode: r.f.mode, KeepDistinct: r.f.keepDistinct, PlugValue: r.f.plugValue, MaxCandidates: r.f.maxCands,
		Limits: r.env.Limits, Catalog: r.env.Catalog, DiscardResults: true, NoExplanations: !r.env.Explain}
	if r.f.predEngine != "" {
		if r.env.Mirror == nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Message: "--pred-engine is not available here"}
		}
		files := map[string]string{}
		for _, id := range r.set.DBIDs() {
			files[id] = r.dbPath(id)
		}
		cat, cleanup, err := r.env.Mirror(ctx, r.f.predEngine, r.f.predDSN, r.f.keep, files)
		if err != nil {
			return err
		}
		r.closers = append(r.closers, cleanup)
		opts.PredCatalog, r.predEngine = cat, r.f.predEngine
	}
	if r.f.cache != "" && r.env.GoldCache != nil {
		c, closeCache, err := r.env.GoldCache(ctx, r.f.cache)
		if err != nil {
			return err
		}
		r.closers = append(r.closers, closeCache)
		opts.CacheGold, opts.SharedCache = true, c
		opts.OnSharedCacheError = func(err error) {
			fmt.Fprintf(r.env.Stderr, "warning: the gold-result cache failed; gold queries run as usual: %s\n", qeval.ErrorMessage(err))
		}
	}
	ev, err := execmatch.New(opts)
	if err != nil {
		return err
	}
	r.ev = ev
	return nil
}

// dbPath is the file of a db_id: the benchmark layout DIR/<db_id>/<db_id>.sqlite.
func (r *run) dbPath(id string) string { return qeval.BenchmarkFile(r.f.db, id) }

// Suite is one case per item: its index as id, its database folder, gold and
// prediction, and its db_id as a tag.
func (r *run) Suite() *qeval.Suite {
	s := &qeval.Suite{Name: "spider", Path: r.f.gold, Dialect: "sql", Mode: r.f.mode}
	s.Cases = make([]qeval.Case, len(r.set.Items))
	for k, it := range r.set.Items {
		pred := it.Pred
		s.Cases[k] = qeval.Case{ID: strconv.Itoa(it.Index), ExpectedQuery: it.Gold, GeneratedQuery: &pred,
			Database: filepath.Join(r.f.db, it.DBID), Tags: []string{it.DBID}}
	}
	return s
}

// Shard keeps part i of n: a Spider file by item, a SParC/CoSQL file by interaction.
func (r *run) Shard(i, n int) []string {
	ids := make([]string, len(r.set.Items))
	for k, it := range r.set.Items {
		ids[k] = strconv.Itoa(it.Index)
	}
	r.set = shardSet(r.set, i, n)
	r.index()
	return ids
}

// shardSet keeps the items of part i of n. A Spider file is one interaction, sharded
// by item; a SParC/CoSQL file is sharded by interaction, so that an interaction's
// turns stay together for joint accuracy. Items keep their global Index, and
// Interaction keeps the global interaction number.
func shardSet(set *suite.Spider, i, n int) *suite.Spider {
	owns := func(k int) bool { return k%n == i-1 }
	out := &suite.Spider{MultiTurn: set.MultiTurn}
	multi := set.MultiTurn
	for k, inter := range set.Interactions {
		if multi && !owns(k) {
			continue
		}
		var local []int
		for _, j := range inter {
			if !multi && !owns(j) {
				continue
			}
			local = append(local, len(out.Items))
			out.Items = append(out.Items, set.Items[j])
			out.Interaction = append(out.Interaction, set.Interaction[j])
			out.Turn = append(out.Turn, set.Turn[j])
		}
		out.Interactions = append(out.Interactions, local)
	}
	return out
}

// Workers is how many items to judge at once by default: with --pred-engine, an item
// waits while its prediction runs in a DuckDB worker process or on a server, and twice
// as many items in flight keep both sides busy; 0 (the runner's default) otherwise.
func (r *run) Workers() int {
	if r.predEngine != "" {
		return 2 * runtime.GOMAXPROCS(0)
	}
	return 0
}

// Meta records the evaluation type, mode and interactions.
func (r *run) Meta() json.RawMessage {
	m := Meta{Etype: r.f.etype, MultiTurn: r.set.MultiTurn, PrintMismatches: r.f.mismatches}
	if r.verifier != nil {
		m.Verify = &VerifyMeta{Bound: r.f.bound, Out: r.f.out}
	}
	if r.ev != nil {
		m.Mode = r.ev.Mode().ID()
	}
	for _, inter := range r.set.Interactions {
		if len(inter) == 0 {
			m.EmptyInteractions++
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// Close closes the databases and removes the copies.
func (r *run) Close() error {
	if r.ev != nil {
		if r.f.cache != "" {
			st := r.ev.GoldCacheStats()
			fmt.Fprintf(r.env.Stderr, "gold results: %d from the cache, %d executed\n", st.Hits, st.Misses)
		}
		r.ev.Close()
		r.ev = nil
	}
	if r.fks != nil {
		<-r.fks
	}
	if r.verifier != nil {
		r.verifier.Close()
		r.verifier = nil
	}
	for k := len(r.closers) - 1; k >= 0; k-- {
		r.closers[k]()
	}
	r.closers = nil
	return nil
}

// Score judges one item by execution and exact-set match, as --etype asks.
func (r *run) Score(ctx context.Context, c qeval.Case) qeval.CaseResult {
	k, ok := r.byID[c.ID]
	if !ok {
		return qeval.CaseResult{ID: c.ID, Status: qeval.StatusError, Reason: "no such Spider item " + c.ID}
	}
	it := r.set.Items[k]
	line := Item{Index: it.Index, DBID: it.DBID}
	if r.set.MultiTurn {
		inter, turn := r.set.Interaction[k], r.set.Turn[k]
		line.Interaction, line.Turn = &inter, &turn
	}
	res := qeval.CaseResult{ID: c.ID, ExpectedQuery: it.Gold, GeneratedQuery: it.Pred, Database: it.DBID, Tags: []string{it.DBID},
		Metrics: map[string]qeval.MetricResult{}}
	var em *exactmatch.Result
	if r.doMatch {
		em = r.exact(ctx, it, &line)
	}
	right := true
	outcome := qeval.OutcomeMatch
	var verdict *qeval.Verdict
	if r.doExec {
		v := r.ev.Match(ctx, it)
		verdict = &v
		r.execLine(it, v, &line)
		short := v
		short.Gold, short.Pred = nil, nil
		res.Verdict = &short
		right, outcome = v.Match, v.Outcome
		res.Metrics["execution_match"] = binary(v.Match)
		if v.Error != "" {
			res.Reason = v.Error
		}
		if r.verifier != nil {
			r.verifyItem(ctx, it, v, &line, &res)
		}
	}
	if line.Hardness == nil {
		if h, err := sqlparse.Hardness(it.Gold); err == nil {
			line.Hardness = &h
		}
	}
	if line.Hardness != nil {
		res.Tags = append(res.Tags, *line.Hardness)
	}
	if r.doMatch {
		exact := em != nil && em.Exact
		res.Metrics[EMMetric] = binary(exact)
		if !r.doExec {
			right = exact
			if em == nil {
				outcome = qeval.OutcomeGoldError
				res.Reason = line.ExactError
			} else if !exact {
				outcome = qeval.OutcomeMismatch
			}
		}
	}
	res.Status = qeval.BenchmarkStatus(right, outcome)
	if !right && r.env.Explain {
		// only where the items are written: classifying costs a quarter of an
		// exact-match run's CPU, and the official tables do not show it
		line.ErrorClass = r.errorClass(ctx, it, verdict)
		res.ErrorClass = line.ErrorClass
	}
	score := 0.0
	if right {
		score = 1
	}
	res.TotalScore = &score
	res.ItemValue = &line // encoded only where a report or results file is written
	return res
}

func binary(ok bool) qeval.MetricResult {
	s := 0.0
	if ok {
		s = 1
	}
	return qeval.MetricResult{Score: &s}
}

// exact scores one item with Spider's exact-set-match rules; nil when the official
// parser cannot read its gold query (the official evaluator stops there).
func (r *run) exact(ctx context.Context, it qeval.Item, line *Item) *exactmatch.Result {
	exact := false
	line.Exact = &exact
	schema, err := r.schema(ctx, it.DBID)
	if err != nil {
		line.ExactError = fmt.Sprintf("gold query of item %d: %v", it.Index, qeval.ErrorMessage(err))
		return nil
	}
	p, err := exactmatch.ParsePair(schema, it.Gold, it.Pred)
	if err != nil {
		line.ExactError = fmt.Sprintf("gold query of item %d: %v", it.Index, err)
		if h, err := sqlparse.Hardness(it.Gold); err == nil {
			line.Hardness = &h
		}
		return nil
	}
	if <-r.fks; r.fkErr != nil {
		line.ExactError = qeval.ErrorMessage(r.fkErr)
		return nil
	}
	res := p.Score(r.fkMap[it.DBID])
	line.Hardness = &res.Hardness
	exact = res.Exact
	line.Partial, line.ParseError = res.Partial, res.ParseError
	return &res
}

// schema reads a database's schema once, through the run's catalog.
func (r *run) schema(ctx context.Context, id string) (*exactmatch.Schema, error) {
	r.schemaMu.Lock()
	if r.schemas == nil {
		r.schemas = map[string]*schemaOnce{}
	}
	so, ok := r.schemas[id]
	if !ok {
		so = &schemaOnce{}
		r.schemas[id] = so
	}
	r.schemaMu.Unlock()
	so.once.Do(func() {
		path := r.dbPath(id)
		src, err := r.env.Catalog.Resolve(ctx, path, "sql")
		if err != nil {
			so.err = err
			return
		}
		ex, err := src.Open(path, qeval.Limits{})
		if err != nil {
			so.err = err
			return
		}
		defer ex.Close()
		sr, ok := ex.(qeval.SchemaReader)
		if !ok {
			so.err = &qeval.Error{Code: qeval.CodeUnsupported, Message: "the engine of " + path + " cannot describe its schema"}
			return
		}
		s, err := sr.Schema(ctx)
		if err != nil {
			so.err = err
			return
		}
		so.raw, so.s = s, exactmatch.NewSchema(s)
	})
	return so.s, so.err
}

// errorClass says why a wrong prediction is wrong, with the database's schema naming
// unqualified columns when it can be read.
func (r *run) errorClass(ctx context.Context, it qeval.Item, v *qeval.Verdict) []qeval.ErrorClass {
	var raw *qeval.Schema
	if _, err := r.schema(ctx, it.DBID); err == nil {
		r.schemaMu.Lock()
		raw = r.schemas[it.DBID].raw
		r.schemaMu.Unlock()
	}
	// the gold is SQLite's; a prediction for another engine is read with its grammar
	return errclass.Classify(errclass.Pair{Dialect: r.predEngine, Expected: it.Gold, Generated: it.Pred, Verdict: v, Schema: raw})
}

// execLine records an execution verdict in an item's line.
func (r *run) execLine(it qeval.Item, v qeval.Verdict, line *Item) {
	match, pm, gm := v.Match, ms(v.PredTime), ms(v.GoldTime)
	line.Exec, line.Outcome, line.Mode, line.PredMS, line.GoldMS = &match, v.Outcome, v.Mode, &pm, &gm
	if v.Error != "" {
		msg := v.Error
		line.Error = &msg
	}
	line.ExecOriginal, line.Difference = v.OriginalMatch, v.Explanation
	if v.Databases > 1 && !v.Match {
		line.Database = v.Database
	}
	if v.Candidates > 1 || v.CandidateCapHit {
		line.Candidates, line.CapHit = v.Candidates, v.CandidateCapHit
	}
	if r.predEngine != "" {
		line.PredEngine = r.predEngine
		if v.Outcome == qeval.OutcomeMismatch || v.Outcome == qeval.OutcomePredError {
			rule := compare.ExplainEngineDifference(it.Pred, v)
			line.Explanation = rule.ID + ": " + rule.Description
		}
	}
}

// Summarize builds the official summary from a run's cases.
func (Benchmark) Summarize(metas []json.RawMessage, cases []qeval.CaseResult) (qeval.BenchmarkSummary, error) {
	var meta Meta
	for k, raw := range metas {
		var m Meta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the Spider run's meta", Message: err.Error()}
		}
		if k == 0 {
			meta = m
			continue
		}
		if m.Etype != meta.Etype || m.Mode != meta.Mode || m.MultiTurn != meta.MultiTurn {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge Spider runs",
				Message: fmt.Sprintf("part %d (etype %s, mode %s) is not of the same run as part 1 (etype %s, mode %s)", k+1, m.Etype, m.Mode, meta.Etype, meta.Mode)}
		}
		meta.EmptyInteractions += m.EmptyInteractions
	}
	s, err := rebuild(meta, cases)
	if err != nil {
		return nil, err
	}
	rep := buildReport(s)
	if meta.PrintMismatches && s.exact != nil {
		for i, c := range cases {
			if s.exactOK(i) {
				continue
			}
			h := ""
			if s.hardness[i] != nil {
				h = *s.hardness[i]
			}
			rep.mismatches = append(rep.mismatches, mismatch{h, c.GeneratedQuery, c.ExpectedQuery})
		}
	}
	return rep, nil
}
