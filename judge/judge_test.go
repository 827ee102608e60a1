package judge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
)

// fakeCompleter answers each request with fn and records the requests.
type fakeCompleter struct {
	fn    func(ctx context.Context, n int, req qeval.CompletionRequest) (*qeval.Completion, error)
	mu    sync.Mutex
	reqs  []qeval.CompletionRequest
	calls atomic.Int64
}

func (f *fakeCompleter) Complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, error) {
	n := int(f.calls.Add(1))
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.fn(ctx, n, req)
}

func reply(toolInput string) func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
	return func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
		return &qeval.Completion{ToolInput: json.RawMessage(toolInput), InputTokens: 200, OutputTokens: 40, Model: "fake-1"}, nil
	}
}

// fast is a retry policy for tests: tiny waits.
var fast = judge.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}

func newJudge(c qeval.Completer, cfg judge.Config) *judge.Judge {
	if cfg.Provider == "" {
		cfg.Provider = "fake"
	}
	if cfg.Model == "" {
		cfg.Model = "fake-1"
	}
	if cfg.Retry == (judge.RetryPolicy{}) {
		cfg.Retry = fast
	}
	return judge.New(c, cfg)
}

var sampleInput = qeval.JudgeInput{
	Task:      qeval.TaskQueryCorrectness,
	Question:  "Which singers are older than 30?",
	Generated: "SELECT name FROM singer WHERE age > 30",
	Expected:  "SELECT s.name FROM singer AS s WHERE s.age > 30",
	Dialect:   "sqlite",
	Schema:    "CREATE TABLE singer (name TEXT, age INT);",
}

func TestJudge_Verdicts(t *testing.T) {
	for _, tt := range []struct {
		verdict string
		score   float64
	}{{"correct", 1}, {"partially_correct", 0.5}, {"incorrect", 0}, {"Partially Correct", 0.5}} {
		t.Run(tt.verdict, func(t *testing.T) {
			f := &fakeCompleter{fn: reply(`{"reasoning":"Aliases only.","verdict":"` + tt.verdict + `"}`)}
			v, err := newJudge(f, judge.Config{}).Judge(context.Background(), sampleInput)
			if err != nil {
				t.Fatal(err)
			}
			if v.Score != tt.score || v.Reasoning != "Aliases only." || !v.LLMCalled || v.Cached || v.Attempts != 1 ||
				v.InputTokens != 200 || v.OutputTokens != 40 || v.PromptVersion != judge.QueryCorrectnessV1 || v.Provider != "fake" {
				t.Errorf("verdict = %+v, want score %v", v, tt.score)
			}
			if strings.Contains(v.Verdict, " ") {
				t.Errorf("Verdict = %q, want it normalised", v.Verdict)
			}
		})
	}
}

func TestJudge_Request(t *testing.T) {
	f := &fakeCompleter{fn: reply(`{"reasoning":"r","verdict":"correct"}`)}
	in := sampleInput
	in.ExpectedResult = &qeval.ResultSet{Columns: []qeval.Column{{Name: "name"}}, Rows: [][]qeval.Value{
		{qeval.Text("Ann")}, {qeval.Text("Bob")}, {qeval.Text("Cy")}, {qeval.Text(strings.Repeat("x", 200))}, {qeval.Null}, {qeval.Text("Eve")}, {qeval.Text("Fay")},
	}}
	in.GeneratedResult = &qeval.ResultSet{Columns: []qeval.Column{{Name: "name"}}}
	if _, err := newJudge(f, judge.Config{MaxTokens: 700}).Judge(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	req := f.reqs[0]
	if req.Tool.Name != "record_verdict" || req.MaxTokens != 700 || len(req.Messages) != 1 || req.Messages[0].Role != "user" {
		t.Fatalf("request = %+v", req)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(req.Tool.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Join(schema.Required, ",") != "reasoning,verdict" || strings.Join(schema.Properties["verdict"].Enum, ",") != "correct,partially_correct,incorrect" {
		t.Errorf("tool schema = %s", req.Tool.Schema)
	}
	// The system prompt carries the four scenarios of the seed.
	for _, want := range []string{"joined in another order", "aliases", "true/false", "filter of the reference query is missing", "wrong table"} {
		if !strings.Contains(req.System, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	user := req.Messages[0].Content
	for _, want := range []string{
		"Query language: sqlite", "Which singers are older than 30?", "CREATE TABLE singer",
		"<reference_query>\nSELECT s.name FROM singer AS s WHERE s.age > 30\n</reference_query>",
		"<generated_query>\nSELECT name FROM singer WHERE age > 30\n</generated_query>",
		"name\nAnn\nBob\nCy\n" + strings.Repeat("x", 80) + "…\nNULL\n(first 5 of 7 rows)",
		"<generated_result_preview>\nname\n(no rows)\n</generated_result_preview>",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
}

func TestJudge_Grading(t *testing.T) {
	for _, tt := range []struct {
		input string
		score float64
	}{{`{"reasoning":"close","score":0.75}`, 0.75}, {`{"reasoning":"quoted","score":"0.5"}`, 0.5}, {`{"score":1,"reasoning":"same"}`, 1}} {
		f := &fakeCompleter{fn: reply(tt.input)}
		in := sampleInput
		in.Task = qeval.TaskLLMGrading
		v, err := newJudge(f, judge.Config{}).Judge(context.Background(), in)
		if err != nil || v.Score != tt.score || v.Verdict != "" || v.PromptVersion != judge.LLMGradingV1 {
			t.Errorf("grade of %s = %+v, %v; want %v", tt.input, v, err, tt.score)
		}
		if f.reqs[0].Tool.Name != "record_grade" {
			t.Errorf("tool = %q, want record_grade", f.reqs[0].Tool.Name)
		}
	}
}

func TestJudge_MalformedReply(t *testing.T) {
	tests := []struct {
		name       string
		task       qeval.JudgeTask
		completion qeval.Completion
		wantMsg    string
	}{
		{"NoToolNoText", qeval.TaskQueryCorrectness, qeval.Completion{}, "no record_verdict tool call and no text"},
		{"TextNotJSON", qeval.TaskQueryCorrectness, qeval.Completion{Text: "I think it is correct."}, `no record_verdict tool call (text: "I think it is correct.")`},
		{"NotAnObject", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`["correct"]`)}, "tool input is not a JSON object"},
		{"InvalidJSON", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning": "x", "verdict": `)}, "tool input is not a JSON object"},
		{"NoReasoning", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"verdict":"correct"}`)}, `no "reasoning"`},
		{"EmptyReasoning", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":" ","verdict":"correct"}`)}, `"reasoning" is empty`},
		{"ReasoningNotString", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":3,"verdict":"correct"}`)}, `"reasoning" is 3, want a string`},
		{"UnknownVerdict", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":"r","verdict":"mostly_correct"}`)}, `verdict "mostly_correct" is not one of correct, partially_correct, incorrect`},
		{"NoVerdict", qeval.TaskQueryCorrectness, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":"r"}`)}, `"verdict" is missing`},
		{"ScoreOutOfRange", qeval.TaskLLMGrading, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":"r","score":7}`)}, "score 7 is outside [0, 1]"},
		{"ScoreNotNumber", qeval.TaskLLMGrading, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":"r","score":"high"}`)}, `"score" is "high", want a number`},
		{"NoScore", qeval.TaskLLMGrading, qeval.Completion{ToolInput: json.RawMessage(`{"reasoning":"r"}`)}, `no "score"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
				c := tt.completion
				return &c, nil
			}}
			in := sampleInput
			in.Task = tt.task
			j := newJudge(f, judge.Config{})
			v, err := j.Judge(context.Background(), in)
			if qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "judge: fake: ") {
				t.Fatalf("error = %v, want unavailable with %q", err, tt.wantMsg)
			}
			if v.Score != 0 || v.Reasoning != "" || !v.LLMCalled || f.calls.Load() != 1 {
				t.Errorf("verdict = %+v after %d calls, want score 0 after one call (malformed replies are not retried)", v, f.calls.Load())
			}
			if s := j.Stats(); s.Errors != 1 {
				t.Errorf("Stats().Errors = %d, want 1", s.Errors)
			}
		})
	}
}

// Servers that ignore a forced tool may answer with the JSON as text.
func TestJudge_TextFallback(t *testing.T) {
	f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
		return &qeval.Completion{Text: "```json\n{\"reasoning\":\"missing filter\",\"verdict\":\"partially_correct\"}\n```"}, nil
	}}
	v, err := newJudge(f, judge.Config{}).Judge(context.Background(), sampleInput)
	if err != nil || v.Score != 0.5 || v.Reasoning != "missing filter" {
		t.Fatalf("Judge = %+v, %v; want 0.5 from the text", v, err)
	}
}

func TestJudge_BadInput(t *testing.T) {
	f := &fakeCompleter{fn: reply(`{}`)}
	j := newJudge(f, judge.Config{})
	_, err := j.Judge(context.Background(), qeval.JudgeInput{Task: "vibes", Generated: "a", Expected: "b"})
	if qeval.ErrorCode(err) != qeval.CodeInvalid || !strings.Contains(err.Error(), `unknown judge task "vibes" (known: llm_grading, query_correctness)`) {
		t.Errorf("unknown task: error = %v", err)
	}
	v, err := j.Judge(context.Background(), qeval.JudgeInput{Task: qeval.TaskQueryCorrectness, Generated: " ", Expected: ""})
	if qeval.ErrorCode(err) != qeval.CodeInvalid || !strings.Contains(err.Error(), "no generated query and no expected query") || v.LLMCalled {
		t.Errorf("empty queries: %+v, %v", v, err)
	}
	if f.calls.Load() != 0 {
		t.Errorf("calls = %d, want 0", f.calls.Load())
	}
}

func providerErr(status int, retryAfter time.Duration) error {
	pe := &qeval.ProviderError{Provider: "fake", StatusCode: status, RetryAfter: retryAfter, Message: "try again"}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: "fake", Message: pe.Status(), Err: pe}
}

func TestJudge_Retry(t *testing.T) {
	t.Run("RateLimitThenSuccess", func(t *testing.T) {
		f := &fakeCompleter{fn: func(ctx context.Context, n int, req qeval.CompletionRequest) (*qeval.Completion, error) {
			if n == 1 {
				return nil, providerErr(429, 120*time.Millisecond)
			}
			return reply(`{"reasoning":"r","verdict":"correct"}`)(ctx, n, req)
		}}
		start := time.Now()
		v, err := newJudge(f, judge.Config{}).Judge(context.Background(), sampleInput)
		if err != nil || v.Score != 1 || v.Attempts != 2 {
			t.Fatalf("Judge = %+v, %v; want 1.0 after 2 attempts", v, err)
		}
		if d := time.Since(start); d < 120*time.Millisecond {
			t.Errorf("retried after %v, want at least the 120ms of Retry-After", d)
		}
	})
	t.Run("ServerErrorGivesUp", func(t *testing.T) {
		f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			return nil, providerErr(500, 0)
		}}
		j := newJudge(f, judge.Config{Retry: judge.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}})
		v, err := j.Judge(context.Background(), sampleInput)
		if qeval.ErrorCode(err) != qeval.CodeUnavailable || f.calls.Load() != 3 || v.Attempts != 3 {
			t.Fatalf("error %v after %d calls, want unavailable after 3", err, f.calls.Load())
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "judge: fake: 500 internal server error (gave up after 3 tries in ") || !strings.HasSuffix(msg, "): try again") {
			t.Errorf("error = %q", msg)
		}
		if qeval.ErrorHint(err) == "" {
			t.Error("no hint")
		}
		var pe *qeval.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 500 {
			t.Errorf("error does not wrap the ProviderError: %#v", err)
		}
	})
	t.Run("NotRetryable", func(t *testing.T) {
		f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			return nil, providerErr(401, 0)
		}}
		_, err := newJudge(f, judge.Config{}).Judge(context.Background(), sampleInput)
		if f.calls.Load() != 1 || err.Error() != "judge: fake: 401 unauthorized: try again" {
			t.Errorf("error %q after %d calls, want one call", err, f.calls.Load())
		}
	})
	// A Retry-After past the total budget ends the retries at once instead of sleeping.
	t.Run("RetryAfterPastBudget", func(t *testing.T) {
		f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			return nil, providerErr(429, time.Hour)
		}}
		start := time.Now()
		j := newJudge(f, judge.Config{Retry: judge.RetryPolicy{BaseDelay: time.Millisecond, MaxElapsed: time.Second}})
		_, err := j.Judge(context.Background(), sampleInput)
		if f.calls.Load() != 1 || !strings.Contains(err.Error(), "429 too many requests (gave up after 1 tries in") || time.Since(start) > 500*time.Millisecond {
			t.Errorf("error %v after %d calls in %v", err, f.calls.Load(), time.Since(start))
		}
	})
	// The judge's timeout bounds the whole judgement: a retry whose wait would end past
	// it is not made (it used to be, within MaxElapsed: a 1 s timeout took 6 s).
	t.Run("RetryPastTheTimeout", func(t *testing.T) {
		f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			return nil, providerErr(503, 10*time.Second)
		}}
		j := newJudge(f, judge.Config{CallTimeout: time.Second})
		_, err := j.Judge(context.Background(), sampleInput)
		if f.calls.Load() != 1 || err == nil || !strings.Contains(err.Error(), "gave up after 1 tries") {
			t.Errorf("error %v after %d calls, want one call and no retry past the timeout", err, f.calls.Load())
		}
	})
	t.Run("CanceledWhileWaiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		f := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			cancel()
			return nil, providerErr(503, 0)
		}}
		_, err := newJudge(f, judge.Config{}).Judge(ctx, sampleInput)
		if !qeval.IsCanceled(err) || f.calls.Load() != 1 {
			t.Errorf("error %v after %d calls, want canceled after one", err, f.calls.Load())
		}
	})
}

func TestJudge_Timeout(t *testing.T) {
	var logs bytes.Buffer
	f := &fakeCompleter{fn: func(ctx context.Context, _ int, _ qeval.CompletionRequest) (*qeval.Completion, error) {
		<-ctx.Done()
		return nil, &qeval.Error{Code: qeval.CodeTimeout, Op: "fake", Message: "no reply before the deadline", Err: ctx.Err()}
	}}
	j := newJudge(f, judge.Config{CallTimeout: 40 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	start := time.Now()
	v, err := j.Judge(context.Background(), sampleInput)
	if !qeval.IsTimeout(err) || err.Error() != "judge: fake: LLM judge timeout after 40ms" {
		t.Fatalf("error = %v, want the LLM judge timeout", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("took %v, want at least the 40ms deadline", d)
	}
	if v.Score != 0 || !v.LLMCalled || f.calls.Load() != 1 {
		t.Errorf("verdict %+v after %d calls, want 0 after one call (timeouts are not retried)", v, f.calls.Load())
	}
	if !strings.Contains(logs.String(), "LLM judge timeout") {
		t.Errorf("log = %q, want the timeout logged", logs.String())
	}
	if s := j.Stats(); s.Timeouts != 1 || s.Errors != 1 || s.Calls != 1 {
		t.Errorf("Stats() = %+v", s)
	}
}

// MC-REQ-08: N cases at concurrency C take about ⌈N/C⌉ times one call: C requests are
// in flight at once, never more. The fake call holds until the test has seen C calls
// in flight together, then lets every call through.
func TestJudge_Concurrency(t *testing.T) {
	const n, c = 16, 4
	var inFlight, peak atomic.Int64
	arrived, release := make(chan struct{}), make(chan struct{})
	f := &fakeCompleter{fn: func(ctx context.Context, k int, req qeval.CompletionRequest) (*qeval.Completion, error) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
		}
		arrived <- struct{}{}
		<-release
		return reply(`{"reasoning":"r","verdict":"correct"}`)(ctx, k, req)
	}}
	j := newJudge(f, judge.Config{MaxConcurrency: c})
	var wg, started sync.WaitGroup
	started.Add(n)
	for range n {
		wg.Go(func() {
			started.Done()
			if _, err := j.Judge(context.Background(), sampleInput); err != nil {
				t.Error(err)
			}
		})
	}
	for range c {
		<-arrived // c calls at once; a limit below c would hang here
	}
	started.Wait() // every case asks while c calls are held: a limit above c lets more in
	close(release)
	for range n - c {
		<-arrived
	}
	wg.Wait()
	if peak.Load() != c {
		t.Errorf("peak requests in flight = %d, want %d", peak.Load(), c)
	}
	if s := j.Stats(); s.Calls != n || s.InputTokens != 200*n || s.OutputTokens != 40*n {
		t.Errorf("Stats() = %+v", s)
	}
}

// A model's reply is untrusted: whatever it sends, the judge returns a score in [0, 1]
// with a reasoning, or an error, and never panics.
func FuzzJudge_Reply(f *testing.F) {
	f.Add([]byte(`{"reasoning":"r","verdict":"correct"}`), "", true)
	f.Add([]byte(`{"reasoning":"r","score":"0.3"}`), "", false)
	f.Add([]byte(``), "```json\n{\"reasoning\":\"r\",\"verdict\":\"incorrect\"}\n```", true)
	f.Add([]byte(`{"reasoning":null,"score":1e999}`), "x", false)
	f.Fuzz(func(t *testing.T, tool []byte, text string, correctness bool) {
		c := &fakeCompleter{fn: func(context.Context, int, qeval.CompletionRequest) (*qeval.Completion, error) {
			return &qeval.Completion{ToolInput: tool, Text: text}, nil
		}}
		in := sampleInput
		if !correctness {
			in.Task = qeval.TaskLLMGrading
		}
		v, err := newJudge(c, judge.Config{}).Judge(context.Background(), in)
		if err != nil {
			if qeval.ErrorCode(err) != qeval.CodeUnavailable || v.Score != 0 {
				t.Fatalf("error %v with score %v, want unavailable and 0", err, v.Score)
			}
			return
		}
		if v.Score < 0 || v.Score > 1 || v.Reasoning == "" {
			t.Fatalf("verdict %+v, want a score in [0, 1] with a reasoning", v)
		}
	})
}

// The judge sends temperature 0 unless told otherwise (the providers' default is 1), and
// the temperature is part of the cache key: a verdict at 0.7 is not a verdict at 0.
func TestJudge_Temperature(t *testing.T) {
	f := &fakeCompleter{fn: reply(`{"reasoning":"r","verdict":"correct"}`)}
	if _, err := newJudge(f, judge.Config{}).Judge(context.Background(), sampleInput); err != nil {
		t.Fatal(err)
	}
	warm := 0.7
	if _, err := newJudge(f, judge.Config{Temperature: &warm}).Judge(context.Background(), sampleInput); err != nil {
		t.Fatal(err)
	}
	if len(f.reqs) != 2 || f.reqs[0].Temperature == nil || *f.reqs[0].Temperature != 0 || f.reqs[1].Temperature == nil || *f.reqs[1].Temperature != 0.7 {
		t.Fatalf("requests sent temperatures %v", f.reqs)
	}
	store := cache.Memory(cache.Options{})
	cold := judge.Cached(newJudge(f, judge.Config{}), store)
	hot := judge.Cached(newJudge(f, judge.Config{Temperature: &warm}), store)
	for _, j := range []qeval.Judge{cold, hot, cold, hot} {
		if _, err := j.Judge(context.Background(), sampleInput); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.calls.Load(); n != 4 {
		t.Errorf("%d provider calls, want 4: two before the cache, one per temperature through it", n)
	}
}
