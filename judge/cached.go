package judge

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
	"golang.org/x/sync/singleflight"
)

// Store keeps cached verdicts: any qeval.Cache (the SQLite file of internal/cache, or
// Redis).
type Store = qeval.Cache

// CachedJudge answers from a store what a Judge already answered. It implements
// qeval.Judge and is safe for concurrent use.
type CachedJudge struct {
	j     *Judge
	store Store
	hits  atomic.Int64
	// inflight coalesces identical questions asked at the same time: one call, every
	// caller gets its answer (without it, 6 identical cases at concurrency 6 made 11
	// calls).
	inflight singleflight.Group
}

var _ qeval.Judge = (*CachedJudge)(nil)

// Cached returns j with a cache in front. The key is the SHA-256 of provider, model,
// prompt version and the rendered request. Only successful verdicts are stored.
func Cached(j *Judge, store Store) *CachedJudge { return &CachedJudge{j: j, store: store} }

// cachedVerdict is what a cache entry holds. The format is versioned by the "v" field;
// an entry that does not decode is a miss.
type cachedVerdict struct {
	V         int     `json:"v"`
	Score     float64 `json:"score"`
	Verdict   string  `json:"verdict,omitempty"`
	Reasoning string  `json:"reasoning"`
}

// decodeVerdict reads a cache entry; an entry of another format version is a miss.
func decodeVerdict(b []byte) (cachedVerdict, bool) {
	var e cachedVerdict
	if err := json.Unmarshal(b, &e); err != nil || e.V != 1 || e.Reasoning == "" {
		return e, false
	}
	return e, true
}

// Judge returns the cached verdict for in, or asks the Judge and stores its answer.
func (c *CachedJudge) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	start := time.Now()
	j := c.j
	v := qeval.JudgeVerdict{Provider: j.provider, Model: j.model}
	p, req, key, err := j.request(in)
	if p != nil {
		v.PromptVersion = p.version
	}
	if err != nil {
		j.errs.Add(1)
		return v, err
	}
	missed := false // the store answered, without an entry
	if b, ok, err := c.store.Get(ctx, key); err != nil {
		j.log.Warn("judge cache cannot be read; asking the model", "err", err)
	} else if !ok {
		missed = true
	} else if e, ok := decodeVerdict(b); ok {
		c.hits.Add(1)
		v.Score, v.Verdict, v.Reasoning = e.Score, e.Verdict, e.Reasoning
		v.Cached = true
		v.Latency = time.Since(start)
		return v, nil
	} else {
		j.log.Warn("judge cache entry does not decode; asking the model", "key", key)
	}
	asked := false
	res, err, _ := c.inflight.Do(key, func() (any, error) {
		// An identical question may have been answered and stored between the miss above
		// and this call: asking again would pay twice for one verdict.
		if missed {
			if b, ok, err := c.store.Get(ctx, key); err == nil && ok {
				if e, ok := decodeVerdict(b); ok {
					v.Score, v.Verdict, v.Reasoning = e.Score, e.Verdict, e.Reasoning
					return v, nil
				}
			}
		}
		asked = true
		v, err := j.ask(ctx, p, req, v, start)
		if err != nil {
			return v, err
		}
		b, _ := json.Marshal(cachedVerdict{V: 1, Score: v.Score, Verdict: v.Verdict, Reasoning: v.Reasoning})
		// The verdict is paid for: keep it even if the caller's context ends now.
		if err := c.store.Put(context.WithoutCancel(ctx), key, b); err != nil {
			j.log.Warn("judge cache cannot be written; going on without", "err", err)
		}
		return v, nil
	})
	v = res.(qeval.JudgeVerdict)
	if !asked && err == nil {
		// answered by the identical question in flight: no call of its own
		c.hits.Add(1)
		v.Cached, v.LLMCalled, v.InputTokens, v.OutputTokens = true, false, 0, 0
		v.Latency = time.Since(start)
	}
	return v, err
}

// Stats returns what the judge did so far, cache hits included.
func (c *CachedJudge) Stats() qeval.JudgeStats {
	s := c.j.Stats()
	s.CacheHits = c.hits.Load()
	return s
}
