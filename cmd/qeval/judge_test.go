package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const judgeTestKey = "sk-cli-test-SECRET-77"

// runWithEnv runs the CLI in memory with the given environment variables.
func runWithEnv(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// fakeLLM answers the Anthropic Messages API (/v1/messages) and OpenAI Chat
// Completions (/v1/chat/completions) with the tool input given, after delay.
func fakeLLM(t *testing.T, status int, body string, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != 200 {
			io.WriteString(w, body)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			args, _ := json.Marshal(body)
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls",`+
				`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"record_verdict","arguments":%s}}]}}],`+
				`"usage":{"prompt_tokens":500,"completion_tokens":50,"total_tokens":550}}`, args)
			return
		}
		fmt.Fprintf(w, `{"id":"m","type":"message","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":"t","name":"record_verdict","input":%s}],`+
			`"stop_reason":"tool_use","usage":{"input_tokens":500,"output_tokens":50}}`, body)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

type judgeJSON struct {
	Score     *float64 `json:"score"`
	Verdict   string   `json:"verdict"`
	Reasoning string   `json:"reasoning"`
	Cached    bool     `json:"cached"`
	LLMCalled bool     `json:"llm_called"`
	Error     *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Skipped       *string `json:"skipped"`
	Provider      string  `json:"provider"`
	Model         string  `json:"model"`
	PromptVersion string  `json:"prompt_version"`
	LatencyMS     float64 `json:"latency_ms"`
	Stats         struct {
		Calls     int `json:"calls"`
		CacheHits int `json:"cache_hits"`
	} `json:"stats"`
}

func decodeJudge(t *testing.T, out string) judgeJSON {
	t.Helper()
	var j judgeJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return j
}

var differentQueries = []string{"--generated", "SELECT name FROM singer", "--expected", "SELECT name FROM singer WHERE age > 30", "--question", "Singers over 30?"}

func TestJudgeCmd_NoKeySkips(t *testing.T) {
	code, out, _ := runWithEnv(t, nil, append([]string{"judge", "--json", "--cache-dir", t.TempDir()}, differentQueries...)...)
	j := decodeJudge(t, out)
	// no verdict was given: exit 1, the output saying why
	if code != exitFailed || j.Skipped == nil || !strings.Contains(*j.Skipped, "ANTHROPIC_API_KEY") || j.Score != nil || j.LLMCalled {
		t.Errorf("exit %d, %+v; want exit 1, skipped naming ANTHROPIC_API_KEY, score null", code, j)
	}
	code, out, _ = runWithEnv(t, nil, append([]string{"judge", "--judge", "none"}, differentQueries...)...)
	if code != exitFailed || !strings.Contains(out, "skipped:") || !strings.Contains(out, "--judge none") {
		t.Errorf("--judge none: exit %d, output %q", code, out)
	}
}

func TestJudgeCmd_VerdictThenCache(t *testing.T) {
	s, n := fakeLLM(t, 200, `{"reasoning":"The age filter is missing.","verdict":"partially_correct"}`, 0)
	vars := map[string]string{"ANTHROPIC_API_KEY": judgeTestKey, "ANTHROPIC_BASE_URL": s.URL}
	dir := t.TempDir()
	args := append([]string{"judge", "--json", "--cache-dir", dir, "--model", "claude-test"}, differentQueries...)
	code, out, stderr := runWithEnv(t, vars, args...)
	j := decodeJudge(t, out)
	if code != exitOK || j.Score == nil || *j.Score != 0.5 || j.Verdict != "partially_correct" || j.Reasoning != "The age filter is missing." ||
		j.Cached || !j.LLMCalled || j.Error != nil || j.Provider != "anthropic" || j.Model != "claude-test" ||
		j.PromptVersion != "query_correctness@1" || j.Stats.Calls != 1 {
		t.Fatalf("exit %d, %+v, stderr %q", code, j, stderr)
	}
	code, out, _ = runWithEnv(t, vars, args...)
	j = decodeJudge(t, out)
	if code != exitOK || !j.Cached || j.LLMCalled || *j.Score != 0.5 || j.Stats.CacheHits != 1 || j.Stats.Calls != 0 {
		t.Errorf("second run: exit %d, %+v; want the cached verdict", code, j)
	}
	if n.Load() != 1 {
		t.Errorf("requests = %d, want 1 over two runs", n.Load())
	}
	// --no-cache asks again; the text output says where the verdict came from.
	code, out, _ = runWithEnv(t, vars, append([]string{"judge", "--no-cache", "--model", "claude-test"}, differentQueries...)...)
	if code != exitOK || n.Load() != 2 || !strings.Contains(out, "verdict:   partially_correct") || !strings.Contains(out, "from:      the model") {
		t.Errorf("--no-cache: exit %d, requests %d, output:\n%s", code, n.Load(), out)
	}
}

func TestJudgeCmd_IdenticalNoRequest(t *testing.T) {
	s, n := fakeLLM(t, 200, `{"reasoning":"r","verdict":"incorrect"}`, 0)
	vars := map[string]string{"OPENAI_API_KEY": judgeTestKey, "OPENAI_BASE_URL": s.URL + "/v1"}
	code, out, _ := runWithEnv(t, vars, "judge", "--json", "--judge", "openai", "--no-cache",
		"--generated", "select name from singer;", "--expected", "SELECT name\nFROM singer")
	j := decodeJudge(t, out)
	if code != exitOK || *j.Score != 1 || j.Reasoning != "Queries are identical" || j.LLMCalled || n.Load() != 0 {
		t.Errorf("exit %d, %+v, requests %d; want 1.0 without a request", code, j, n.Load())
	}
}

func TestJudgeCmd_OpenAI(t *testing.T) {
	s, n := fakeLLM(t, 200, `{"reasoning":"Same rows, other aliases.","verdict":"correct"}`, 0)
	vars := map[string]string{"OPENAI_API_KEY": judgeTestKey}
	code, out, stderr := runWithEnv(t, vars, append([]string{"judge", "--json", "--judge", "openai", "--no-cache",
		"--judge-base-url", s.URL + "/v1"}, differentQueries...)...)
	j := decodeJudge(t, out)
	if code != exitOK || *j.Score != 1 || j.Model != "gpt-5.4-mini" || n.Load() != 1 {
		t.Errorf("exit %d, %+v, stderr %q", code, j, stderr)
	}
}

func TestJudgeCmd_Timeout(t *testing.T) {
	s, n := fakeLLM(t, 200, `{"reasoning":"r","verdict":"correct"}`, 3*time.Second)
	vars := map[string]string{"ANTHROPIC_API_KEY": judgeTestKey, "ANTHROPIC_BASE_URL": s.URL}
	start := time.Now()
	code, out, stderr := runWithEnv(t, vars, append([]string{"judge", "--json", "--no-cache", "--judge-timeout", "100ms"}, differentQueries...)...)
	j := decodeJudge(t, out)
	if code != exitFailed || j.Score == nil || *j.Score != 0 || j.Error == nil || j.Error.Code != "timeout" || !strings.Contains(j.Error.Message, "LLM judge timeout") {
		t.Errorf("exit %d, %+v; want exit 1, score 0, a timeout error", code, j)
	}
	if !strings.Contains(stderr, "LLM judge timeout") {
		t.Errorf("stderr = %q, want the timeout logged", stderr)
	}
	if time.Since(start) > 2*time.Second || n.Load() != 1 {
		t.Errorf("took %v with %d requests", time.Since(start), n.Load())
	}
}

func TestJudgeCmd_KeyNeverPrinted(t *testing.T) {
	s, _ := fakeLLM(t, 401, `{"type":"error","error":{"type":"authentication_error","message":"bad key `+judgeTestKey+`"}}`, 0)
	vars := map[string]string{"ANTHROPIC_API_KEY": judgeTestKey, "ANTHROPIC_BASE_URL": s.URL}
	for _, extra := range [][]string{{"--json"}, {}} {
		code, out, stderr := runWithEnv(t, vars, append(append([]string{"judge", "--no-cache"}, extra...), differentQueries...)...)
		if code != exitFailed || !strings.Contains(out+stderr, "401") || strings.Contains(out+stderr, judgeTestKey) {
			t.Errorf("exit %d; output must report the 401 without the key:\n%s\n%s", code, out, stderr)
		}
	}
}

func TestJudgeCmd_UsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownProvider", []string{"--judge", "gemini"}, `unknown LLM provider "gemini" (known: anthropic, openai, openai-compatible)`},
		{"CompatibleNeedsURL", []string{"--judge", "openai-compatible"}, "openai-compatible: needs a base URL"},
		{"UnknownTask", []string{"--task", "vibes"}, `unknown judge task "vibes"`},
		{"MissingQuery", []string{"--generated", ""}, "missing --generated or --expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runWithEnv(t, map[string]string{"ANTHROPIC_API_KEY": judgeTestKey},
				append(append([]string{"judge"}, differentQueries...), tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// --model names the provider when --judge does not: a gpt-… model goes to OpenAI, not
// to the default provider (which would answer 404 for it).
func TestRun_ModelPicksProvider(t *testing.T) {
	s, calls := fakeLLM(t, 200, `{"verdict":"correct","score":1,"reasoning":"same rows"}`, 0)
	dir := t.TempDir()
	suite := writeFile(t, dir, "s.yaml", `name: m
database: `+chinookAbs(t)+`
cases:
  - id: a
    question: How many genres are there
    expected_query: SELECT count(*) FROM Genre
    generated_query: SELECT COUNT(GenreId) AS n FROM Genre
`)
	vars := map[string]string{"OPENAI_API_KEY": judgeTestKey, "OPENAI_BASE_URL": s.URL + "/v1"}
	code, _, stderr := runWithEnv(t, vars, "run", suite, "--model", "gpt-4o-mini", "--judge-on-exec-match", "ask", "--no-cache", "--quiet", "--json", filepath.Join(dir, "r.json"))
	if code == exitUsage || calls.Load() == 0 {
		t.Fatalf("code %d, %d calls to the OpenAI fake; stderr:\n%s", code, calls.Load(), stderr)
	}
	var rep struct {
		Run struct {
			Judge struct{ Provider, Model string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	json.Unmarshal(b, &rep)
	if rep.Run.Judge.Provider != "openai" || rep.Run.Judge.Model != "gpt-4o-mini" {
		t.Errorf("judge %+v, want openai gpt-4o-mini", rep.Run.Judge)
	}
	// with --judge given, the flag wins
	code, stdout, stderr := runWithEnv(t, map[string]string{}, "run", suite, "--judge", "anthropic", "--model", "gpt-4o-mini", "--quiet")
	if !strings.Contains(stdout+stderr, "anthropic: no API key") {
		t.Errorf("--judge anthropic --model gpt-4o-mini: code %d, output %s %s", code, stdout, stderr)
	}
}

func chinookAbs(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", "chinook", "chinook.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
