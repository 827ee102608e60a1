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
)

// fakeAnthropic answers the Messages API with a tool_use block for whichever tool the
// request forces: a verdict for query correctness, a grade for LLM grading.
func fakeAnthropic(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := messagesServer("sk-test-secret", func(_ string, _ []byte, tool string) map[string]any {
		calls.Add(1)
		if strings.Contains(tool, "grade") {
			return map[string]any{"reasoning": "Same tables, filters and aggregation.", "score": 0.8}
		}
		return map[string]any{"reasoning": "The query reads the right table and filter.", "verdict": "correct"}
	})
	return srv
}

// With a judge configured, qeval run fills query correctness and LLM grading, counts
// the calls, and a second run is answered from the cache.
func TestRun_WithJudge(t *testing.T) {
	var calls atomic.Int32
	srv := fakeAnthropic(t, &calls)
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	suitePath := writeFile(t, dir, "s.yaml", `name: judged
database: `+db+`
cases:
  - id: a
    question: How many singers are there?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT COUNT(Singer_ID) FROM singer
  - id: b
    question: List the singers' names.
    expected_query: SELECT Name FROM singer
    generated_query: SELECT Name FROM singer WHERE Net_Worth_Millions > 10
`)
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret", "ANTHROPIC_BASE_URL": srv.URL}
	run1 := func() (int, string, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"run", suitePath, "--quiet", "--cache-dir", filepath.Join(dir, "cache"), "--json", filepath.Join(dir, "r.json")},
			&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
		return code, out.String(), errb.String()
	}
	code, out, stderr := run1()
	if code != exitOK {
		t.Fatalf("code %d: %s %s", code, out, stderr)
	}
	first := calls.Load()
	if first == 0 {
		t.Fatal("the judge was never called")
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	var rep struct {
		Run struct {
			Judge struct {
				Provider  string `json:"provider"`
				Calls     int    `json:"calls"`
				CacheHits int    `json:"cache_hits"`
				TokensIn  int    `json:"tokens_in"`
			} `json:"judge"`
		} `json:"run"`
		Cases []struct {
			ID      string `json:"id"`
			Metrics map[string]struct {
				Score   *float64       `json:"score"`
				Skipped *string        `json:"skipped"`
				Error   any            `json:"error"`
				Details map[string]any `json:"details"`
			} `json:"metrics"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if j := rep.Run.Judge; j.Provider != "anthropic" || j.Calls == 0 || j.TokensIn == 0 {
		t.Errorf("judge usage %+v", j)
	}
	for _, c := range rep.Cases {
		g := c.Metrics["llm_grading"]
		if g.Skipped != nil || g.Score == nil || *g.Score != 0.8 {
			t.Errorf("case %s llm_grading = %+v", c.ID, g)
		}
	}
	if strings.Contains(string(raw), "sk-test-secret") || strings.Contains(stderr, "sk-test-secret") {
		t.Error("the API key leaked into the report or the log")
	}
	// the second run makes no provider call
	if code, out, stderr := run1(); code != exitOK {
		t.Fatalf("second run: %d %s %s", code, out, stderr)
	}
	if again := calls.Load() - first; again != 0 {
		t.Errorf("the second identical run made %d calls, want 0 (cache)", again)
	}
}

// A provider (or a proxy) that echoes the API key in its reasoning does not put it in
// anything qeval writes: results.jsonl, every report, the judge cache.
func TestRun_KeyEchoedByProviderIsMasked(t *testing.T) {
	const key = "sk-test-secret"
	srv := messagesServer(key, func(_ string, _ []byte, tool string) map[string]any {
		echo := "I was called with the key " + key + "." // the server checks it is the key sent
		if strings.Contains(tool, "grade") {
			return map[string]any{"reasoning": echo, "score": 0.8}
		}
		return map[string]any{"reasoning": echo, "verdict": "correct"}
	})
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	suitePath := writeFile(t, dir, "s.yaml", "name: echo\ndatabase: "+db+"\ncases:\n  - id: a\n    question: How many singers?\n    expected_query: SELECT count(*) FROM singer\n    generated_query: SELECT count(*) FROM singer WHERE 1\n")
	vars := map[string]string{"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": srv.URL}
	out := filepath.Join(dir, "out")
	cacheDir := filepath.Join(dir, "cache")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", suitePath, "--quiet", "--cache-dir", cacheDir, "-o", out},
		&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }})
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), key) {
		t.Error("the key reached the terminal")
	}
	for _, dirToScan := range []string{out, cacheDir} {
		filepath.WalkDir(dirToScan, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(key)) {
				t.Errorf("%s holds the API key", p)
			}
			return nil
		})
	}
	raw, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if !bytes.Contains(raw, []byte("I was called with the key xxxxx.")) {
		t.Errorf("report.json lacks the masked reasoning")
	}
}

// A judge outage is not the model's failure: the case's judged components are skipped
// and marked, the summary counts it apart, the run exits 1 as incomplete, and --resume
// asks the judge again for those cases only.
func TestRun_JudgeOutageIsIncomplete(t *testing.T) {
	var calls atomic.Int32
	inner := fakeAnthropic(t, &calls)
	defer inner.Close()
	var down atomic.Bool
	down.Store(true)
	var askedA, askedB atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte("OUTAGE")) {
			askedB.Add(1)
			if down.Load() {
				<-r.Context().Done() // the provider hangs: the call times out
				return
			}
		} else {
			askedA.Add(1)
		}
		inner.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	suitePath := writeFile(t, dir, "s.yaml", `name: outage
database: `+db+`
cases:
  - id: a
    question: How many singers are there?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT COUNT(*) FROM singer WHERE 1
  - id: b
    question: OUTAGE how many concerts?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT COUNT(*) FROM singer WHERE 2
`)
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret", "ANTHROPIC_BASE_URL": srv.URL}
	out := filepath.Join(dir, "out")
	cli := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		code := run(context.Background(), append([]string{"run", suitePath, "--quiet", "--no-cache", "--judge-timeout", "300ms"}, args...),
			&env{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(k string) string { return vars[k] }})
		return code, e.String()
	}
	code, stderr := cli("-o", out)
	if code != exitFailed || !strings.Contains(stderr, "incomplete: the LLM judge failed on 1 cases") {
		t.Fatalf("first run: code %d, %s", code, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "report.json"))
	var rep struct {
		Summary struct {
			JudgeErrors int `json:"judge_errors"`
		} `json:"summary"`
		Cases []struct {
			ID         string `json:"id"`
			JudgeError bool   `json:"judge_error"`
			Status     string `json:"status"`
		} `json:"cases"`
	}
	json.Unmarshal(raw, &rep)
	if rep.Summary.JudgeErrors != 1 || len(rep.Cases) != 2 || rep.Cases[0].JudgeError || !rep.Cases[1].JudgeError {
		t.Fatalf("report: %+v", rep)
	}
	down.Store(false)
	a := askedA.Load()
	code, stderr = cli("-o", out, "--resume", filepath.Join(out, "results.jsonl"))
	if code != exitOK {
		t.Fatalf("resumed run: code %d, %s", code, stderr)
	}
	if askedA.Load() != a || askedB.Load() == 0 {
		t.Errorf("the resumed run asked about case a %d more times (want 0)", askedA.Load()-a)
	}
}

// --no-cache means no disk cache: identical cases within one run still ask once, and the
// request carries temperature 0, so a repeated question gets the same verdict.
func TestRun_NoCacheKeepsRunMemory(t *testing.T) {
	var calls atomic.Int32
	srv := fakeAnthropic(t, &calls)
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	var cases strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&cases, "  - {id: c%d, question: \"How many singers?\", expected_query: \"SELECT count(*) FROM singer\", generated_query: \"SELECT count(*) FROM singer WHERE 1\"}\n", i)
	}
	suitePath := writeFile(t, dir, "s.yaml", "name: same\ndatabase: "+db+"\nconcurrency: 1\ncases:\n"+cases.String())
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret", "ANTHROPIC_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"run", suitePath, "--quiet", "--no-cache", "--json", filepath.Join(dir, "r.json")},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	if code != exitOK {
		t.Fatalf("code %d: %s %s", code, out.String(), errb.String())
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d judge calls for 6 identical cases with --no-cache, want 1 (the same question is asked once per run)", n)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	if !strings.Contains(string(raw), `"temperature": 0`) {
		t.Errorf("the report does not record the judge's temperature")
	}
}

// judge.on_exec_match: ask makes the judge grade cases whose execution matched (skip,
// the default, counts them correct without a call); the report says which was used, and
// the flag overrides the suite.
func TestRun_JudgeOnExecMatch(t *testing.T) {
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	runWith := func(t *testing.T, suiteJudge string, args ...string) (int32, string) {
		var calls atomic.Int32
		srv := fakeAnthropic(t, &calls)
		defer srv.Close()
		dir := t.TempDir()
		suitePath := writeFile(t, dir, "s.yaml", "name: m\ndatabase: "+db+"\n"+suiteJudge+"cases:\n"+
			"  - {id: a, question: \"How many singers?\", expected_query: \"SELECT count(*) FROM singer\", generated_query: \"SELECT count(*) FROM singer WHERE 1\"}\n"+
			"  - {id: b, question: \"Names?\", expected_query: \"SELECT name FROM singer\", generated_query: \"SELECT name FROM singer WHERE 1\"}\n")
		vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret", "ANTHROPIC_BASE_URL": srv.URL}
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"run", suitePath, "--quiet", "--no-cache", "--json", filepath.Join(dir, "r.json")}, args...),
			&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
		if code != exitOK {
			t.Fatalf("code %d: %s %s", code, out.String(), errb.String())
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
		return calls.Load(), string(raw)
	}
	skipCalls, skipRep := runWith(t, "")
	askCalls, askRep := runWith(t, "judge: {on_exec_match: ask}\n")
	flagCalls, _ := runWith(t, "judge: {on_exec_match: ask}\n", "--judge-on-exec-match", "skip")
	if askCalls <= skipCalls {
		t.Errorf("ask made %d judge calls, skip %d: asking must add the matched cases", askCalls, skipCalls)
	}
	if flagCalls != skipCalls {
		t.Errorf("--judge-on-exec-match skip over a suite's ask made %d calls, want %d", flagCalls, skipCalls)
	}
	if !strings.Contains(skipRep, `"on_exec_match": "skip"`) || !strings.Contains(askRep, `"on_exec_match": "ask"`) {
		t.Errorf("the report does not say whether the judge was asked on matched cases")
	}
	var errb bytes.Buffer
	code := run(context.Background(), []string{"run", writeFile(t, t.TempDir(), "s.yaml", "name: m\ndatabase: "+db+"\ncases: [{id: a, question: q, expected_query: SELECT 1, generated_query: SELECT 1}]\n"), "--quiet", "--judge-on-exec-match", "sometimes"},
		&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitUsage || !strings.Contains(errb.String(), "neither ask nor skip") {
		t.Errorf("a bad value: code %d, %s", code, errb.String())
	}
}
