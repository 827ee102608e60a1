package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/judgeeval"
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

// options are the judge's settings as the flags give them.
func (f *judgeFlags) options(e *env, logger *slog.Logger) registry.JudgeOptions {
	return registry.JudgeOptions{Provider: f.provider, InferProvider: !f.chosen && (f.fs == nil || !flagSet(f.fs, "judge")),
		Model: f.model, BaseURL: f.baseURL, Timeout: f.timeout, Concurrency: f.concurrency,
		Cache: f.cache(), NoCache: f.noCache, Temperature: f.temperature, Samples: f.samples, Panel: f.panel,
		Getenv: e.getenv, Logger: logger}
}

// cache are the cache's settings as the flags give them.
func (f *judgeFlags) cache() registry.CacheOptions {
	return registry.CacheOptions{Dir: f.cacheDir, URL: f.cacheURL, Key: f.cacheKey, TTL: f.cacheTTL}
}

// open builds the judge from the flags and the environment (see registry.OpenJudge).
func (f *judgeFlags) open(ctx context.Context, e *env, logger *slog.Logger) (*registry.JudgeSetup, error) {
	return registry.OpenJudge(ctx, f.options(e, logger))
}

// openGoldCache is the shared store of gold results (nil with --no-cache: gold
// results are then kept in this process's memory only).
func (f *judgeFlags) openGoldCache(ctx context.Context, e *env, logger *slog.Logger) (qeval.Cache, []io.Closer, error) {
	if f.noCache {
		return nil, nil, nil
	}
	o := f.cache()
	if err := o.ResolveKey(e.getenv); err != nil {
		return nil, nil, err
	}
	c, closers := registry.OpenCache(ctx, o, logger, true)
	return c, closers, nil
}

// cmdJudge asks the LLM judge about one generated query. Without an API key it prints
// that the judge is skipped and why ("skipped" in JSON, score null) and exits 0: a
// missing key is a configuration of the run, not a failure. A judge that fails
// (timeout, provider gave up, malformed reply) prints score 0 with the error and
// exits 1.
func cmdJudge(ctx context.Context, args []string, e *env) int {
	if len(args) > 0 && args[0] == "eval" {
		return cmdJudgeEval(ctx, args[1:], e)
	}
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
	out := judgeeval.NewAnswer(r, setup.Provider, setup.Model, version, time.Since(start), setup.Stats())
	if err := out.Write(e.stdout, *jsonOut); err != nil {
		return fail(e, err)
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

// cmdJudgeEval measures the judge against labels (package judgeeval); exit 1 when it
// judged none of them.
func cmdJudgeEval(ctx context.Context, args []string, e *env) int {
	fs := newFlags("judge eval", "--labels FILE [--json] [--save-labels FILE] [judge flags]", e)
	path := fs.String("labels", "", "labels: JSON lines or CSV (question, expected, generated, database, dialect, label: correct, partially_correct or incorrect, class), or a run's results.jsonl (its cases settled by execution)")
	save := fs.String("save-labels", "", "also write the labels read (e.g. made from a run) to this file, as JSON lines")
	dialect := fs.String("dialect", "sqlite", "query language of the labels that name none")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	jf := addJudgeFlags(fs, registry.DefaultProvider)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	labels, err := judgeeval.ReadFile(*path, *save)
	if err != nil {
		return fail(e, err)
	}
	setup, err := jf.open(ctx, e, slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err == nil && setup.Skipped != "" {
		err = &qeval.Error{Code: qeval.CodeInvalid, Message: "no judge: " + setup.Skipped}
	}
	if err != nil {
		return fail(e, err)
	}
	defer setup.Close()
	res := judgeeval.Evaluate(ctx, setup.Judge, labels, judgeeval.Options{Dialect: *dialect, Concurrency: jf.concurrency})
	res.SetJudge(setup.Provider, setup.Model, setup.Stats())
	if err := res.Write(e.stdout, *jsonOut); err != nil {
		return fail(e, err)
	}
	if res.Judged == 0 {
		return exitFailed
	}
	return exitOK
}
