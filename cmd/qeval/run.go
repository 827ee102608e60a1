package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/internal/proclimit"
	"github.com/qeval/qeval/internal/progress"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/shard"
	"github.com/qeval/qeval/suite"
)

// runFlags are qeval run's flags.
type runFlags struct {
	fs                                           *flag.FlagSet
	outDir, resultsPath, resume, predictions     string
	targetCmd, targetURL, mode, shardSpec        string
	excludeFlagged, spiderDB, failOn, cacheEpoch string
	targetTimeout, timeout                       time.Duration
	threshold, minPass, minScore                 float64
	concurrency                                  int
	maxBytes, maxRunBytes                        int64
	goldCache, quiet, unsafePriv, verbose, audit bool
	files                                        map[string]*string
	conns                                        *dbFlag
	judge                                        *judgeFlags
}

func newRunFlags(e *env) *runFlags {
	fs := newFlags("run", "SUITE [flags]", e)
	f := &runFlags{fs: fs, files: map[string]*string{}, conns: newDBFlag()}
	fs.StringVar(&f.outDir, "o", "", "write report.json, report.xlsx, junit.xml, report.html, summary.md and results.jsonl to this folder")
	for _, name := range registry.WriterNames() {
		f.files[name] = fs.String(name, "", "write the "+name+" report to this file")
	}
	fs.StringVar(&f.resultsPath, "results", "", "append each finished case to this JSONL file (default: DIR/results.jsonl with -o)")
	fs.StringVar(&f.resume, "resume", "", "continue the run whose results file this is: finished cases are kept, the others run")
	fs.StringVar(&f.predictions, "predictions", "", "take generated queries from this file (JSONL with id and query, or one query per line)")
	fs.StringVar(&f.targetCmd, "target-command", "", "run this command per case: case JSON on stdin, {\"query\": ...} on stdout")
	fs.StringVar(&f.targetURL, "target-url", "", "POST each case as JSON to this URL; the reply is {\"query\": ...}")
	fs.DurationVar(&f.targetTimeout, "target-timeout", 0, "deadline of one target call (default 60s)")
	fs.StringVar(&f.mode, "mode", "", "comparison mode (default: the suite's, else "+qeval.DefaultMode+")")
	fs.Float64Var(&f.threshold, "threshold", -1, "total score a case needs to pass (default: the suite's, else 0.9)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "cases run at once (default: the suite's, else the number of CPUs)")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline of each query (default: the suite's, else 30s)")
	fs.Int64Var(&f.maxBytes, "max-result-bytes", qeval.DefaultMaxBytes, "a query whose result (or its engine's memory for it) exceeds this many bytes is too_large")
	fs.Int64Var(&f.maxRunBytes, "max-run-bytes", runner.DefaultMaxRunBytes, "the results of all cases in flight together: one result may take at most this / (2 × concurrency) bytes")
	fs.StringVar(&f.cacheEpoch, "cache-epoch", "", "with --gold-cache, a word mixed into every gold-result key: a server database (PostgreSQL, MySQL, ClickHouse) is cached by its target, not its data, so give a new one after its data changed (files are keyed by their content)")
	fs.BoolVar(&f.goldCache, "gold-cache", false, "keep gold results in the cache (--cache-dir, or --cache redis://…), keyed by each database's content: a second run on the same databases executes only the generated queries")
	fs.Float64Var(&f.minPass, "min-pass-rate", -1, "exit 3 when the pass rate is below this (0..1)")
	fs.Float64Var(&f.minScore, "min-score", -1, "exit 3 when the mean total score is below this (0..1)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&f.unsafePriv, "unsafe-allow-privileged", false, "run queries on a server even as a superuser or a role that reads server files (see qeval db setup-role)")
	fs.BoolVar(&f.verbose, "verbose", false, "log each failed metric as it happens (otherwise they are counted after the run and detailed in the reports)")
	fs.StringVar(&f.shardSpec, "shard", "", "run only part I of N of the cases (`I/N`, by a hash of each case id); write the report with -o or --json and combine the parts with qeval merge")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 3 when one of these happened, whatever the pass rate (comma-separated): critical (an unsafe query got through the validator), judge-errors, unscorable; default: the suite's fail_on")
	fs.BoolVar(&f.audit, "audit", false, "audit the gold queries first (as qeval audit does) and add the audit to the reports")
	fs.StringVar(&f.excludeFlagged, "exclude-flagged", "", "audit the gold queries first and set aside the cases flagged with these (comma-separated, e.g. gold_fails,order_dependent; default: the suite's exclude_flagged); the reports say how many and why")
	fs.StringVar(&f.spiderDB, "spider-db", "", "for a Spider examples file (dev.json) as SUITE: the database folder DIR/<db_id>/")
	fs.Var(f.conns, "db", "a database connection suites may name: `NAME=TARGET`, TARGET a DSN (postgres://…, user@tcp(host)/db), a Kusto https://cluster/db or a SQLite path; or a folder of <db_id>/<db_id>.sqlite, each named by its db_id (repeat)")
	f.judge = addJudgeFlags(fs, registry.DefaultProvider)
	return f
}

// runState is what a run holds open while it runs, and what its end reports on.
type runState struct {
	suite    *qeval.Suite
	catalog  *registry.Catalog
	shard    *shard.Part
	allIDs   []string // every case id of a sharded run
	audit    *qeval.GoldAudit
	judge    *registry.JudgeSetup
	logger   *slog.Logger
	secrets  qeval.Secrets
	loaded   *runner.Results // a resumed run's results
	closers  []func()
	failures atomic.Int64 // metric computations that failed
}

func (st *runState) close() {
	for k := len(st.closers) - 1; k >= 0; k-- {
		st.closers[k]()
	}
}

func cmdRun(ctx context.Context, args []string, e *env) int {
	f := newRunFlags(e)
	pos, code := parseInterspersed(f.fs, args)
	if code >= 0 {
		return code
	}
	st := &runState{}
	defer st.close()
	if err := f.open(ctx, e, pos, st); err != nil {
		return fail(e, err)
	}
	cfg, err := f.config(ctx, e, st)
	if err != nil {
		return fail(e, err)
	}
	prog := progress.New(e.stderr, st.suite.NumCases()-len(cfg.Done), f.quiet)
	for _, c := range cfg.Done {
		st.failures.Add(int64(failedMetrics(c)))
	}
	cfg.OnCase = func(r qeval.CaseResult) {
		st.failures.Add(int64(failedMetrics(r)))
		prog.Add(r, st.judge.Stats().Calls)
	}
	rep, err := runner.Run(ctx, st.suite, cfg)
	prog.Finish()
	if err != nil {
		return fail(e, err)
	}
	return f.finish(e, st, rep)
}

// open reads the suite, checks its databases (a server that cannot be reached, or a
// role too privileged to run untrusted SQL as, stops the run before it starts), keeps
// the shard's cases and audits the gold queries when asked.
func (f *runFlags) open(ctx context.Context, e *env, pos []string, st *runState) error {
	for name, v := range map[string]*float64{"--threshold": &f.threshold, "--min-pass-rate": &f.minPass, "--min-score": &f.minScore} {
		if flagSet(f.fs, strings.TrimPrefix(name, "--")) {
			if err := qeval.CheckFraction(name, *v); err != nil {
				return err
			}
		}
	}
	if len(pos) != 1 {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval run takes one suite file", Hint: "qeval run examples/chinook/suite.yaml -o out/"}
	}
	// a JSONL suite is streamed: its cases are read from the file as the run walks them
	s, err := suite.Open(pos[0], suite.Options{SpiderDB: f.spiderDB, CheckMode: func(m string) error { _, err := compare.Lookup(m); return err }})
	if err != nil {
		return err
	}
	st.suite = s
	proclimit.TuneForSuite(e.getenv, s.NumCases(), f.maxRunBytes)
	// one catalog resolves every database of the run: --db names, else paths beside the suite
	st.catalog = &registry.Catalog{Dir: suite.Dir(s), Connections: f.conns.connections(), AllowPrivileged: f.unsafePriv, Now: e.clock()()}
	if err := suite.Check(ctx, s, st.catalog); err != nil {
		return err
	}
	names, err := s.Databases()
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := st.catalog.Probe(ctx, name, s.Dialect); err != nil {
			return err
		}
	}
	if st.shard, err = shard.Parse(f.shardSpec); err != nil {
		return err
	}
	if st.shard != nil {
		if f.outDir == "" && *f.files["json"] == "" {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "--shard " + st.shard.String(), Message: "a shard's report must be written for qeval merge",
				Hint: "qeval run suite.yaml --shard 1/4 -o out/shard1   (then: qeval merge out/shard* -o out/all)"}
		}
		if err := s.HoldCases(); err != nil { // a shard keeps some of the cases
			return err
		}
		st.allIDs = shard.Suite(s, st.shard)
	}
	if err := f.auditGold(ctx, e, st); err != nil {
		return err
	}
	if f.mode != "" {
		if _, err := compare.Lookup(f.mode); err != nil {
			return err
		}
	}
	if flagSet(f.fs, "fail-on") {
		s.FailOn = nil
		for _, c := range strings.Split(f.failOn, ",") {
			if c = strings.TrimSpace(c); c != "" {
				s.FailOn = append(s.FailOn, c)
			}
		}
		if err := qeval.CheckFailOn("--fail-on", s.FailOn); err != nil {
			return err
		}
	}
	return nil
}

// auditGold audits the gold queries when asked (--audit, --exclude-flagged, or the
// suite's exclude_flagged) and sets the flagged cases aside.
func (f *runFlags) auditGold(ctx context.Context, e *env, st *runState) error {
	s := st.suite
	exclude := s.ExcludeFlagged
	if flagSet(f.fs, "exclude-flagged") {
		exclude = strings.Split(f.excludeFlagged, ",")
	}
	exclude, err := audit.CheckFlags("exclude_flagged", exclude)
	if err != nil {
		return err
	}
	if !f.audit && len(exclude) == 0 {
		return nil
	}
	qt := f.timeout
	if qt <= 0 {
		qt = time.Duration(s.Timeout)
	}
	if err := s.HoldCases(); err != nil { // the audit sets some cases aside
		return err
	}
	opt := audit.Options{Limits: qeval.Limits{Timeout: qt}, Reversed: registry.ReversedOpener}
	cases := len(s.Cases) // the audit counts golds: a case may have several
	if st.audit, err = audit.Suite(ctx, s, st.catalog, exclude, opt); err != nil {
		return err
	}
	if st.audit.Excluded > 0 {
		fmt.Fprintf(e.stderr, "audit: %d of %d cases set aside (%s); the reports say which and why\n", st.audit.Excluded, cases, strings.Join(exclude, ", "))
	}
	return nil
}

// config layers the run's configuration, defaults < suite < flags, and opens what the
// run needs: the target, the judge, the gold cache and the results file.
func (f *runFlags) config(ctx context.Context, e *env, st *runState) (runner.Config, error) {
	s := st.suite
	target, err := runner.BuildTarget(s, runner.TargetFlags{Predictions: f.predictions, Command: f.targetCmd, URL: f.targetURL, Timeout: f.targetTimeout})
	if err != nil {
		return runner.Config{}, err
	}
	// Per-case warnings would break the progress bar: they go to the reports, and to
	// the terminal only with --verbose.
	level := slog.LevelError
	if f.verbose {
		level = slog.LevelWarn
	}
	st.logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	askOnMatch, err := f.layerJudge(s)
	if err != nil {
		return runner.Config{}, err
	}
	js, err := f.judge.open(ctx, e, st.logger)
	if err != nil {
		return runner.Config{}, err
	}
	st.judge = js
	st.closers = append(st.closers, js.Close)
	cfg := runner.Config{GoldCacheEpoch: f.cacheEpoch, Catalog: st.catalog, Target: target, Mode: f.mode, Concurrency: f.concurrency, QueryTimeout: f.timeout,
		MaxResultBytes: f.maxBytes, MaxRunBytes: f.maxRunBytes, Judge: js.Judge, JudgeOnExecMatch: askOnMatch, JudgeSkipped: js.Skipped,
		JudgeStats: js.Stats, Version: version, Logger: st.logger, Now: e.clock()}
	if s.Verify {
		mode := cmp.Or(f.mode, s.Mode, qeval.DefaultMode)
		v, err := registry.NewVerifier(qeval.VerifierConfig{Mode: mode, Timeout: f.timeout, Out: verifyOut(f.outDir)})
		if err != nil {
			return runner.Config{}, err
		}
		st.closers = append(st.closers, func() { v.Close() })
		cfg.Verifier = v
	}
	if strings.EqualFold(s.Dialect, qeval.DialectMalloy) {
		mc := registry.MalloyCompiler(func(msg string) { fmt.Fprintln(e.stderr, msg) })
		st.closers = append(st.closers, func() { mc.Close() })
		cfg.Malloy = mc
	}
	if f.goldCache {
		c, closers, err := f.judge.openGoldCache(ctx, e, st.logger)
		if err != nil {
			return runner.Config{}, err
		}
		st.closers = append(st.closers, func() {
			for _, cl := range closers {
				cl.Close()
			}
		})
		cfg.GoldCache = c
	}
	if js.Judge != nil {
		cfg.JudgeInfo = f.judgeInfo(js, askOnMatch)
	}
	if f.threshold >= 0 {
		cfg.Threshold = &f.threshold
	}
	// everything written or printed is masked: the judge's key, the DSNs' passwords
	st.secrets = append(append(qeval.Secrets{}, js.Secrets...), st.catalog.Secrets()...)
	if err := f.openResults(e, st, &cfg); err != nil {
		return runner.Config{}, err
	}
	return cfg, nil
}

// layerJudge takes the suite's judge settings where no flag names them, and says
// whether the judge is asked about cases whose execution matched.
func (f *runFlags) layerJudge(s *qeval.Suite) (bool, error) {
	jf, fs := f.judge, f.fs
	suiteOnMatch := ""
	if j := s.Judge; j != nil {
		if j.Provider != "" && !flagSet(fs, "judge") {
			jf.provider, jf.chosen = j.Provider, true
			if j.Model != "" && !flagSet(fs, "model") {
				jf.model = j.Model
			}
			if j.BaseURL != "" && !flagSet(fs, "judge-base-url") {
				jf.baseURL = j.BaseURL
			}
		}
		suiteOnMatch = j.OnExecMatch
		if j.Samples > 0 && !flagSet(fs, "judge-samples") {
			jf.samples = j.Samples
		}
		if len(j.Panel) > 0 && !flagSet(fs, "judge-panel") {
			jf.panel = strings.Join(j.Panel, ",")
		}
		if j.Temperature != nil && !flagSet(fs, "judge-temperature") {
			jf.temperature = *j.Temperature
		}
	}
	return jf.askOnExecMatch(suiteOnMatch, flagSet(fs, "judge-on-exec-match"))
}

// judgeInfo is what the report records of the judge.
func (f *runFlags) judgeInfo(js *registry.JudgeSetup, askOnMatch bool) *qeval.JudgeInfo {
	jf := f.judge
	info := &qeval.JudgeInfo{Provider: js.Provider, Model: js.Model, PromptVersion: judge.PromptVersions(), Temperature: jf.temperature,
		OnExecMatch: map[bool]string{true: qeval.OnExecMatchAsk, false: qeval.OnExecMatchSkip}[askOnMatch]}
	if jf.samples > 1 {
		info.Samples = jf.samples
	}
	for _, m := range strings.Split(jf.panel, ",") {
		if m = strings.TrimSpace(m); m != "" {
			info.Panel = append(info.Panel, m)
		}
	}
	return info
}

// openResults opens the results file the cases go to as they finish: --results, the
// resumed file, DIR/results.jsonl with -o, else a scratch file removed at the end (the
// reports read the cases back from it, not from memory).
func (f *runFlags) openResults(e *env, st *runState, cfg *runner.Config) error {
	if f.resume != "" {
		loaded, err := runner.LoadResults(f.resume)
		if err != nil {
			return err
		}
		st.loaded, cfg.Done = loaded, loaded.Done
		if f.resultsPath == "" {
			f.resultsPath = f.resume
		}
		if loaded.TornLine > 0 {
			fmt.Fprintf(e.stderr, "resume: line %d of %s was cut short by the interrupted run; it is dropped and its case runs again\n", loaded.TornLine, f.resume)
		}
	}
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + f.outDir, Message: err.Error()}
		}
		if f.resultsPath == "" {
			f.resultsPath = filepath.Join(f.outDir, "results.jsonl")
			if f.resume == "" {
				os.Remove(f.resultsPath) // a new run starts a new results file
			}
		}
	}
	if f.resultsPath == "" {
		scratch, remove, err := runner.ScratchResults(st.secrets)
		if err != nil {
			return err
		}
		st.closers = append(st.closers, remove)
		cfg.Store = scratch
		return nil
	}
	var results *runner.ResultsWriter
	var err error
	if st.loaded != nil && f.resultsPath == f.resume {
		results, err = runner.ResumeResults(f.resultsPath, st.loaded)
	} else {
		results, err = runner.CreateResults(f.resultsPath)
	}
	if err != nil {
		return err
	}
	results.Secrets = st.secrets
	st.closers = append(st.closers, func() { results.Close(); results.CloseRead() })
	cfg.Store = results
	return nil
}

// finish writes the reports and the shard's manifest, prints the summary, and says how
// the run ended: incomplete, interrupted, or by its gates.
func (f *runFlags) finish(e *env, st *runState, rep *qeval.Report) int {
	if f.resume != "" {
		rep.Run.ResumedFrom = f.resume
	}
	rep.Audit = st.audit
	rep, err := report.Mask(rep, st.secrets)
	if err != nil {
		return fail(e, err)
	}
	written, err := f.writeReports(st, rep)
	if err != nil {
		return fail(e, err)
	}
	report.Text{}.Write(e.stdout, rep)
	if n := st.failures.Load(); n > 0 && !f.verbose {
		fmt.Fprintf(e.stderr, "%d metric computations failed (scored 0); the reports say which and why (--verbose logs them as they happen)\n", n)
	}
	if f.resultsPath != "" {
		written = append(written, f.resultsPath)
	}
	if len(written) > 0 {
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if slices.Contains(rep.Run.FailOn, "judge-errors") && rep.Summary.JudgeErrors > 0 && !rep.Run.Interrupted {
		return gates(e, rep, f.minPass, f.minScore)
	}
	if n := rep.Summary.JudgeErrors; n > 0 && !rep.Run.Interrupted {
		fmt.Fprintf(e.stderr, "incomplete: the LLM judge failed on %d cases (their judged components were skipped)", n)
		if f.resultsPath != "" {
			fmt.Fprintf(e.stderr, "; ask again for those only with --resume %s", f.resultsPath)
		}
		fmt.Fprintln(e.stderr)
		return exitFailed
	}
	if rep.Run.Interrupted {
		if rep.Run.StoppedBy != "" {
			fmt.Fprintf(e.stderr, "error: %s\n", rep.Run.StoppedBy)
		}
		fmt.Fprintf(e.stderr, "interrupted: %d of %d cases finished; the reports cover them", len(rep.Cases), st.suite.NumCases())
		if f.resultsPath != "" {
			fmt.Fprintf(e.stderr, " (continue with --resume %s)", f.resultsPath)
		}
		fmt.Fprintln(e.stderr)
		return exitFailed
	}
	return gates(e, rep, f.minPass, f.minScore)
}

// writeReports writes every report asked for (-o, --json FILE, …) and a shard's
// manifest.
func (f *runFlags) writeReports(st *runState, rep *qeval.Report) ([]string, error) {
	targets := map[string]string{}
	if f.outDir != "" {
		for _, name := range registry.WriterNames() {
			w, _ := registry.NewWriter(name)
			targets[name] = filepath.Join(f.outDir, w.FileName())
		}
	}
	for name, p := range f.files {
		if *p != "" {
			targets[name] = *p
		}
	}
	written := make([]string, 0, len(targets))
	for _, name := range registry.WriterNames() {
		path, ok := targets[name]
		if !ok {
			continue
		}
		if err := writeReportFile(name, path, rep); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	if st.shard != nil {
		jsonPath := targets["json"]
		m := shard.Manifest{Kind: "run", Shard: st.shard.String(), Items: len(st.allIDs), Gold: st.suite.Path, Mode: rep.Run.Mode, Version: version,
			WallMS: rep.Run.DurationMS, CaseIDs: st.allIDs}
		if err := shard.WriteManifest(jsonPath, m); err != nil {
			return written, err
		}
		written = append(written, shard.ManifestPath(jsonPath))
	}
	return written, nil
}

// failedMetrics counts the metrics that failed on a case (a generated query that does
// not parse is the model's failure, not a metric's).
func failedMetrics(c qeval.CaseResult) int {
	n := 0
	for _, m := range c.Metrics {
		if m.Error != nil && !m.Error.GeneratedQuery {
			n++
		}
	}
	return n
}

// gates prints why the run fails its gates (qeval.GateFailures) and exits 3 if it does.
func gates(e *env, rep *qeval.Report, minPass, minScore float64) int {
	why := qeval.GateFailures(rep, minPass, minScore)
	for _, w := range why {
		fmt.Fprintf(e.stderr, "gate failed: %s\n", w)
	}
	if len(why) > 0 {
		return exitThreshold
	}
	return exitOK
}

// writeReportFile writes a report to a temporary file beside path and renames it into
// place: a report is whole or absent, never half-written (issue 22: a run out of memory
// in the encoder left a 0-byte report.json).
func writeReportFile(name, path string, rep *qeval.Report) error {
	w, err := registry.NewWriter(name)
	if err != nil {
		return err
	}
	return report.WriteFile(w, path, rep)
}

// flagSet reports whether a flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// verifyOut is where a verified suite's counterexamples go: beside the reports.
func verifyOut(outDir string) string {
	if outDir == "" {
		return ""
	}
	return filepath.Join(outDir, "counterexamples")
}
