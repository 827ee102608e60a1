package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/llm/openai"
)

const testKey = "sk-proj-test-0123456789abcdef"

var testReq = qeval.CompletionRequest{
	System:   "You judge queries.",
	Messages: []qeval.Message{{Role: "user", Content: "compare these"}},
	Tool: qeval.Tool{Name: "record_verdict", Description: "Record the verdict.",
		Schema: json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"verdict":{"type":"string","enum":["correct","incorrect"]}},"required":["reasoning","verdict"],"additionalProperties":false}`)},
	MaxTokens: 512,
}

// request is what the fake server saw of one request.
type request struct {
	path   string
	header http.Header
	body   map[string]any
}

// server is a fake Chat Completions API: it records requests and answers with h.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64, *atomic.Pointer[request]) {
	t.Helper()
	var n atomic.Int64
	var last atomic.Pointer[request]
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		b, _ := io.ReadAll(r.Body)
		rq := &request{path: r.URL.Path, header: r.Header.Clone()}
		json.Unmarshal(b, &rq.body)
		last.Store(rq)
		w.Header().Set("Content-Type", "application/json")
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n, &last
}

func MustNew(t *testing.T, c openai.Client) *openai.Client {
	t.Helper()
	if c.APIKey == "" && !c.KeyOptional {
		c.APIKey = testKey
	}
	if c.Model == "" {
		c.Model = "gpt-test"
	}
	cl, err := openai.New(c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return cl
}

const toolCallReply = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test",
"choices":[{"index":0,"finish_reason":"tool_calls","logprobs":null,"message":{"role":"assistant","content":null,"refusal":null,
"tool_calls":[{"id":"call_1","type":"function","function":{"name":"record_verdict","arguments":"{\"reasoning\":\"Same rows.\",\"verdict\":\"correct\"}"}}]}}],
"usage":{"prompt_tokens":321,"completion_tokens":45,"total_tokens":366}}`

func TestComplete_OK(t *testing.T) {
	s, n, last := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, toolCallReply) })
	got, err := MustNew(t, openai.Client{BaseURL: s.URL + "/v1"}).Complete(context.Background(), testReq)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if string(got.ToolInput) != `{"reasoning":"Same rows.","verdict":"correct"}` {
		t.Errorf("ToolInput = %s", got.ToolInput)
	}
	if got.InputTokens != 321 || got.OutputTokens != 45 || got.Model != "gpt-test" {
		t.Errorf("Completion = %+v", got)
	}
	rq := last.Load()
	if n.Load() != 1 || rq.path != "/v1/chat/completions" {
		t.Fatalf("requests = %d to %q, want 1 to /v1/chat/completions", n.Load(), rq.path)
	}
	if rq.header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("Authorization = %q", rq.header.Get("Authorization"))
	}
	b := rq.body
	wantSchema := map[string]any{}
	json.Unmarshal(testReq.Tool.Schema, &wantSchema)
	want := map[string]any{
		"model":                 "gpt-test",
		"max_completion_tokens": 512.0,
		"tool_choice":           map[string]any{"type": "function", "function": map[string]any{"name": "record_verdict"}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "record_verdict", "description": "Record the verdict.", "parameters": wantSchema}}},
		"messages": []any{
			map[string]any{"role": "system", "content": "You judge queries."},
			map[string]any{"role": "user", "content": "compare these"},
		},
	}
	for k, v := range want {
		if !jsonEqual(b[k], v) {
			t.Errorf("request %s = %s, want %s", k, mustJSON(b[k]), mustJSON(v))
		}
	}
	if _, ok := b["max_tokens"]; ok {
		t.Errorf("request has max_tokens, want only max_completion_tokens")
	}
}

func TestComplete_CompatibleServer(t *testing.T) {
	s, _, last := server(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"llama3","choices":[{"index":0,"finish_reason":"stop",
"message":{"role":"assistant","content":"{\"reasoning\":\"r\",\"verdict\":\"correct\"}"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`)
	})
	c := MustNew(t, openai.Client{Name: "openai-compatible", BaseURL: s.URL + "/v1/", Model: "llama3", KeyOptional: true, LegacyMaxTokens: true})
	got, err := c.Complete(context.Background(), testReq)
	if err != nil {
		t.Fatal(err)
	}
	if got.ToolInput != nil || !strings.Contains(got.Text, `"verdict"`) {
		t.Errorf("Completion = %+v, want the text answer and no tool input", got)
	}
	rq := last.Load()
	if rq.header.Get("Authorization") != "" {
		t.Errorf("Authorization = %q, want none without a key", rq.header.Get("Authorization"))
	}
	if rq.body["max_tokens"] != 512.0 || rq.body["max_completion_tokens"] != nil {
		t.Errorf("max_tokens = %v, max_completion_tokens = %v; want 512 and absent", rq.body["max_tokens"], rq.body["max_completion_tokens"])
	}
}

// rewrite sends every request to the test server, whatever its host.
type rewrite struct{ host string }

func (rw rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", rw.host
	return http.DefaultTransport.RoundTrip(r)
}

func TestComplete_AzureKeyHeader(t *testing.T) {
	s, _, last := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, toolCallReply) })
	c := MustNew(t, openai.Client{BaseURL: "https://myres.openai.azure.com/openai/v1/",
		HTTPClient: &http.Client{Transport: rewrite{s.Listener.Addr().String()}}})
	if _, err := c.Complete(context.Background(), testReq); err != nil {
		t.Fatal(err)
	}
	if rq := last.Load(); rq.header.Get("Api-Key") != testKey || rq.path != "/openai/v1/chat/completions" {
		t.Errorf("api-key header %q, path %q; want the key and /openai/v1/chat/completions", rq.header.Get("Api-Key"), rq.path)
	}
}

func TestComplete_Errors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		wantRetry time.Duration
		retryable bool
		wantMsg   string
	}{
		{"RateLimitRetryAfter", 429, map[string]string{"Retry-After": "3"},
			`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded","param":null}}`, 3 * time.Second, true, "openai: 429 too many requests: Rate limit reached"},
		{"RateLimitRetryAfterMs", 429, map[string]string{"Retry-After-Ms": "250"}, `{"error":{"message":"slow"}}`, 250 * time.Millisecond, true, "429"},
		{"Server", 503, nil, `upstream down`, 0, true, "503 service unavailable: upstream down"},
		{"NotFound", 404, nil, `{"error":{"message":"The model gpt-x does not exist"}}`, 0, false, "404 not found: The model gpt-x does not exist"},
		{"KeyEchoed", 401, nil, `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`, 0, false, "Incorrect API key provided: xxxxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, n, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := MustNew(t, openai.Client{BaseURL: s.URL + "/v1"}).Complete(context.Background(), testReq)
			var pe *qeval.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("Complete error = %v, want a *qeval.ProviderError", err)
			}
			if qeval.ErrorCode(err) != qeval.CodeUnavailable || pe.StatusCode != tt.status || pe.RetryAfter != tt.wantRetry || pe.Retryable() != tt.retryable {
				t.Errorf("error code %s, status %d, retry-after %v, retryable %v; want unavailable, %d, %v, %v",
					qeval.ErrorCode(err), pe.StatusCode, pe.RetryAfter, pe.Retryable(), tt.status, tt.wantRetry, tt.retryable)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || strings.Contains(err.Error(), testKey) || strings.Count(err.Error(), "openai:") != 1 {
				t.Errorf("error = %q, want it to contain %q, name the provider once and not hold the key", err, tt.wantMsg)
			}
			if n.Load() != 1 {
				t.Errorf("requests = %d, want 1 (the SDK's retries are off)", n.Load())
			}
		})
	}
}

func TestComplete_Malformed(t *testing.T) {
	for name, body := range map[string]string{
		"TruncatedJSON": `{"choices": [`,
		"NoChoices":     `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, _, _ := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
			_, err := MustNew(t, openai.Client{BaseURL: s.URL}).Complete(context.Background(), testReq)
			var pe *qeval.ProviderError
			if err == nil || errors.As(err, &pe) || qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(err.Error(), "malformed reply") {
				t.Fatalf("error = %v, want an unavailable 'malformed reply' without a ProviderError", err)
			}
		})
	}
}

func TestComplete_Deadline(t *testing.T) {
	s, n, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := MustNew(t, openai.Client{BaseURL: s.URL}).Complete(ctx, testReq)
	if !qeval.IsTimeout(err) {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Complete returned after %v, want promptly after the 50ms deadline", d)
	}
	if n.Load() != 1 {
		t.Errorf("requests = %d, want 1", n.Load())
	}
}

func TestNew(t *testing.T) {
	t.Run("ErrNoAPIKey", func(t *testing.T) {
		_, err := openai.New(openai.Client{})
		if !errors.Is(err, qeval.ErrNoAPIKey) {
			t.Fatalf("New without key = %v, want ErrNoAPIKey", err)
		}
	})
	t.Run("KeyOptional", func(t *testing.T) {
		if _, err := openai.New(openai.Client{KeyOptional: true, BaseURL: "http://127.0.0.1:11434/v1"}); err != nil {
			t.Fatalf("New with KeyOptional = %v", err)
		}
	})
	t.Run("ErrBadURL", func(t *testing.T) {
		_, err := openai.New(openai.Client{APIKey: testKey, BaseURL: "127.0.0.1:8000"})
		if qeval.ErrorCode(err) != qeval.CodeInvalid {
			t.Fatalf("New with a URL without scheme = %v, want invalid", err)
		}
	})
	t.Run("Defaults", func(t *testing.T) {
		c, err := openai.New(openai.Client{APIKey: testKey})
		if err != nil || c.Model != openai.DefaultModel || c.BaseURL != openai.DefaultBaseURL || c.Name != "openai" {
			t.Fatalf("New = %+v, %v; want the defaults", c, err)
		}
	})
}

func TestComplete_IgnoresEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	s, n, last := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, toolCallReply) })
	if _, err := MustNew(t, openai.Client{BaseURL: s.URL}).Complete(context.Background(), testReq); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 || last.Load().header.Get("Authorization") != "Bearer "+testKey {
		t.Fatalf("requests %d, Authorization %q; want 1 with the configured key", n.Load(), last.Load().header.Get("Authorization"))
	}
}

func jsonEqual(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A reply past qeval.MaxReplyBytes is an error, read no further (a 200 MB reply once
// took 3.5 GB).
func TestComplete_HugeReply(t *testing.T) {
	s, _, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < 200; i++ { // 12.8 MB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}}]}`))
	})
	_, err := MustNew(t, openai.Client{BaseURL: s.URL}).Complete(context.Background(), testReq)
	if err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("Complete = %v, want the reply refused as too large", err)
	}
}

// A temperature is sent, except to the reasoning models that refuse any but their own.
func TestComplete_Temperature(t *testing.T) {
	zero := 0.0
	req := testReq
	req.Temperature = &zero
	for model, want := range map[string]bool{"gpt-test": true, "gpt-4o-mini": true, "gpt-5.4-mini": false, "o3-mini": false} {
		s, _, last := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, toolCallReply) })
		if _, err := MustNew(t, openai.Client{BaseURL: s.URL, Model: model}).Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		v, sent := last.Load().body["temperature"]
		if sent != want || sent && v != 0.0 {
			t.Errorf("model %s: temperature sent %v (%v), want sent %v", model, sent, v, want)
		}
	}
}
