package judge_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
)

func TestCached_SecondCallHits(t *testing.T) {
	f := &fakeCompleter{fn: reply(`{"reasoning":"Same rows.","verdict":"partially_correct"}`)}
	cj := judge.Cached(newJudge(f, judge.Config{}), cache.Memory(cache.Options{}))
	first, err := cj.Judge(context.Background(), sampleInput)
	if err != nil || first.Cached || !first.LLMCalled {
		t.Fatalf("first = %+v, %v; want a call", first, err)
	}
	second, err := cj.Judge(context.Background(), sampleInput)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || second.LLMCalled || second.Score != 0.5 || second.Verdict != "partially_correct" ||
		second.Reasoning != "Same rows." || second.PromptVersion != judge.QueryCorrectnessV1 || second.InputTokens != 0 {
		t.Errorf("second = %+v, want the first verdict from the cache", second)
	}
	if f.calls.Load() != 1 {
		t.Errorf("provider calls = %d, want 1", f.calls.Load())
	}
	if s := cj.Stats(); s.Calls != 1 || s.CacheHits != 1 || s.InputTokens != 200 {
		t.Errorf("Stats() = %+v", s)
	}
}

// The key covers the provider, the model, the prompt version and every input.
func TestCached_KeyCoversInputs(t *testing.T) {
	store := cache.Memory(cache.Options{})
	f := &fakeCompleter{fn: reply(`{"reasoning":"r","verdict":"correct","score":1}`)}
	ask := func(cfg judge.Config, in qeval.JudgeInput) {
		t.Helper()
		if _, err := judge.Cached(newJudge(f, cfg), store).Judge(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	ask(judge.Config{}, sampleInput)
	otherQuestion := sampleInput
	otherQuestion.Question = "Which singers are 30 or older?"
	grading := sampleInput
	grading.Task = qeval.TaskLLMGrading
	withResult := sampleInput
	withResult.GeneratedResult = &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}}}
	ask(judge.Config{Model: "other-model"}, sampleInput)
	ask(judge.Config{Provider: "other"}, sampleInput)
	ask(judge.Config{}, otherQuestion)
	ask(judge.Config{}, grading)
	ask(judge.Config{}, withResult)
	if f.calls.Load() != 6 {
		t.Fatalf("provider calls = %d, want 6 (every change is a miss)", f.calls.Load())
	}
	ask(judge.Config{}, otherQuestion)
	if f.calls.Load() != 6 {
		t.Errorf("provider calls = %d after a repeat, want still 6", f.calls.Load())
	}
}

func TestCached_ErrorsNotCached(t *testing.T) {
	f := &fakeCompleter{fn: func(ctx context.Context, n int, req qeval.CompletionRequest) (*qeval.Completion, error) {
		if n == 1 {
			return nil, providerErr(400, 0)
		}
		return reply(`{"reasoning":"r","verdict":"incorrect"}`)(ctx, n, req)
	}}
	cj := judge.Cached(newJudge(f, judge.Config{}), cache.Memory(cache.Options{}))
	if _, err := cj.Judge(context.Background(), sampleInput); err == nil {
		t.Fatal("first call: no error, want the 400")
	}
	v, err := cj.Judge(context.Background(), sampleInput)
	if err != nil || v.Cached || f.calls.Load() != 2 {
		t.Fatalf("second = %+v, %v after %d calls; want a fresh call", v, err, f.calls.Load())
	}
}

// brokenStore fails every read and write.
type brokenStore struct{ gets, puts int }

func (b *brokenStore) Get(context.Context, string) ([]byte, bool, error) {
	b.gets++
	return nil, false, errors.New("disk I/O error")
}

func (b *brokenStore) Put(context.Context, string, []byte) error {
	b.puts++
	return errors.New("disk full")
}

func TestCached_BrokenStore(t *testing.T) {
	var logs bytes.Buffer
	f := &fakeCompleter{fn: reply(`{"reasoning":"r","verdict":"correct"}`)}
	store := &brokenStore{}
	cj := judge.Cached(newJudge(f, judge.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}), store)
	v, err := cj.Judge(context.Background(), sampleInput)
	if err != nil || v.Score != 1 || f.calls.Load() != 1 || store.gets != 1 || store.puts != 1 {
		t.Fatalf("Judge = %+v, %v (calls %d, gets %d, puts %d); want the judge to run", v, err, f.calls.Load(), store.gets, store.puts)
	}
	for _, want := range []string{"judge cache cannot be read", "disk I/O error", "judge cache cannot be written", "disk full"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// corruptStore returns bytes that are not a cached verdict.
type corruptStore struct{ puts int }

func (c *corruptStore) Get(context.Context, string) ([]byte, bool, error) {
	return []byte(`{"v":1,"score":`), true, nil
}

func (c *corruptStore) Put(context.Context, string, []byte) error { c.puts++; return nil }

func TestCached_CorruptEntry(t *testing.T) {
	var logs bytes.Buffer
	f := &fakeCompleter{fn: reply(`{"reasoning":"r","verdict":"correct"}`)}
	store := &corruptStore{}
	cj := judge.Cached(newJudge(f, judge.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}), store)
	v, err := cj.Judge(context.Background(), sampleInput)
	if err != nil || v.Cached || f.calls.Load() != 1 || store.puts != 1 {
		t.Fatalf("Judge = %+v, %v; want a fresh call that replaces the entry", v, err)
	}
	if !strings.Contains(logs.String(), "does not decode") {
		t.Errorf("log = %q", logs.String())
	}
}

// MC-REQ-06: a cache hit returns in well under 100µs (the seed asks for 10ms).
func BenchmarkCached_HitMemory(b *testing.B) {
	benchmarkHit(b, cache.Memory(cache.Options{}))
}

// A hit read from the SQLite file, as in a second process.
func BenchmarkCached_HitDisk(b *testing.B) {
	s, err := cache.Open(context.Background(), b.TempDir(), cache.Options{NoMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchmarkHit(b, s)
}

func benchmarkHit(b *testing.B, store judge.Store) {
	f := &fakeCompleter{fn: reply(`{"reasoning":"The generated query drops the filter on age.","verdict":"partially_correct"}`)}
	cj := judge.Cached(newJudge(f, judge.Config{}), store)
	ctx := context.Background()
	if _, err := cj.Judge(ctx, sampleInput); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		v, err := cj.Judge(ctx, sampleInput)
		if err != nil || !v.Cached {
			b.Fatalf("Judge = %+v, %v; want a hit", v, err)
		}
	}
	b.StopTimer()
	if f.calls.Load() != 1 {
		b.Fatalf("provider calls = %d, want 1", f.calls.Load())
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/hit")
}

// countingStore is a store that closes all once n reads have been made.
type countingStore struct {
	qeval.Cache
	n    atomic.Int64
	want int64
	all  chan struct{}
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, ok, err := s.Cache.Get(ctx, key)
	if s.n.Add(1) == s.want {
		close(s.all)
	}
	return b, ok, err
}

// Identical questions asked at the same time make one call; every caller gets the
// verdict (without coalescing, 6 identical cases at concurrency 6 made 11 calls).
// The call is held until every caller has read the cache and found nothing.
func TestCached_CoalescesInFlight(t *testing.T) {
	const n = 6
	release := make(chan struct{})
	f := &fakeCompleter{fn: func(ctx context.Context, n int, req qeval.CompletionRequest) (*qeval.Completion, error) {
		<-release
		return reply(`{"reasoning":"Same rows.","verdict":"correct"}`)(ctx, n, req)
	}}
	store := &countingStore{Cache: cache.Memory(cache.Options{}), want: n, all: make(chan struct{})}
	cj := judge.Cached(newJudge(f, judge.Config{}), store)
	var wg sync.WaitGroup
	verdicts := make([]qeval.JudgeVerdict, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i], errs[i] = cj.Judge(context.Background(), sampleInput)
		}()
	}
	<-store.all // every caller missed the cache while the first call is held
	close(release)
	wg.Wait()
	called := 0
	for i := range verdicts {
		if errs[i] != nil || verdicts[i].Score != 1 || verdicts[i].Reasoning != "Same rows." {
			t.Errorf("caller %d: %+v, %v", i, verdicts[i], errs[i])
		}
		if verdicts[i].LLMCalled {
			called++
		}
	}
	if f.calls.Load() != 1 || called != 1 {
		t.Errorf("%d provider calls, %d verdicts marked as called; want 1 and 1", f.calls.Load(), called)
	}
	if s := cj.Stats(); s.Calls != 1 || s.CacheHits != n-1 {
		t.Errorf("Stats() = %+v, want 1 call and %d hits", s, n-1)
	}
}
