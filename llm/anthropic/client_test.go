package anthropic_test

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
	"github.com/qeval/qeval/llm/anthropic"
)

const testKey = "sk-ant-test-0123456789abcdef"

var testReq = qeval.CompletionRequest{
	System:   "You judge queries.",
	Messages: []qeval.Message{{Role: "user", Content: "compare these"}},
	Tool: qeval.Tool{Name: "record_verdict", Description: "Record the verdict.",
		Schema: json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"verdict":{"type":"string","enum":["correct","incorrect"]}},"required":["reasoning","verdict"],"additionalProperties":false}`)},
	MaxTokens: 512,
}

// server is a fake Messages API: it counts requests and answers with h.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func MustNew(t *testing.T, baseURL string) *anthropic.Client {
	t.Helper()
	c, err := anthropic.New(anthropic.Client{BaseURL: baseURL, APIKey: testKey, Model: "claude-test"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

const toolUseReply = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-test",
"content":[{"type":"text","text":"Looking at both."},
{"type":"tool_use","id":"toolu_01","name":"record_verdict","input":{"reasoning":"Same rows.","verdict":"correct"}}],
"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":321,"output_tokens":45}}`

func TestComplete_OK(t *testing.T) {
	var body map[string]any
	var header http.Header
	var path string
	s, n := server(t, func(w http.ResponseWriter, r *http.Request) {
		path, header = r.URL.Path, r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, toolUseReply)
	})
	got, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if string(got.ToolInput) != `{"reasoning":"Same rows.","verdict":"correct"}` {
		t.Errorf("ToolInput = %s", got.ToolInput)
	}
	if got.Text != "Looking at both." || got.InputTokens != 321 || got.OutputTokens != 45 || got.Model != "claude-test" {
		t.Errorf("Completion = %+v", got)
	}
	if n.Load() != 1 || path != "/v1/messages" {
		t.Errorf("requests = %d to %q, want 1 to /v1/messages", n.Load(), path)
	}
	if header.Get("X-Api-Key") != testKey || header.Get("Anthropic-Version") == "" {
		t.Errorf("headers x-api-key=%q anthropic-version=%q", header.Get("X-Api-Key"), header.Get("Anthropic-Version"))
	}
	// The wire format: forced tool, schema, system prompt, messages.
	want := map[string]any{
		"model": "claude-test", "max_tokens": 512.0,
		"tool_choice": map[string]any{"type": "tool", "name": "record_verdict"},
		"system":      []any{map[string]any{"type": "text", "text": "You judge queries."}},
	}
	for k, v := range want {
		if !jsonEqual(body[k], v) {
			t.Errorf("request %s = %v, want %v", k, body[k], v)
		}
	}
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools = %v, want one", body["tools"])
	}
	tool := tools[0].(map[string]any)
	wantSchema := map[string]any{}
	json.Unmarshal(testReq.Tool.Schema, &wantSchema)
	if tool["name"] != "record_verdict" || tool["description"] != "Record the verdict." || !jsonEqual(tool["input_schema"], wantSchema) {
		t.Errorf("tool = %v, want input_schema %v", tool, wantSchema)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 1 || !strings.Contains(mustJSON(msgs[0]), `"compare these"`) || msgs[0].(map[string]any)["role"] != "user" {
		t.Errorf("messages = %v", body["messages"])
	}
}

func TestComplete_TextOnly(t *testing.T) {
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"I refuse."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}`)
	})
	got, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
	if err != nil || got.ToolInput != nil || got.Text != "I refuse." {
		t.Fatalf("Complete = %+v, %v; want no tool input and the text", got, err)
	}
}

func TestComplete_Errors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		wantStatus int
		wantRetry  time.Duration
		retryable  bool
		wantMsg    string
	}{
		{"RateLimitRetryAfter", 429, map[string]string{"Retry-After": "7"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, 429, 7 * time.Second, true, "anthropic: 429 too many requests: slow down"},
		{"RateLimitRetryAfterMs", 429, map[string]string{"Retry-After-Ms": "150"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, 429, 150 * time.Millisecond, true, "429"},
		{"Overloaded", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 529, 0, true, "529: Overloaded"},
		{"Server", 500, nil, `oops`, 500, 0, true, "500 internal server error: oops"},
		{"BadRequest", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"bad model"}}`, 400, 0, false, "400 bad request: bad model"},
		{"KeyEchoed", 401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`, 401, 0, false, "invalid x-api-key xxxxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, n := server(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
			var pe *qeval.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("Complete error = %v, want a *qeval.ProviderError", err)
			}
			if qeval.ErrorCode(err) != qeval.CodeUnavailable || pe.StatusCode != tt.wantStatus || pe.RetryAfter != tt.wantRetry || pe.Retryable() != tt.retryable {
				t.Errorf("error code %s, status %d, retry-after %v, retryable %v; want unavailable, %d, %v, %v",
					qeval.ErrorCode(err), pe.StatusCode, pe.RetryAfter, pe.Retryable(), tt.wantStatus, tt.wantRetry, tt.retryable)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || strings.Contains(err.Error(), testKey) || strings.Count(err.Error(), "anthropic:") != 1 {
				t.Errorf("error = %q, want it to contain %q, name the provider once and not hold the key", err, tt.wantMsg)
			}
			// The SDK's own retries are off: qeval's policy is the only one.
			if n.Load() != 1 {
				t.Errorf("requests = %d, want 1", n.Load())
			}
		})
	}
}

func TestComplete_RetryAfterDate(t *testing.T) {
	when := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", when)
		w.WriteHeader(503)
	})
	_, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
	var pe *qeval.ProviderError
	if !errors.As(err, &pe) || pe.RetryAfter < 80*time.Second || pe.RetryAfter > 91*time.Second {
		t.Fatalf("error = %v (%+v), want Retry-After about 90s", err, pe)
	}
}

func TestComplete_Malformed(t *testing.T) {
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"content": [`)
	})
	_, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
	var pe *qeval.ProviderError
	if err == nil || errors.As(err, &pe) || qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(err.Error(), "malformed reply") {
		t.Fatalf("error = %v, want an unavailable 'malformed reply' without a ProviderError", err)
	}
}

func TestComplete_Deadline(t *testing.T) {
	s, n := server(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices the client leaving only once the body is read
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := MustNew(t, s.URL).Complete(ctx, testReq)
	if !qeval.IsTimeout(err) {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Complete returned after %v, want promptly after the 50ms deadline", d)
	}
	if n.Load() != 1 {
		t.Errorf("requests = %d, want 1 (the SDK must not retry a timed-out attempt)", n.Load())
	}
}

func TestComplete_NoServer(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	_, err := MustNew(t, url).Complete(context.Background(), testReq)
	var pe *qeval.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 0 || !pe.Retryable() {
		t.Fatalf("error = %v, want a retryable ProviderError with no status", err)
	}
}

func TestNew(t *testing.T) {
	t.Run("ErrNoAPIKey", func(t *testing.T) {
		_, err := anthropic.New(anthropic.Client{})
		if !errors.Is(err, qeval.ErrNoAPIKey) || qeval.ErrorHint(err) == "" {
			t.Fatalf("New without key = %v (hint %q), want ErrNoAPIKey with a hint", err, qeval.ErrorHint(err))
		}
	})
	t.Run("ErrBadURL", func(t *testing.T) {
		_, err := anthropic.New(anthropic.Client{APIKey: testKey, BaseURL: "ftp://x?k=" + testKey})
		if qeval.ErrorCode(err) != qeval.CodeInvalid || strings.Contains(err.Error(), testKey) {
			t.Fatalf("New with ftp URL = %v, want an invalid error without the key", err)
		}
	})
	t.Run("Defaults", func(t *testing.T) {
		c, err := anthropic.New(anthropic.Client{APIKey: testKey})
		if err != nil || c.Model != anthropic.DefaultModel || c.BaseURL != anthropic.DefaultBaseURL {
			t.Fatalf("New = %+v, %v; want the default model and URL", c, err)
		}
	})
}

// The SDK must not pick up the environment: qeval decides the key and the URL.
func TestComplete_IgnoresEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	var key string
	s, n := server(t, func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, toolUseReply)
	})
	if _, err := MustNew(t, s.URL).Complete(context.Background(), testReq); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 || key != testKey {
		t.Fatalf("requests %d with key %q, want 1 with the configured key", n.Load(), key)
	}
}

func jsonEqual(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A reply past qeval.MaxReplyBytes is an error, read no further.
func TestComplete_HugeReply(t *testing.T) {
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"text","text":"`))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < 200; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}]}`))
	})
	_, err := MustNew(t, s.URL).Complete(context.Background(), testReq)
	if err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("Complete = %v, want the reply refused as too large", err)
	}
}
