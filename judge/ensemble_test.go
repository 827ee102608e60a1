package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
)

// scripted answers call n (1-based) with verdicts[(n-1) % len].
func scripted(verdicts ...string) func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
	return func(_ context.Context, n int, _ qeval.CompletionRequest) (*qeval.Completion, error) {
		v := verdicts[(n-1)%len(verdicts)]
		in, _ := json.Marshal(map[string]string{"reasoning": "sample says " + v, "verdict": v})
		return &qeval.Completion{ToolInput: in, InputTokens: 10, OutputTokens: 2, Model: "fake-1"}, nil
	}
}

// TestSampled_MajorityAndCache: three samples, two say incorrect: the majority is
// incorrect, agreement 2/3, spread 1; each sample has its own cache entry, so a second
// ask is answered from the cache without a call and gives the same majority.
func TestSampled_MajorityAndCache(t *testing.T) {
	f := &fakeCompleter{fn: scripted("incorrect", "correct", "incorrect")}
	store := cache.Memory(cache.Options{})
	j := judge.Sampled(judge.Cached(newJudge(f, judge.Config{}), store), 3)
	v, err := j.Judge(context.Background(), sampleInput)
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != qeval.JudgeIncorrect || v.Samples == nil || v.Samples.N != 3 || v.Samples.Spread != 1 ||
		v.Samples.Agreement < 0.66 || v.Samples.Agreement > 0.67 || !strings.Contains(v.Reasoning, "incorrect") {
		t.Fatalf("verdict %+v samples %+v", v, v.Samples)
	}
	if f.calls.Load() != 3 || v.InputTokens != 30 {
		t.Errorf("%d calls, %d tokens in: want 3 samples asked", f.calls.Load(), v.InputTokens)
	}
	w, err := j.Judge(context.Background(), sampleInput)
	if err != nil || f.calls.Load() != 3 || !w.Cached || w.Verdict != v.Verdict || w.Samples.Agreement != v.Samples.Agreement {
		t.Errorf("second ask: %d calls, %+v, %v: want every sample from the cache", f.calls.Load(), w, err)
	}
	// sample 0 shares its entry with an unsampled question: turning sampling on keeps the cache
	if _, err := judge.Cached(newJudge(f, judge.Config{}), store).Judge(context.Background(), sampleInput); err != nil || f.calls.Load() != 3 {
		t.Errorf("unsampled ask after sampling: %d calls, %v", f.calls.Load(), err)
	}
}

// TestSampled_TieGoesToLowerScore: with two samples split, the majority is the lower.
func TestSampled_TieGoesToLowerScore(t *testing.T) {
	f := &fakeCompleter{fn: scripted("correct", "partially_correct")}
	v, err := judge.Sampled(newJudge(f, judge.Config{}), 2).Judge(context.Background(), sampleInput)
	if err != nil || v.Verdict != qeval.JudgePartiallyCorrect || v.Samples.Agreement != 0.5 {
		t.Fatalf("%+v %v", v, err)
	}
}

// TestSampled_FailureFailsTheAnswer: a sample that fails fails the answer.
func TestSampled_FailureFailsTheAnswer(t *testing.T) {
	f := &fakeCompleter{fn: func(_ context.Context, n int, req qeval.CompletionRequest) (*qeval.Completion, error) {
		if n == 2 {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "refused"}
		}
		return scripted("correct")(context.Background(), n, req)
	}}
	if _, err := judge.Sampled(newJudge(f, judge.Config{}), 3).Judge(context.Background(), sampleInput); err == nil {
		t.Fatal("no error with a failed sample")
	}
}

type fixed struct {
	v   qeval.JudgeVerdict
	err error
}

func (f fixed) Judge(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	return f.v, f.err
}

// TestPanel: the first judge decides; the others' answers and failures are attached.
func TestPanel(t *testing.T) {
	first := fixed{v: qeval.JudgeVerdict{Verdict: "correct", Score: 1, Model: "a"}}
	p := judge.Panel(first,
		fixed{v: qeval.JudgeVerdict{Verdict: "incorrect", Score: 0, Model: "b", Provider: "x"}},
		fixed{v: qeval.JudgeVerdict{Model: "c"}, err: errors.New("provider down")})
	v, err := p.Judge(context.Background(), sampleInput)
	if err != nil || v.Verdict != "correct" || len(v.Panel) != 2 {
		t.Fatalf("%+v %v", v, err)
	}
	if v.Panel[0].Model != "b" || v.Panel[0].Verdict != "incorrect" || v.Panel[1].Error == "" {
		t.Errorf("panel %+v", v.Panel)
	}
	if _, err := judge.Panel(fixed{err: errors.New("down")}, first).Judge(context.Background(), sampleInput); err == nil {
		t.Error("the first judge's failure is the answer's")
	}
}
