package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/registry"
)

// judgeFlags are the LLM judge's flags, shared by 'qeval judge' and 'qeval score'.
type judgeFlags struct {
	fs          *flag.FlagSet // where the flags were parsed (nil: built in code)
	chosen      bool          // the provider was named (a suite's judge.provider)
	provider    string
	model       string
	baseURL     string
	timeout     time.Duration
	concurrency int
	cacheDir    string
	cacheURL    string
	cacheKey    string // --cache-key, else $QEVAL_CACHE_KEY: authenticates the shared cache's entries
	warnedKey   bool   // the shared cache's entries were said to be unauthenticated
	noCache     bool
	cacheTTL    time.Duration
	temperature float64
	onExecMatch string
	samples     int
	panel       string
}

// askOnExecMatch reads --judge-on-exec-match (else the suite's judge.on_exec_match).
func (f *judgeFlags) askOnExecMatch(suiteValue string, flagGiven bool) (bool, error) {
	v := f.onExecMatch
	if !flagGiven && suiteValue != "" {
		v = suiteValue
	}
	switch v {
	case qeval.OnExecMatchAsk:
		return true, nil
	case qeval.OnExecMatchSkip, "":
		return false, nil
	}
	return false, &qeval.Error{Code: qeval.CodeInvalid, Op: "judge.on_exec_match", Message: fmt.Sprintf("%q is neither ask nor skip", v),
		Hint: "ask: the judge grades every case; skip: a case whose execution matched is correct without a call"}
}

// addJudgeFlags registers the judge's flags on fs; defaultProvider is the --judge default
// ("none" leaves the judge off unless asked for).
func addJudgeFlags(fs *flag.FlagSet, defaultProvider string) *judgeFlags {
	f := &judgeFlags{fs: fs}
	fs.StringVar(&f.provider, "judge", defaultProvider, "LLM judge provider: "+strings.Join(registry.ProviderNames(), ", ")+", or none")
	fs.StringVar(&f.model, "model", "", "judge model (default: the provider's; required for openai-compatible); without --judge, a claude-… model is Anthropic's, a gpt-… or o-series one OpenAI's")
	fs.StringVar(&f.baseURL, "judge-base-url", "", "judge API base URL (default: ANTHROPIC_BASE_URL or OPENAI_BASE_URL, else the provider's)")
	fs.DurationVar(&f.timeout, "judge-timeout", judge.DefaultCallTimeout, "deadline of each judgement, retries included: the most a verdict makes you wait")
	fs.IntVar(&f.concurrency, "judge-concurrency", judge.DefaultMaxConcurrency, "judge requests in flight at once")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "judge cache folder (default: the user cache folder/qeval)")
	fs.StringVar(&f.cacheURL, "cache", "", "a cache shared with other machines: `redis://HOST:PORT/DB` (default: only the local file in --cache-dir); if it goes away the local file is used, with a warning")
	fs.StringVar(&f.cacheKey, "cache-key", "", "a secret (16+ characters) that authenticates the entries of the shared --cache: each is stored with an HMAC-SHA256 tag, and one without a right tag is ignored (default: $QEVAL_CACHE_KEY, which keeps it out of process listings); give every replica and shard the same")
	fs.BoolVar(&f.noCache, "no-cache", false, "ask the judge every time; read and write no cache")
	fs.DurationVar(&f.cacheTTL, "cache-ttl", cache.DefaultTTL, "how long a cached verdict stays valid")
	fs.StringVar(&f.onExecMatch, "judge-on-exec-match", qeval.OnExecMatchSkip, "ask the judge about cases whose execution matched (ask), or count them correct without a call (skip)")
	fs.IntVar(&f.samples, "judge-samples", 1, "ask the judge each question N times and keep the majority; reports show its self-consistency (N times the cost; use a --judge-temperature above 0)")
	fs.StringVar(&f.panel, "judge-panel", "", "other judge models asked the same questions (comma-separated MODEL or PROVIDER:MODEL); reports show their agreement with the first judge (Cohen's κ)")
	fs.Float64Var(&f.temperature, "judge-temperature", 0, "sampling temperature of the judge (0: the same question gets the same verdict; not sent to OpenAI reasoning models, which accept only their default)")
	return f
}

// judgeSetup is a judge ready for a run, or the reason there is none.
type judgeSetup struct {
	Judge    qeval.Judge // nil when Skipped is set
	Skipped  string      // why judge metrics are skipped
	Provider string
	Model    string
	stats    func() qeval.JudgeStats
	store    qeval.Cache
	closers  []io.Closer
	// Secrets are the judge's API key (masked in every output).
	Secrets qeval.Secrets
}

// Stats returns what the judge did (zero without a judge).
func (s *judgeSetup) Stats() qeval.JudgeStats {
	if s.stats == nil {
		return qeval.JudgeStats{}
	}
	return s.stats()
}

// Close closes the cache.
func (s *judgeSetup) Close() {
	for _, c := range s.closers {
		c.Close()
	}
}

// open builds the judge from the flags and the environment. A missing API key or
// --judge none is not an error: the setup says the judge is skipped and why. An
// unknown provider or an incomplete openai-compatible configuration is an error.
func (f *judgeFlags) open(ctx context.Context, e *env, logger *slog.Logger) (*judgeSetup, error) {
	if err := f.resolveCacheKey(e.getenv); err != nil {
		return nil, err
	}
	if !f.chosen && (f.fs == nil || !flagSet(f.fs, "judge")) && f.model != "" {
		// --model gpt-4o-mini without --judge: the provider that serves the model
		if p, ok := registry.ProviderForModel(f.model); ok {
			f.provider = p
		}
	}
	s := &judgeSetup{Provider: f.provider}
	if f.provider == "" || f.provider == "none" {
		s.Skipped = "no LLM judge configured (--judge none)"
		return s, nil
	}
	if f.timeout <= 0 || f.concurrency <= 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--judge-timeout and --judge-concurrency must be positive"}
	}
	cfg, err := registry.ResolveProvider(f.provider, registry.ProviderConfig{Model: f.model, BaseURL: f.baseURL, Getenv: e.getenv})
	if err != nil {
		return nil, err
	}
	s.Model = cfg.Model
	c, err := registry.NewCompleter(f.provider, cfg)
	if errors.Is(err, qeval.ErrNoAPIKey) {
		s.Skipped = "no LLM judge: " + qeval.ErrorMessage(err)
		if h := qeval.ErrorHint(err); h != "" {
			s.Skipped += " (" + h + ")"
		}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	s.Secrets = qeval.Secrets{cfg.APIKey}
	j := judge.New(c, judge.Config{Provider: f.provider, Model: cfg.Model, CallTimeout: f.timeout,
		MaxConcurrency: f.concurrency, Logger: logger, Secrets: s.Secrets, Temperature: &f.temperature})
	s.Judge, s.stats = j, j.Stats
	if f.noCache {
		// no disk cache; identical questions within the run are still asked once
		s.store = cache.Memory(cache.Options{TTL: f.cacheTTL})
	} else {
		s.store, s.closers = f.openCache(ctx, logger, false)
	}
	cj := judge.Cached(j, s.store)
	s.Judge, s.stats = cj, cj.Stats
	if f.samples > 1 {
		if f.temperature == 0 {
			logger.Warn("--judge-samples with --judge-temperature 0: the samples will mostly repeat one answer")
		}
		s.Judge = judge.Sampled(cj, f.samples)
	}
	if strings.TrimSpace(f.panel) == "" {
		return s, nil
	}
	stats := []func() qeval.JudgeStats{cj.Stats}
	var members []qeval.Judge
	for _, spec := range strings.Split(f.panel, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		prov, model, ok := strings.Cut(spec, ":")
		if !ok {
			model = spec
			if prov, ok = registry.ProviderForModel(model); !ok {
				prov = f.provider
			}
		}
		pcfg := registry.ProviderConfig{Model: model, Getenv: e.getenv}
		if prov == f.provider {
			pcfg.BaseURL = f.baseURL
		}
		rc, err := registry.ResolveProvider(prov, pcfg)
		if err != nil {
			return nil, err
		}
		c, err := registry.NewCompleter(prov, rc)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.ErrorCode(err), Op: "--judge-panel " + spec, Message: qeval.ErrorMessage(err), Hint: qeval.ErrorHint(err), Err: err}
		}
		s.Secrets = append(s.Secrets, rc.APIKey)
		pc := judge.Cached(judge.New(c, judge.Config{Provider: prov, Model: rc.Model, CallTimeout: f.timeout,
			MaxConcurrency: f.concurrency, Logger: logger, Secrets: s.Secrets, Temperature: &f.temperature}), s.store)
		members = append(members, pc)
		stats = append(stats, pc.Stats)
	}
	s.Judge = judge.Panel(s.Judge, members...)
	s.stats = func() qeval.JudgeStats {
		var t qeval.JudgeStats
		for _, st := range stats {
			x := st()
			t.Calls += x.Calls
			t.CacheHits += x.CacheHits
			t.InputTokens += x.InputTokens
			t.OutputTokens += x.OutputTokens
			t.Errors += x.Errors
			t.Timeouts += x.Timeouts
		}
		return t
	}
	return s, nil
}

// resolveCacheKey takes the cache key from $QEVAL_CACHE_KEY when --cache-key is not
// given, and refuses one too short to be a secret.
func (f *judgeFlags) resolveCacheKey(getenv func(string) string) error {
	if f.cacheKey == "" && getenv != nil {
		f.cacheKey = getenv("QEVAL_CACHE_KEY")
	}
	if f.cacheKey != "" && len(f.cacheKey) < cache.MinKeyBytes {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "--cache-key (or QEVAL_CACHE_KEY): " + cache.ErrShortKey.Error(),
			Hint: "make one with: openssl rand -hex 32"}
	}
	return nil
}

// openCache opens the local cache file (or, when it cannot be opened, warns and
// keeps the cache in memory) and, with --cache, the shared cache in front of it.
// noMemory keeps no copy of the file's entries in memory (the gold results have
// their own bounded memory cache).
func (f *judgeFlags) openCache(ctx context.Context, logger *slog.Logger, noMemory bool) (qeval.Cache, []io.Closer) {
	opt := cache.Options{TTL: f.cacheTTL, NoMemory: noMemory}
	var local *cache.Store
	dir := f.cacheDir
	if dir == "" {
		if d, err := cache.DefaultDir(); err != nil {
			logger.Warn("cache kept in memory only", "err", err)
		} else {
			dir = d
		}
	}
	if dir != "" {
		s, err := cache.Open(ctx, dir, opt)
		if err != nil {
			logger.Warn("cache kept in memory only", "err", err)
		}
		local = s
	}
	if local == nil {
		opt.NoMemory = false
		local = cache.Memory(opt)
	}
	closers := []io.Closer{local}
	if f.cacheURL == "" {
		return local, closers
	}
	r, err := cache.OpenRedis(ctx, f.cacheURL, opt)
	if err != nil {
		logger.Warn("the shared cache is not used; the local cache file is", "err", qeval.ErrorMessage(err))
		return local, closers
	}
	var shared qeval.Cache = r
	if f.cacheKey != "" {
		shared = &cache.Sealed{Cache: r, Key: []byte(f.cacheKey), Reject: func(key string, n int64) {
			if n&(n-1) == 0 { // the 1st, 2nd, 4th, 8th…
				logger.Warn("a shared cache entry failed authentication and was ignored: written without this --cache-key, under another key, or altered",
					"key", key, "rejected", n)
			}
		}}
	} else if !f.warnedKey {
		f.warnedKey = true
		logger.Warn("the shared cache's entries are not authenticated: whoever can write to " + r.Target() +
			" chooses the cached verdicts and gold results; give every replica --cache-key or QEVAL_CACHE_KEY")
	}
	fb := &cache.Fallback{Shared: shared, Local: local, Warn: func(err error) {
		logger.Warn("the shared cache failed; the local cache file is used until it answers again", "err", err)
	}}
	return fb, append(closers, r)
}

// openGoldCache is the shared store of gold results (nil with --no-cache: gold
// results are then kept in this process's memory only).
func (f *judgeFlags) openGoldCache(ctx context.Context, logger *slog.Logger) (qeval.Cache, []io.Closer) {
	if f.noCache {
		return nil, nil
	}
	return f.openCache(ctx, logger, true)
}

// judgeOutput is what 'qeval judge --json' prints.
type judgeOutput struct {
	Score         *float64          `json:"score"`
	Verdict       string            `json:"verdict,omitempty"`
	Reasoning     string            `json:"reasoning"`
	Cached        bool              `json:"cached"`
	LLMCalled     bool              `json:"llm_called"`
	Error         *judgeOutputError `json:"error"`
	Skipped       *string           `json:"skipped"`
	Provider      string            `json:"provider"`
	Model         string            `json:"model"`
	PromptVersion string            `json:"prompt_version"`
	LatencyMS     float64           `json:"latency_ms"`
	Stats         qeval.JudgeStats  `json:"stats"`
}

type judgeOutputError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// cmdJudge asks the LLM judge about one generated query. Without an API key it prints
// that the judge is skipped and why ("skipped" in JSON, score null) and exits 0: a
// missing key is a configuration of the run, not a failure. A judge that fails
// (timeout, provider gave up, malformed reply) prints score 0 with the error and
// exits 1.
func cmdJudge(ctx context.Context, args []string, e *env) int {
	fs := newFlags("judge", "--generated SQL --expected SQL [--question TEXT] [--dialect D] [flags]", e)
	generated := fs.String("generated", "", "the generated query (required)")
	expected := fs.String("expected", "", "the expected (gold) query (required)")
	question := fs.String("question", "", "the question both queries answer")
	dialect := fs.String("dialect", "sqlite", "query language: sqlite, postgres, mysql, kql, ...")
	schema := fs.String("schema", "", "the database schema as DDL")
	task := fs.String("task", string(qeval.TaskQueryCorrectness), "what to ask: query_correctness (correct, partially_correct, incorrect) or llm_grading (a score in [0,1])")
	jsonOut := fs.Bool("json", false, "print the verdict as JSON")
	jf := addJudgeFlags(fs, registry.DefaultProvider)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0)),
			Hint: "quote each query: qeval judge --generated 'SELECT ...' --expected 'SELECT ...'"})
	}
	if strings.TrimSpace(*generated) == "" || strings.TrimSpace(*expected) == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --generated or --expected",
			Hint: "qeval judge --generated 'SELECT name FROM users' --expected 'SELECT u.name FROM users u'"})
	}
	version, err := judge.PromptVersion(qeval.JudgeTask(*task))
	if err != nil {
		return fail(e, err)
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	setup, err := jf.open(ctx, e, logger)
	if err != nil {
		return fail(e, err)
	}
	defer setup.Close()

	in := qeval.JudgeInput{Question: *question, Generated: *generated, Expected: *expected, Dialect: *dialect, Schema: *schema}
	opt := metric.JudgeOptions{NoJudgeReason: setup.Skipped}
	start := time.Now()
	var r metric.Result
	if qeval.JudgeTask(*task) == qeval.TaskLLMGrading {
		r = metric.LLMGrading(ctx, setup.Judge, in, opt)
	} else {
		r = metric.QueryCorrectness(ctx, setup.Judge, in, opt)
	}
	out := judgeOutput{Score: r.Score, Skipped: r.Skipped, Provider: setup.Provider, Model: setup.Model,
		PromptVersion: version, LatencyMS: float64(time.Since(start).Microseconds()) / 1000, Stats: setup.Stats()}
	out.Verdict, _ = r.Details["verdict"].(string)
	out.Reasoning, _ = r.Details["reasoning"].(string)
	out.Cached, _ = r.Details["cached"].(bool)
	out.LLMCalled, _ = r.Details["llm_called"].(bool)
	if r.Error != nil {
		out.Error = &judgeOutputError{Message: r.Error.Message}
		out.Error.Code, _ = r.Details["error_code"].(string)
		out.Error.Hint, _ = r.Details["hint"].(string)
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fail(e, err)
		}
	} else {
		printVerdict(e.stdout, &out)
	}
	switch {
	case out.Skipped != nil && out.Score == nil:
		// no verdict: nothing was judged (no key, no provider)
		if !*jsonOut {
			fmt.Fprintf(e.stderr, "error: no verdict: %s\n", *out.Skipped)
		}
		return exitFailed
	case out.Error != nil:
		if !*jsonOut {
			fmt.Fprintf(e.stderr, "error: %s\n", out.Error.Message)
			if out.Error.Hint != "" {
				fmt.Fprintf(e.stderr, "hint: %s\n", out.Error.Hint)
			}
		}
		return exitFailed
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "error: interrupted")
		return exitFailed
	}
	return exitOK
}

func printVerdict(w io.Writer, o *judgeOutput) {
	if o.Skipped != nil {
		fmt.Fprintf(w, "skipped:   %s\n", *o.Skipped)
		return
	}
	if o.Verdict != "" {
		fmt.Fprintf(w, "verdict:   %s\n", o.Verdict)
	}
	fmt.Fprintf(w, "score:     %g\n", *o.Score)
	if o.Error != nil {
		fmt.Fprintf(w, "error:     %s\n", o.Error.Message)
	} else {
		fmt.Fprintf(w, "reasoning: %s\n", o.Reasoning)
	}
	from := "the model"
	switch {
	case o.Cached:
		from = "the cache"
	case !o.LLMCalled && o.Error == nil:
		from = "qeval (no model call)"
	}
	fmt.Fprintf(w, "from:      %s (%s %s, prompt %s)\n", from, o.Provider, o.Model, o.PromptVersion)
	fmt.Fprintf(w, "latency:   %s\n", time.Duration(o.LatencyMS*float64(time.Millisecond)).Round(time.Millisecond))
	fmt.Fprintf(w, "judge:     %d calls, %d cache hits, %d tokens in, %d tokens out\n",
		o.Stats.Calls, o.Stats.CacheHits, o.Stats.InputTokens, o.Stats.OutputTokens)
}
