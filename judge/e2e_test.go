package judge_test

// End-to-end tests: the judge on the real provider SDKs (llm/anthropic, llm/openai),
// pointed at httptest servers that speak each provider's wire format.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/llm/anthropic"
	"github.com/qeval/qeval/llm/openai"
)

const secretKey = "sk-test-SECRET-4f9a2c7e1b"

// answer is what the fake provider does for one request.
type answer struct {
	status    int               // 200 when 0
	header    map[string]string // response headers
	toolInput string            // the tool call's arguments, for a 200
	raw       string            // the body as is, instead of a reply built from toolInput
	delay     time.Duration     // wait before answering (cut short if the client leaves)
	hold      <-chan struct{}   // when set, answer once it is closed (or the client leaves)
}

// fakeProvider is an httptest server speaking the Anthropic Messages API or OpenAI Chat
// Completions. It counts requests and the peak of requests in flight.
type fakeProvider struct {
	wire           string // "anthropic" or "openai"
	srv            *httptest.Server
	requests       atomic.Int64
	inFlight, peak atomic.Int64
	keyOK          atomic.Bool // the key reached the server
	script         func(n int) answer
	arrived        chan struct{} // when set, each request sends on it once counted
}

func newFakeProvider(t *testing.T, wire string, script func(n int) answer) *fakeProvider {
	t.Helper()
	p := &fakeProvider{wire: wire, script: script}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	n := int(p.requests.Add(1))
	cur := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for pk := p.peak.Load(); cur > pk && !p.peak.CompareAndSwap(pk, cur); pk = p.peak.Load() {
	}
	if r.Header.Get("X-Api-Key") == secretKey || r.Header.Get("Authorization") == "Bearer "+secretKey {
		p.keyOK.Store(true)
	}
	var body struct {
		ToolChoice struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_choice"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	a := p.script(n)
	if p.arrived != nil {
		select {
		case p.arrived <- struct{}{}:
		case <-r.Context().Done():
			return
		}
	}
	if a.hold != nil {
		select {
		case <-a.hold:
		case <-r.Context().Done():
			return
		}
	}
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if a.status == 0 {
		a.status = 200
	}
	w.WriteHeader(a.status)
	if a.raw != "" || a.status != 200 {
		io.WriteString(w, a.raw)
		return
	}
	switch p.wire {
	case "anthropic":
		fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":[`+
			`{"type":"tool_use","id":"toolu_%d","name":%q,"input":%s}],"stop_reason":"tool_use","stop_sequence":null,`+
			`"usage":{"input_tokens":900,"output_tokens":60}}`, n, n, body.ToolChoice.Name, a.toolInput)
	case "openai":
		args, _ := json.Marshal(a.toolInput)
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":1700000000,"model":"gpt-test","choices":[`+
			`{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[`+
			`{"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]}}],`+
			`"usage":{"prompt_tokens":900,"completion_tokens":60,"total_tokens":960}}`, n, n, body.ToolChoice.Function.Name, args)
	}
}

// completer returns the real SDK adapter for wire, pointed at the fake server.
func (p *fakeProvider) completer(t testing.TB) qeval.Completer {
	t.Helper()
	var c qeval.Completer
	var err error
	switch p.wire {
	case "anthropic":
		c, err = anthropic.New(anthropic.Client{BaseURL: p.srv.URL, APIKey: secretKey, Model: "claude-test"})
	case "openai":
		c, err = openai.New(openai.Client{BaseURL: p.srv.URL + "/v1", APIKey: secretKey, Model: "gpt-test"})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (p *fakeProvider) judge(t testing.TB, cfg judge.Config) *judge.Judge {
	t.Helper()
	cfg.Provider, cfg.Model = p.wire, "test-model"
	if cfg.Retry == (judge.RetryPolicy{}) {
		cfg.Retry = fast
	}
	return judge.New(p.completer(t), cfg)
}

var wires = []string{"anthropic", "openai"}

func always(a answer) func(int) answer { return func(int) answer { return a } }

func TestE2E_Verdicts(t *testing.T) {
	for _, wire := range wires {
		for _, tt := range []struct {
			verdict string
			score   float64
		}{{"correct", 1}, {"partially_correct", 0.5}, {"incorrect", 0}} {
			t.Run(wire+"/"+tt.verdict, func(t *testing.T) {
				p := newFakeProvider(t, wire, always(answer{toolInput: `{"reasoning":"The join order differs only.","verdict":"` + tt.verdict + `"}`}))
				v, err := p.judge(t, judge.Config{}).Judge(context.Background(), sampleInput)
				if err != nil {
					t.Fatal(err)
				}
				if v.Score != tt.score || v.Verdict != tt.verdict || v.Reasoning != "The join order differs only." ||
					v.InputTokens != 900 || v.OutputTokens != 60 || p.requests.Load() != 1 || !p.keyOK.Load() {
					t.Errorf("verdict = %+v after %d requests, want %v", v, p.requests.Load(), tt.score)
				}
			})
		}
		t.Run(wire+"/grading", func(t *testing.T) {
			p := newFakeProvider(t, wire, always(answer{toolInput: `{"reasoning":"Filter bound is off by one.","score":0.6}`}))
			in := sampleInput
			in.Task = qeval.TaskLLMGrading
			v, err := p.judge(t, judge.Config{}).Judge(context.Background(), in)
			if err != nil || v.Score != 0.6 {
				t.Errorf("grade = %+v, %v; want 0.6", v, err)
			}
		})
	}
}

// inputs are n distinct cases.
func inputs(n int) []qeval.JudgeInput {
	out := make([]qeval.JudgeInput, n)
	for i := range out {
		out[i] = sampleInput
		out[i].Generated = fmt.Sprintf("SELECT name FROM singer WHERE age > %d", 20+i)
	}
	return out
}

// MC-REQ-06: a second identical run makes no provider call at all.
func TestE2E_CacheSecondRun(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			p := newFakeProvider(t, wire, always(answer{toolInput: `{"reasoning":"r","verdict":"correct"}`}))
			store, err := cache.Open(context.Background(), t.TempDir(), cache.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			for run := 1; run <= 2; run++ {
				cj := judge.Cached(p.judge(t, judge.Config{}), store)
				for _, in := range inputs(5) {
					v, err := cj.Judge(context.Background(), in)
					if err != nil || v.Score != 1 || v.Cached != (run == 2) || v.LLMCalled == (run == 2) {
						t.Fatalf("run %d: %+v, %v", run, v, err)
					}
				}
				if s := cj.Stats(); run == 2 && (s.Calls != 0 || s.CacheHits != 5) {
					t.Errorf("run 2 stats = %+v, want 0 calls and 5 hits", s)
				}
			}
			if p.requests.Load() != 5 {
				t.Errorf("requests over two runs = %d, want 5", p.requests.Load())
			}
		})
	}
}

// The disk cache survives the process: a second process answers from the file alone.
func TestE2E_DiskCacheNewProcess(t *testing.T) {
	dir := t.TempDir()
	p := newFakeProvider(t, "anthropic", always(answer{toolInput: `{"reasoning":"r","verdict":"partially_correct"}`}))
	store, err := cache.Open(context.Background(), dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cj := judge.Cached(p.judge(t, judge.Config{}), store)
	for _, in := range inputs(3) {
		if _, err := cj.Judge(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestE2E_HelperProcess$")
	cmd.Env = append(os.Environ(), "QEVAL_JUDGE_HELPER_DIR="+dir, "QEVAL_JUDGE_HELPER_URL="+p.srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("hits=3 calls=0 scores=0.5,0.5,0.5")) {
		t.Errorf("helper process said:\n%s\nwant hits=3 calls=0", out)
	}
	if p.requests.Load() != 3 {
		t.Errorf("requests = %d, want 3 (none from the second process)", p.requests.Load())
	}
}

// TestE2E_HelperProcess is the second process of TestE2E_DiskCacheNewProcess; run on
// its own (without the environment variables) it has nothing to do.
func TestE2E_HelperProcess(t *testing.T) {
	dir := os.Getenv("QEVAL_JUDGE_HELPER_DIR")
	if dir == "" {
		return
	}
	store, err := cache.Open(context.Background(), dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, err := anthropic.New(anthropic.Client{BaseURL: os.Getenv("QEVAL_JUDGE_HELPER_URL"), APIKey: secretKey, Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	cj := judge.Cached(judge.New(c, judge.Config{Provider: "anthropic", Model: "test-model", Retry: fast}), store)
	var scores []string
	for _, in := range inputs(3) {
		v, err := cj.Judge(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, fmt.Sprint(v.Score))
	}
	s := cj.Stats()
	fmt.Printf("hits=%d calls=%d scores=%s\n", s.CacheHits, s.Calls, strings.Join(scores, ","))
}

func TestE2E_RateLimitThenSuccess(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			p := newFakeProvider(t, wire, func(n int) answer {
				if n == 1 {
					return answer{status: 429, header: map[string]string{"Retry-After-Ms": "100"},
						raw: `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}`}
				}
				return answer{toolInput: `{"reasoning":"r","verdict":"correct"}`}
			})
			start := time.Now()
			v, err := p.judge(t, judge.Config{}).Judge(context.Background(), sampleInput)
			if err != nil || v.Score != 1 || v.Attempts != 2 || p.requests.Load() != 2 {
				t.Fatalf("Judge = %+v, %v after %d requests; want 1.0 after 2", v, err, p.requests.Load())
			}
			if d := time.Since(start); d < 100*time.Millisecond {
				t.Errorf("took %v, want at least the 100ms the provider asked for", d)
			}
		})
	}
}

// 500 until qeval gives up: exactly MaxAttempts requests, so the SDK retries nothing.
func TestE2E_ServerErrorGivesUp(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			p := newFakeProvider(t, wire, always(answer{status: 500, raw: `{"error":{"message":"boom","type":"server_error"}}`}))
			v, err := p.judge(t, judge.Config{}).Judge(context.Background(), sampleInput)
			want := "judge: " + wire + ": 500 internal server error (gave up after 4 tries in "
			if qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error = %v, want %q…", err, want)
			}
			if p.requests.Load() != judge.DefaultMaxAttempts || v.Attempts != judge.DefaultMaxAttempts || v.Score != 0 {
				t.Errorf("requests = %d, verdict %+v; want %d requests and score 0", p.requests.Load(), v, judge.DefaultMaxAttempts)
			}
		})
	}
}

func TestE2E_Malformed(t *testing.T) {
	for _, wire := range wires {
		for name, a := range map[string]answer{
			"BodyNotJSON": {raw: `{"id": "x", "content": [`},
			"WrongSchema": {toolInput: `{"reasoning":"r","verdict":"maybe"}`},
			"NoReasoning": {toolInput: `{"verdict":"correct"}`},
		} {
			t.Run(wire+"/"+name, func(t *testing.T) {
				p := newFakeProvider(t, wire, always(a))
				v, err := p.judge(t, judge.Config{}).Judge(context.Background(), sampleInput)
				if qeval.ErrorCode(err) != qeval.CodeUnavailable || v.Score != 0 || p.requests.Load() != 1 {
					t.Fatalf("Judge = %+v, %v after %d requests; want 0 with an error after 1", v, err, p.requests.Load())
				}
				if !strings.Contains(err.Error(), "malformed reply") && !strings.Contains(err.Error(), "does not fit the schema") {
					t.Errorf("error = %q, want it to say what is wrong with the reply", err)
				}
			})
		}
	}
}

func TestE2E_SlowReply(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			never := make(chan struct{}) // the reply never comes: only the deadline ends the call
			p := newFakeProvider(t, wire, always(answer{hold: never, toolInput: `{"reasoning":"r","verdict":"correct"}`}))
			v, err := p.judge(t, judge.Config{CallTimeout: 100 * time.Millisecond}).Judge(context.Background(), sampleInput)
			if !qeval.IsTimeout(err) || !strings.Contains(err.Error(), "LLM judge timeout") || v.Score != 0 {
				t.Fatalf("Judge = %+v, %v; want an LLM judge timeout", v, err)
			}
			if p.requests.Load() != 1 {
				t.Errorf("requests = %d, want 1 (a timed-out request is not retried)", p.requests.Load())
			}
		})
	}
}

// Bounded, not serial, over HTTP as well: c requests in flight at once, never more.
// The fake holds every request until c are in flight together and every case has
// asked.
func TestE2E_Concurrency(t *testing.T) {
	const n, c = 12, 4
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			release := make(chan struct{})
			p := newFakeProvider(t, wire, always(answer{hold: release, toolInput: `{"reasoning":"r","verdict":"correct"}`}))
			p.arrived = make(chan struct{})
			j := p.judge(t, judge.Config{MaxConcurrency: c})
			var wg, started sync.WaitGroup
			started.Add(n)
			for _, in := range inputs(n) {
				wg.Go(func() {
					started.Done()
					if _, err := j.Judge(context.Background(), in); err != nil {
						t.Error(err)
					}
				})
			}
			for range c {
				<-p.arrived
			}
			started.Wait()
			close(release)
			for range n - c {
				<-p.arrived
			}
			wg.Wait()
			if p.peak.Load() != c {
				t.Errorf("peak requests in flight = %d, want %d", p.peak.Load(), c)
			}
			if p.requests.Load() != n {
				t.Errorf("requests = %d, want %d", p.requests.Load(), n)
			}
		})
	}
}

// The API key appears in no error, log line, verdict or cache file, even when the
// provider echoes it back.
func TestE2E_KeyNeverShown(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			p := newFakeProvider(t, wire, func(n int) answer {
				switch n {
				case 1:
					return answer{status: 401, raw: `{"type":"error","error":{"type":"authentication_error","message":"invalid key ` + secretKey + `"}}`}
				case 2:
					return answer{status: 503, raw: `{"error":{"message":"overloaded; your key ` + secretKey + ` is fine"}}`}
				}
				return answer{toolInput: `{"reasoning":"r","verdict":"correct"}`}
			})
			var logs bytes.Buffer
			dir := t.TempDir()
			store, err := cache.Open(context.Background(), dir, cache.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cj := judge.Cached(p.judge(t, judge.Config{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}), store)
			var out bytes.Buffer
			for range 2 {
				v, err := cj.Judge(context.Background(), sampleInput)
				b, _ := json.Marshal(v)
				fmt.Fprintf(&out, "%s\n%v\n%+v\n%#v\n%s\n", b, err, err, err, qeval.ErrorHint(err))
			}
			store.Close()
			file, err := os.ReadFile(filepath.Join(dir, cache.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if !p.keyOK.Load() {
				t.Fatal("the key did not reach the server; the test proves nothing")
			}
			if !strings.Contains(out.String(), "invalid key xxxxx") {
				t.Errorf("output lacks the masked provider message:\n%s", out.String())
			}
			for name, s := range map[string]string{"output": out.String(), "log": logs.String(), "cache file": string(file)} {
				if strings.Contains(s, secretKey) {
					t.Errorf("the key appears in the %s:\n%s", name, s)
				}
			}
		})
	}
}
