package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
)

// JudgeOptions are the LLM judge's settings (qeval's --judge… and cache flags).
type JudgeOptions struct {
	// Provider names the provider ("none" or "": no judge); InferProvider lets a
	// model's name pick its provider (--model gpt-… without --judge).
	Provider      string
	InferProvider bool
	Model         string
	BaseURL       string
	Timeout       time.Duration // the whole judgement, retries included
	Concurrency   int
	Cache         CacheOptions
	NoCache       bool // ask every time (identical questions within the run still once)
	Temperature   float64
	Samples       int    // ask each question this many times, keep the majority
	Panel         string // other judge models, MODEL or PROVIDER:MODEL, comma-separated
	Getenv        func(string) string
	Logger        *slog.Logger
}

// CacheOptions are the cache's settings: the local file's folder (the user cache
// folder when ""), a shared Redis URL, the key that authenticates its entries and how
// long an entry stays valid.
type CacheOptions struct {
	Dir, URL, Key string
	TTL           time.Duration
}

// warnedKey is set once unauthenticated shared entries were warned about.
var warnedKey atomic.Bool

// JudgeSetup is a judge ready for a run, or the reason there is none.
type JudgeSetup struct {
	Judge    qeval.Judge // nil when Skipped is set
	Skipped  string      // why judge metrics are skipped
	Provider string
	Model    string
	stats    func() qeval.JudgeStats
	// Store is the judge's cache (nil with no judge).
	Store   qeval.Cache
	closers []io.Closer
	// Secrets are the judge's API key (masked in every output).
	Secrets qeval.Secrets
}

// Stats returns what the judge did (zero without a judge).
func (s *JudgeSetup) Stats() qeval.JudgeStats {
	if s.stats == nil {
		return qeval.JudgeStats{}
	}
	return s.stats()
}

// Close closes the cache.
func (s *JudgeSetup) Close() {
	for _, c := range s.closers {
		c.Close()
	}
}

// OpenJudge builds the judge from its options and the environment. A missing API key
// or --judge none is not an error: the setup says the judge is skipped and why. An
// unknown provider or an incomplete openai-compatible configuration is an error.
func OpenJudge(ctx context.Context, f JudgeOptions) (*JudgeSetup, error) {
	if f.Logger == nil {
		f.Logger = slog.New(slog.DiscardHandler)
	}
	logger := f.Logger
	if err := f.Cache.ResolveKey(f.Getenv); err != nil {
		return nil, err
	}
	if f.InferProvider && f.Model != "" {
		// --model gpt-4o-mini without --judge: the provider that serves the model
		if p, ok := ProviderForModel(f.Model); ok {
			f.Provider = p
		}
	}
	s := &JudgeSetup{Provider: f.Provider}
	if f.Provider == "" || f.Provider == "none" {
		s.Skipped = "no LLM judge configured (--judge none)"
		return s, nil
	}
	if f.Timeout <= 0 || f.Concurrency <= 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--judge-timeout and --judge-concurrency must be positive"}
	}
	cfg, err := ResolveProvider(f.Provider, ProviderConfig{Model: f.Model, BaseURL: f.BaseURL, Getenv: f.Getenv})
	if err != nil {
		return nil, err
	}
	s.Model = cfg.Model
	c, err := NewCompleter(f.Provider, cfg)
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
	j := judge.New(c, judge.Config{Provider: f.Provider, Model: cfg.Model, CallTimeout: f.Timeout,
		MaxConcurrency: f.Concurrency, Logger: logger, Secrets: s.Secrets, Temperature: &f.Temperature})
	s.Judge, s.stats = j, j.Stats
	if f.NoCache {
		// no disk cache; identical questions within the run are still asked once
		s.Store = cache.Memory(cache.Options{TTL: f.Cache.TTL})
	} else {
		s.Store, s.closers = OpenCache(ctx, f.Cache, logger, false)
	}
	cj := judge.Cached(j, s.Store)
	s.Judge, s.stats = cj, cj.Stats
	if f.Samples > 1 {
		if f.Temperature == 0 {
			logger.Warn("--judge-samples with --judge-temperature 0: the samples will mostly repeat one answer")
		}
		s.Judge = judge.Sampled(cj, f.Samples)
	}
	if strings.TrimSpace(f.Panel) == "" {
		return s, nil
	}
	if err := s.addPanel(f, cj); err != nil {
		return nil, err
	}
	return s, nil
}

// addPanel adds the --judge-panel models to the judge: each asked the same questions
// through the same cache, their agreement with the first judge reported; the stats
// count every member's calls.
func (s *JudgeSetup) addPanel(f JudgeOptions, first *judge.CachedJudge) error {
	stats := []func() qeval.JudgeStats{first.Stats}
	var members []qeval.Judge
	for _, spec := range strings.Split(f.Panel, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		prov, model, ok := strings.Cut(spec, ":")
		if !ok {
			model = spec
			if prov, ok = ProviderForModel(model); !ok {
				prov = f.Provider
			}
		}
		pcfg := ProviderConfig{Model: model, Getenv: f.Getenv}
		if prov == f.Provider {
			pcfg.BaseURL = f.BaseURL
		}
		rc, err := ResolveProvider(prov, pcfg)
		if err != nil {
			return err
		}
		c, err := NewCompleter(prov, rc)
		if err != nil {
			return &qeval.Error{Code: qeval.ErrorCode(err), Op: "--judge-panel " + spec, Message: qeval.ErrorMessage(err), Hint: qeval.ErrorHint(err), Err: err}
		}
		s.Secrets = append(s.Secrets, rc.APIKey)
		pc := judge.Cached(judge.New(c, judge.Config{Provider: prov, Model: rc.Model, CallTimeout: f.Timeout,
			MaxConcurrency: f.Concurrency, Logger: f.Logger, Secrets: s.Secrets, Temperature: &f.Temperature}), s.Store)
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
	return nil
}

// ResolveKey takes the cache key from $QEVAL_CACHE_KEY when --cache-key is not given,
// and refuses one too short to be a secret.
func (f *CacheOptions) ResolveKey(getenv func(string) string) error {
	if f.Key == "" && getenv != nil {
		f.Key = getenv("QEVAL_CACHE_KEY")
	}
	if f.Key != "" && len(f.Key) < cache.MinKeyBytes {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "--cache-key (or QEVAL_CACHE_KEY): " + cache.ErrShortKey.Error(),
			Hint: "make one with: openssl rand -hex 32"}
	}
	return nil
}

// OpenCache opens the local cache file (or, when it cannot be opened, warns and keeps
// the cache in memory) and, with a URL, the shared cache in front of it. noMemory
// keeps no copy of the file's entries in memory (the gold results have their own
// bounded memory cache). The key must have been resolved (ResolveKey).
func OpenCache(ctx context.Context, f CacheOptions, logger *slog.Logger, noMemory bool) (qeval.Cache, []io.Closer) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opt := cache.Options{TTL: f.TTL, NoMemory: noMemory}
	var local *cache.Store
	dir := f.Dir
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
	if f.URL == "" {
		return local, closers
	}
	r, err := cache.OpenRedis(ctx, f.URL, opt)
	if err != nil {
		logger.Warn("the shared cache is not used; the local cache file is", "err", qeval.ErrorMessage(err))
		return local, closers
	}
	var shared qeval.Cache = r
	if f.Key != "" {
		shared = &cache.Sealed{Cache: r, Key: []byte(f.Key), Reject: func(key string, n int64) {
			if n&(n-1) == 0 { // the 1st, 2nd, 4th, 8th…
				logger.Warn("a shared cache entry failed authentication and was ignored: written without this --cache-key, under another key, or altered",
					"key", key, "rejected", n)
			}
		}}
	} else if warnedKey.CompareAndSwap(false, true) {
		logger.Warn("the shared cache's entries are not authenticated: whoever can write to " + r.Target() +
			" chooses the cached verdicts and gold results; give every replica --cache-key or QEVAL_CACHE_KEY")
	}
	fb := &cache.Fallback{Shared: shared, Local: local, Warn: func(err error) {
		logger.Warn("the shared cache failed; the local cache file is used until it answers again", "err", err)
	}}
	return fb, append(closers, r)
}

// JudgeForModel builds judges for the other models score requests name: the same
// provider, settings and cache as js, another model (whose name may pick another
// provider; the base URL of o is its own provider's only).
func JudgeForModel(o JudgeOptions, js *JudgeSetup) func(string) (qeval.Judge, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return func(model string) (qeval.Judge, error) {
		provider, baseURL := o.Provider, o.BaseURL
		if p, ok := ProviderForModel(model); ok && p != o.Provider {
			provider, baseURL = p, ""
		}
		pc, err := ResolveProvider(provider, ProviderConfig{Model: model, BaseURL: baseURL, Getenv: o.Getenv})
		if err != nil {
			return nil, err
		}
		c, err := NewCompleter(provider, pc)
		if err != nil {
			return nil, fmt.Errorf("model %s is served by %s: %w", model, provider, err)
		}
		temperature := o.Temperature
		j := judge.New(c, judge.Config{Provider: provider, Model: pc.Model, CallTimeout: o.Timeout,
			MaxConcurrency: o.Concurrency, Logger: o.Logger, Temperature: &temperature})
		if js == nil || js.Store == nil {
			return j, nil
		}
		return judge.Cached(j, js.Store), nil
	}
}
