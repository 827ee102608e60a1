package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qeval/qeval/registry"
)

// fakeProvider answers the Anthropic Messages API (/v1/messages) and OpenAI Chat
// Completions (/v1/chat/completions) in their wire format, with a write_malloy call
// whose query is answer(the request body); it counts the calls.
func fakeProvider(t *testing.T, answer func(body string) string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		input, _ := json.Marshal(map[string]string{"query": answer(string(b))})
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			args, _ := json.Marshal(string(input))
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls",`+
				`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write_malloy","arguments":%s}}]}}],`+
				`"usage":{"prompt_tokens":500,"completion_tokens":50,"total_tokens":550}}`, args)
			return
		}
		fmt.Fprintf(w, `{"id":"m","type":"message","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":"t","name":"write_malloy","input":%s}],`+
			`"stop_reason":"tool_use","usage":{"input_tokens":500,"output_tokens":50}}`, input)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestAnswer_Providers asks each provider, through qeval's own clients, for a Malloy
// query: the request carries the model's text and the question, the answer is the
// tool call's query.
func TestAnswer_Providers(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			var body string
			srv, calls := fakeProvider(t, func(b string) string {
				body = b
				return "run: singer -> { aggregate: singer_count }"
			})
			c, err := registry.NewCompleter(provider, registry.ProviderConfig{APIKey: "sk-test", BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			in := `{"id":"dev-0","question":"How many singers do we have?","dialect":"malloy","malloy_model":{"files":["concert_singer.malloy"],"connection":"mirror:duckdb"}}`
			q, err := answer(context.Background(), c, strings.NewReader(in), "..")
			if err != nil {
				t.Fatal(err)
			}
			if q != "run: singer -> { aggregate: singer_count }" || calls.Load() != 1 {
				t.Errorf("answer = %q after %d calls, want the tool's query after 1", q, calls.Load())
			}
			for _, want := range []string{"singer_count is count()", "How many singers do we have?", "write_malloy"} {
				if !strings.Contains(body, want) {
					t.Errorf("the request lacks %q:\n%s", want, body)
				}
			}
		})
	}
}

func TestAnswer_NoModel(t *testing.T) {
	srv, calls := fakeProvider(t, func(string) string { return "run: x -> {}" })
	c, err := registry.NewCompleter("anthropic", registry.ProviderConfig{APIKey: "sk-test", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = answer(context.Background(), c, strings.NewReader(`{"id":"c1","question":"q","dialect":"sql"}`), ".")
	if err == nil || !strings.Contains(err.Error(), "no malloy_model") || calls.Load() != 0 {
		t.Errorf("answer without a model = %v after %d calls, want an error and no call", err, calls.Load())
	}
}
