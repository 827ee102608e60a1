package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/suite"
)

func cmdRun(ctx context.Context, args []string, e *env) int {
	fs := newFlags("run", "SUITE [flags]", e)
	outDir := fs.String("o", "", "write report.json, report.xlsx, junit.xml, report.html, summary.md and results.jsonl to this folder")
	files := map[string]*string{}
	for _, name := range registry.WriterNames() {
		files[name] = fs.String(name, "", "write the "+name+" report to this file")
	}
	resultsPath := fs.String("results", "", "append each finished case to this JSONL file (default: DIR/results.jsonl with -o)")
	resume := fs.String("resume", "", "continue the run whose results file this is: finished cases are kept, the others run")
	predictions := fs.String("predictions", "", "take generated queries from this file (JSONL with id and query, or one query per line)")
	targetCmd := fs.String("target-command", "", "run this command per case: case JSON on stdin, {\"query\": ...} on stdout")
	targetURL := fs.String("target-url", "", "POST each case as JSON to this URL; the reply is {\"query\": ...}")
	targetTimeout := fs.Duration("target-timeout", 0, "deadline of one target call (default 60s)")
	mode := fs.String("mode", "", "comparison mode (default: the suite's, else "+qeval.DefaultMode+")")
	threshold := fs.Float64("threshold", -1, "total score a case needs to pass (default: the suite's, else 0.9)")
	concurrency := fs.Int("concurrency", 0, "cases run at once (default: the suite's, else the number of CPUs)")
	timeout := fs.Duration("timeout", 0, "deadline of each query (default: the suite's, else 30s)")
	maxBytes := fs.Int64("max-result-bytes", qeval.DefaultMaxBytes, "a query whose result (or its engine's memory for it) exceeds this many bytes is too_large")
	maxRunBytes := fs.Int64("max-run-bytes", runner.DefaultMaxRunBytes, "the results of all cases in flight together: one result may take at most this / (2 × concurrency) bytes")
	cacheEpoch := fs.String("cache-epoch", "", "with --gold-cache, a word mixed into every gold-result key: a server database (PostgreSQL, MySQL, ClickHouse) is cached by its target, not its data, so give a new one after its data changed (files are keyed by their content)")
	goldCache := fs.Bool("gold-cache", false, "keep gold results in the cache (--cache-dir, or --cache redis://…), keyed by each database's content: a second run on the same databases executes only the generated queries")
	minPass := fs.Float64("min-pass-rate", -1, "exit 3 when the pass rate is below this (0..1)")
	minScore := fs.Float64("min-score", -1, "exit 3 when the mean total score is below this (0..1)")
	quiet := fs.Bool("quiet", false, "no progress output")
	unsafePriv := fs.Bool("unsafe-allow-privileged", false, "run queries on a server even as a superuser or a role that reads server files (see qeval db setup-role)")
	verbose := fs.Bool("verbose", false, "log each failed metric as it happens (otherwise they are counted after the run and detailed in the reports)")
	shardSpec := fs.String("shard", "", "run only part I of N of the cases (`I/N`, by a hash of each case id); write the report with -o or --json and combine the parts with qeval merge")
	doAudit := fs.Bool("audit", false, "audit the gold queries first (as qeval audit does) and add the audit to the reports")
	excludeFlagged := fs.String("exclude-flagged", "", "audit the gold queries first and set aside the cases flagged with these (comma-separated, e.g. gold_fails,order_dependent; default: the suite's exclude_flagged); the reports say how many and why")
	spiderDB := fs.String("spider-db", "", "for a Spider examples file (dev.json) as SUITE: the database folder DIR/<db_id>/")
	conns := namedPaths{}
	fs.Var(conns, "db", "a database connection suites may name: `NAME=TARGET`, TARGET a DSN (postgres://…, user@tcp(host)/db), a Kusto https://cluster/db or a SQLite path (repeat)")
	jf := addJudgeFlags(fs, registry.DefaultProvider)
	pos, code := parseInterspersed(fs, args)
	if code >= 0 {
		return code
	}
	for name, v := range map[string]*float64{"--threshold": threshold, "--min-pass-rate": minPass, "--min-score": minScore} {
		if flagSet(fs, strings.TrimPrefix(name, "--")) {
			if err := qeval.CheckFraction(name, *v); err != nil {
				return fail(e, err)
			}
		}
	}
	if len(pos) != 1 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval run takes one suite file",
			Hint: "qeval run examples/chinook/suite.yaml -o out/"})
	}
	// a JSONL suite is streamed: its cases are read from the file as the run walks them
	s, err := suite.Open(pos[0], suite.Options{SpiderDB: *spiderDB, CheckMode: func(m string) error { _, err := compare.Lookup(m); return err }})
	if err != nil {
		return fail(e, err)
	}
	tuneForSuite(e.getenv, s.NumCases(), *maxRunBytes)
	// one catalog resolves every database of the run: --db names, else paths beside the suite
	catalog := &registry.Catalog{Dir: suite.Dir(s), Connections: conns, AllowPrivileged: *unsafePriv, Now: e.clock()()}
	if err := suite.Check(ctx, s, catalog); err != nil {
		return fail(e, err)
	}
	// a server that cannot be reached, or a role too privileged to run untrusted SQL
	// as, stops the run before it starts
	names, err := suiteDatabases(s)
	if err != nil {
		return fail(e, err)
	}
	for _, name := range names {
		if err := catalog.Probe(ctx, name, s.Dialect); err != nil {
			return fail(e, err)
		}
	}
	sh, err := parseShard(*shardSpec)
	if err != nil {
		return fail(e, err)
	}
	var allIDs []string
	if sh != nil {
		if *outDir == "" && *files["json"] == "" {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "--shard " + sh.String(), Message: "a shard's report must be written for qeval merge",
				Hint: "qeval run suite.yaml --shard 1/4 -o out/shard1   (then: qeval merge out/shard* -o out/all)"})
		}
		if err := s.HoldCases(); err != nil { // a shard keeps some of the cases
			return fail(e, err)
		}
		allIDs = shardSuite(s, sh)
	}
	exclude := s.ExcludeFlagged
	if flagSet(fs, "exclude-flagged") {
		exclude = strings.Split(*excludeFlagged, ",")
	}
	if exclude, err = audit.CheckFlags("exclude_flagged", exclude); err != nil {
		return fail(e, err)
	}
	var goldAudit *qeval.GoldAudit
	if *doAudit || len(exclude) > 0 {
		qt := *timeout
		if qt <= 0 {
			qt = time.Duration(s.Timeout)
		}
		opt := audit.Options{Limits: qeval.Limits{Timeout: qt}, Reversed: registry.ReversedOpener}
		if err := s.HoldCases(); err != nil { // the audit sets some cases aside
			return fail(e, err)
		}
		if goldAudit, err = audit.Suite(ctx, s, catalog, exclude, opt); err != nil {
			return fail(e, err)
		}
		if goldAudit.Excluded > 0 {
			fmt.Fprintf(e.stderr, "audit: %d of %d cases set aside (%s); the reports say which and why\n", goldAudit.Excluded, goldAudit.Total, strings.Join(exclude, ", "))
		}
	}
	if *mode != "" {
		if _, err := compare.Lookup(*mode); err != nil {
			return fail(e, err)
		}
	}
	target, err := buildTarget(s, *predictions, *targetCmd, *targetURL, *targetTimeout)
	if err != nil {
		return fail(e, err)
	}
	// Per-case warnings would break the progress bar: they go to the reports, and to
	// the terminal only with --verbose.
	level := slog.LevelError
	if *verbose {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	if s.Judge != nil && s.Judge.Provider != "" && !flagSet(fs, "judge") {
		jf.provider, jf.chosen = s.Judge.Provider, true
		if s.Judge.Model != "" && !flagSet(fs, "model") {
			jf.model = s.Judge.Model
		}
		if s.Judge.BaseURL != "" && !flagSet(fs, "judge-base-url") {
			jf.baseURL = s.Judge.BaseURL
		}
	}
	suiteOnMatch := ""
	if s.Judge != nil {
		suiteOnMatch = s.Judge.OnExecMatch
		if s.Judge.Samples > 0 && !flagSet(fs, "judge-samples") {
			jf.samples = s.Judge.Samples
		}
		if len(s.Judge.Panel) > 0 && !flagSet(fs, "judge-panel") {
			jf.panel = strings.Join(s.Judge.Panel, ",")
		}
		if s.Judge.Temperature != nil && !flagSet(fs, "judge-temperature") {
			jf.temperature = *s.Judge.Temperature
		}
	}
	askOnMatch, err := jf.askOnExecMatch(suiteOnMatch, flagSet(fs, "judge-on-exec-match"))
	if err != nil {
		return fail(e, err)
	}
	js, err := jf.open(ctx, e, logger)
	if err != nil {
		return fail(e, err)
	}
	defer js.Close()
	var sharedGold qeval.Cache
	if *goldCache {
		c, closers := jf.openGoldCache(ctx, logger)
		defer func() {
			for _, cl := range closers {
				cl.Close()
			}
		}()
		sharedGold = c
	}

	cfg := runner.Config{GoldCache: sharedGold, GoldCacheEpoch: *cacheEpoch, Catalog: catalog, Target: target, Mode: *mode, Concurrency: *concurrency, QueryTimeout: *timeout, MaxResultBytes: *maxBytes, MaxRunBytes: *maxRunBytes,
		Judge: js.Judge, JudgeOnExecMatch: askOnMatch, JudgeSkipped: js.Skipped, JudgeStats: js.Stats, Version: version, Logger: logger, Now: e.clock()}
	if js.Judge != nil {
		cfg.JudgeInfo = &qeval.JudgeInfo{Provider: js.Provider, Model: js.Model, PromptVersion: judgePromptVersions(), Temperature: jf.temperature,
			OnExecMatch: map[bool]string{true: qeval.OnExecMatchAsk, false: qeval.OnExecMatchSkip}[askOnMatch]}
		if jf.samples > 1 {
			cfg.JudgeInfo.Samples = jf.samples
		}
		for _, m := range strings.Split(jf.panel, ",") {
			if m = strings.TrimSpace(m); m != "" {
				cfg.JudgeInfo.Panel = append(cfg.JudgeInfo.Panel, m)
			}
		}
	}
	if *threshold >= 0 {
		cfg.Threshold = threshold
	}
	var loaded *runner.Results
	if *resume != "" {
		if loaded, err = runner.LoadResults(*resume); err != nil {
			return fail(e, err)
		}
		cfg.Done = loaded.Done
		if *resultsPath == "" {
			*resultsPath = *resume
		}
		if loaded.TornLine > 0 {
			fmt.Fprintf(e.stderr, "resume: line %d of %s was cut short by the interrupted run; it is dropped and its case runs again\n", loaded.TornLine, *resume)
		}
	}
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + *outDir, Message: err.Error()})
		}
		if *resultsPath == "" {
			*resultsPath = filepath.Join(*outDir, "results.jsonl")
			if *resume == "" {
				os.Remove(*resultsPath) // a new run starts a new results file
			}
		}
	}
	// everything written or printed is masked: the judge's key, the DSNs' passwords
	secrets := append(qeval.Secrets{}, js.Secrets...)
	secrets = append(secrets, catalog.Secrets()...)
	var results *runner.ResultsWriter
	if *resultsPath != "" {
		if loaded != nil && *resultsPath == *resume {
			results, err = runner.ResumeResults(*resultsPath, loaded)
		} else {
			results, err = runner.CreateResults(*resultsPath)
		}
		if err != nil {
			return fail(e, err)
		}
		results.Secrets = secrets
		defer results.Close()
		defer results.CloseRead()
		cfg.Store = results
	} else {
		// no results file asked for: the finished cases still go to disk, not memory,
		// and the reports read them back (a scratch file, removed at the end)
		scratch, err := scratchResults(secrets)
		if err != nil {
			return fail(e, err)
		}
		defer scratch.remove()
		cfg.Store = scratch.ResultsWriter
	}
	prog := newProgress(e.stderr, s.NumCases()-len(cfg.Done), *quiet)
	var metricFailures atomic.Int64 // the reports keep the cases on disk: count as they finish
	for _, c := range cfg.Done {
		metricFailures.Add(int64(failedMetrics(c)))
	}
	cfg.OnCase = func(r qeval.CaseResult) {
		metricFailures.Add(int64(failedMetrics(r)))
		prog.add(r, js.Stats().Calls)
	}
	rep, err := runner.Run(ctx, s, cfg)
	prog.finish()
	if err != nil {
		return fail(e, err)
	}
	if *resume != "" {
		rep.Run.ResumedFrom = *resume
	}
	rep.Audit = goldAudit
	if rep, err = maskReport(rep, secrets); err != nil {
		return fail(e, err)
	}
	// reports
	targets := map[string]string{}
	if *outDir != "" {
		for _, name := range registry.WriterNames() {
			w, _ := registry.NewWriter(name)
			targets[name] = filepath.Join(*outDir, w.FileName())
		}
	}
	for name, p := range files {
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
			return fail(e, err)
		}
		written = append(written, path)
	}
	if sh != nil {
		jsonPath := targets["json"]
		m := shardManifest{Kind: "run", Shard: sh.String(), Items: len(allIDs), Gold: s.Path, Mode: rep.Run.Mode, Version: version,
			WallMS: rep.Run.DurationMS, CaseIDs: allIDs}
		if err := writeManifest(jsonPath, m); err != nil {
			return fail(e, err)
		}
		written = append(written, manifestPath(jsonPath))
	}
	report.Text{}.Write(e.stdout, rep)
	if n := metricFailures.Load(); n > 0 && !*verbose {
		fmt.Fprintf(e.stderr, "%d metric computations failed (scored 0); the reports say which and why (--verbose logs them as they happen)\n", n)
	}
	if *resultsPath != "" {
		written = append(written, *resultsPath)
	}
	if len(written) > 0 {
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if n := rep.Summary.JudgeErrors; n > 0 && !rep.Run.Interrupted {
		fmt.Fprintf(e.stderr, "incomplete: the LLM judge failed on %d cases (their judged components were skipped)", n)
		if *resultsPath != "" {
			fmt.Fprintf(e.stderr, "; ask again for those only with --resume %s", *resultsPath)
		}
		fmt.Fprintln(e.stderr)
		return exitFailed
	}
	if rep.Run.Interrupted {
		if rep.Run.StoppedBy != "" {
			fmt.Fprintf(e.stderr, "error: %s\n", rep.Run.StoppedBy)
		}
		fmt.Fprintf(e.stderr, "interrupted: %d of %d cases finished; the reports cover them", len(rep.Cases), s.NumCases())
		if *resultsPath != "" {
			fmt.Fprintf(e.stderr, " (continue with --resume %s)", *resultsPath)
		}
		fmt.Fprintln(e.stderr)
		return exitFailed
	}
	return gates(e, rep, *minPass, *minScore)
}

// maskReport returns rep with every secret replaced, wherever it occurs (a judge's
// reasoning that echoes the key, an error that quotes a DSN): one masking step before
// any writer sees the report (issue 23). A report without secrets is returned as is.
func maskReport(rep *qeval.Report, secrets qeval.Secrets) (*qeval.Report, error) {
	if len(secrets) == 0 {
		return rep, nil
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return rep, nil // the writers report what cannot be encoded, naming the case
	}
	masked := secrets.MaskBytes(b)
	if bytes.Equal(masked, b) {
		return rep, nil
	}
	var out qeval.Report
	if err := json.Unmarshal(masked, &out); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "mask the report", Message: err.Error()}
	}
	out.Run.Started, out.Run.Finished = rep.Run.Started, rep.Run.Finished
	out.Store = rep.Store // its lines were masked as they were written
	return &out, nil
}

// scratch is a results file of a run that asked for none: the store its reports read.
type scratch struct {
	*runner.ResultsWriter
	path string
}

func scratchResults(secrets qeval.Secrets) (*scratch, error) {
	f, err := os.CreateTemp("", "qeval-results-*.jsonl")
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create a scratch results file", Message: err.Error(), Err: err,
			Hint: "set TMPDIR to a writable folder, or write the results with --results FILE"}
	}
	f.Close()
	w, err := runner.CreateResults(f.Name())
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	w.Secrets = secrets
	return &scratch{w, f.Name()}, nil
}

func (s *scratch) remove() {
	s.Close()
	s.CloseRead()
	os.Remove(s.path)
}

// suiteDatabases are the distinct database names of a suite.
func suiteDatabases(s *qeval.Suite) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	add(s.Database)
	err := s.EachCase(func(_ int, c qeval.Case) error { add(c.Database); return nil })
	return out, err
}

// failedMetrics counts the metrics that failed on a case.
func failedMetrics(c qeval.CaseResult) int {
	n := 0
	for _, m := range c.Metrics {
		if m.Error != nil {
			n++
		}
	}
	return n
}

func gates(e *env, rep *qeval.Report, minPass, minScore float64) int {
	failed := false
	if minPass >= 0 && rep.Summary.PassRate < minPass {
		fmt.Fprintf(e.stderr, "gate failed: pass rate %.1f%% is below --min-pass-rate %.1f%%\n", 100*rep.Summary.PassRate, 100*minPass)
		failed = true
	}
	if minScore >= 0 {
		if rep.Summary.MeanScore == nil || *rep.Summary.MeanScore < minScore {
			got := "none"
			if rep.Summary.MeanScore != nil {
				got = fmt.Sprintf("%.3f", *rep.Summary.MeanScore)
			}
			fmt.Fprintf(e.stderr, "gate failed: mean total score %s is below --min-score %.3f\n", got, minScore)
			failed = true
		}
	}
	if failed {
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
	return writeAtomically(w, name, path, rep)
}

func writeAtomically(w report.Writer, name, path string, rep *qeval.Report) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "write " + name + " report " + path, Message: err.Error(), Err: err}
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if err := w.Write(f, rep); err != nil {
		f.Close()
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + name + " report " + path, Message: err.Error(), Err: err}
	}
	if err := f.Close(); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + name + " report " + path, Message: err.Error(), Err: err}
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + name + " report " + path, Message: err.Error(), Err: err}
	}
	if err := os.Rename(tmp, path); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + name + " report " + path, Message: err.Error(), Err: err}
	}
	return nil
}

// buildTarget picks where generated queries come from: a flag (paths from the
// current folder), else the suite's target (paths from the suite's folder), else the
// cases themselves.
func buildTarget(s *qeval.Suite, predictions, command, url string, timeout time.Duration) (runner.Target, error) {
	var t qeval.Target
	dir := ""
	switch {
	case predictions != "" || command != "" || url != "":
		t = qeval.Target{Predictions: predictions, URL: url, Command: strings.Fields(command)}
		if s.Target != nil {
			t.Timeout = s.Target.Timeout
		}
	case s.Target != nil:
		t = *s.Target
		if s.Path != "" {
			dir = filepath.Dir(s.Path)
		}
	}
	if timeout > 0 {
		t.Timeout = qeval.Duration(timeout)
	}
	return runner.NewTarget(&t, dir)
}

// progress shows cases done, the pass rate so far, the ETA and judge calls: a bar
// redrawn in place on a terminal, a line every 10% (or 10 s) otherwise.
type progress struct {
	mu          sync.Mutex
	w           io.Writer
	total, done int
	passed      int
	start, last time.Time
	tty, quiet  bool
	lastPct     int
	calls       int64
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	return &progress{w: w, total: total, start: time.Now(), last: time.Now(), tty: isTerminal(w), quiet: quiet || total == 0, lastPct: -1}
}

func (p *progress) add(r qeval.CaseResult, calls int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Status == qeval.StatusPass {
		p.passed++
	}
	p.calls = calls
	if p.quiet {
		return
	}
	pct := 100 * p.done / p.total
	if p.tty {
		p.draw()
		return
	}
	if pct/10 != p.lastPct/10 || time.Since(p.last) > 10*time.Second || p.done == p.total {
		p.lastPct, p.last = pct, time.Now()
		fmt.Fprintf(p.w, "%s\n", p.line())
	}
}

func (p *progress) line() string {
	elapsed := time.Since(p.start)
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	return fmt.Sprintf("%d/%d cases, pass rate %.1f%%, ETA %s, judge calls %d", p.done, p.total,
		100*float64(p.passed)/float64(max(p.done, 1)), eta, p.calls)
}

func (p *progress) draw() {
	const width = 24
	filled := width * p.done / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %s ", strings.Repeat("█", filled), strings.Repeat("·", width-filled), p.line())
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && !p.quiet && p.done > 0 {
		fmt.Fprintln(p.w)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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

// judgePromptVersions names the prompts of both judge tasks, e.g.
// "query_correctness@1, llm_grading@1".
func judgePromptVersions() string {
	var out []string
	for _, t := range []qeval.JudgeTask{qeval.TaskQueryCorrectness, qeval.TaskLLMGrading} {
		if v, err := judge.PromptVersion(t); err == nil {
			out = append(out, v)
		}
	}
	return strings.Join(out, ", ")
}
