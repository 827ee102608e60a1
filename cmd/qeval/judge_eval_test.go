package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// labelled is nine labels with the verdict the stand-in judge gives each written at the
// end of its generated query, and a tenth on which the provider fails. Worked out by
// hand (rows the label, columns the verdict: correct, partially_correct, incorrect):
// [[2 0 1] [0 1 1] [1 0 3]]; accuracy 6/9; κ = (54/81 − 31/81) / (1 − 31/81) = 0.46;
// precision of incorrect 3/5, recall 3/4; value caught 1 of 2, condition 2 of 2.
var labelled = [][4]string{
	{"correct", "SELECT b FROM t -- v=correct", ""}, {"correct", "SELECT c FROM t -- v=correct", ""},
	{"correct", "SELECT d FROM t -- v=incorrect", ""}, {"partially_correct", "SELECT e FROM t -- v=partially_correct", ""},
	{"partially_correct", "SELECT f FROM t -- v=incorrect", ""}, {"incorrect", "SELECT g FROM t -- v=incorrect", "value"},
	{"incorrect", "SELECT h FROM t -- v=correct", "value"}, {"incorrect", "SELECT i FROM t -- v=incorrect", "condition"},
	{"incorrect", "SELECT j FROM t -- v=incorrect", "condition"}, {"incorrect", "SELECT k FROM t -- v=fail", "table"},
}

func labelsJSONL(t *testing.T) string {
	var b strings.Builder
	for i, l := range labelled {
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprint("q", i+1), "question": "Which a?", "expected": "SELECT a FROM t",
			"generated": l[1], "label": l[0], "class": l[2], "database": "shop"})
		b.Write(append(line, '\n'))
	}
	return writeFile(t, t.TempDir(), "labels.jsonl", b.String())
}

func labelsCSV(t *testing.T) string {
	b := "question,expected,generated,label,class\n"
	for _, l := range labelled {
		b += fmt.Sprintf("Which a?,SELECT a FROM t,%s,%s,%s\n", l[1], l[0], l[2])
	}
	return writeFile(t, t.TempDir(), "labels.csv", b)
}

var verdictMark = regexp.MustCompile(`-- v=(\w+)`)

// verdictLLM is a provider stand-in (Anthropic's Messages API and OpenAI's Chat
// Completions, as their official SDKs speak them) whose verdict is the one marked in
// the generated query of the prompt, or always answer when it is not ""; a query
// marked fail gets a 400, which the judge does not retry.
func verdictLLM(t *testing.T, answer string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body, _ := io.ReadAll(r.Body)
		v := answer
		if m := verdictMark.FindSubmatch(body); v == "" && m != nil {
			v = string(m[1])
		}
		w.Header().Set("Content-Type", "application/json")
		if v == "fail" || v == "" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`)
			return
		}
		input := fmt.Sprintf(`{"reasoning":"marked %s","verdict":"%s"}`, v, v)
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			args, _ := json.Marshal(input)
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls",`+
				`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"record_verdict","arguments":%s}}]}}],`+
				`"usage":{"prompt_tokens":500,"completion_tokens":50,"total_tokens":550}}`, args)
			return
		}
		fmt.Fprintf(w, `{"id":"m","type":"message","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":"t","name":"record_verdict","input":%s}],`+
			`"stop_reason":"tool_use","usage":{"input_tokens":500,"output_tokens":50}}`, input)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

type judgeEvalJSON struct {
	Judge struct {
		Provider string `json:"provider"`
		Calls    int    `json:"calls"`
	} `json:"judge"`
	Labels    int `json:"labels"`
	Judged    int `json:"judged"`
	Errors    int `json:"judge_errors"`
	Accuracy  struct{ Value float64 }
	Kappa     *float64 `json:"kappa"`
	Incorrect struct {
		Precision, Recall *float64
	} `json:"incorrect"`
	Confusion [3][3]int `json:"confusion"`
	ByClass   []struct {
		Class  string `json:"class"`
		N      int    `json:"n"`
		Caught int    `json:"caught"`
	} `json:"recall_by_class"`
	Items []struct {
		ID, Verdict, Error string
	} `json:"items"`
}

func judgeEval(t *testing.T, vars map[string]string, args ...string) (int, judgeEvalJSON, string) {
	t.Helper()
	code, out, stderr := runWithEnv(t, vars, append([]string{"judge", "eval", "--json", "--cache-dir", t.TempDir()}, args...)...)
	var j judgeEvalJSON
	if code != exitUsage {
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("exit %d, output not JSON (%v):\n%s\nstderr: %s", code, err, out, stderr)
		}
	}
	return code, j, stderr
}

func approx(x *float64, want float64) bool { return x != nil && math.Abs(*x-want) < 1e-9 }

// TestJudgeEval_ByHand measures the judge through both providers' wire formats, from
// JSON lines and from CSV: the numbers are those worked out by hand above.
func TestJudgeEval_ByHand(t *testing.T) {
	for _, tc := range []struct{ provider, labels string }{{"anthropic", labelsJSONL(t)}, {"openai", labelsCSV(t)}} {
		t.Run(tc.provider, func(t *testing.T) {
			s, n := verdictLLM(t, "")
			key := map[string]string{"ANTHROPIC_API_KEY": judgeTestKey, "OPENAI_API_KEY": judgeTestKey}
			code, j, stderr := judgeEval(t, key, "--labels", tc.labels, "--judge", tc.provider, "--judge-base-url", s.URL, "--model", "m-test")
			want := [3][3]int{{2, 0, 1}, {0, 1, 1}, {1, 0, 3}}
			if code != exitOK || j.Confusion != want || j.Labels != 10 || j.Judged != 9 || j.Errors != 1 || j.Judge.Provider != tc.provider {
				t.Fatalf("exit %d, %+v, stderr %s", code, j, stderr)
			}
			if j.Accuracy.Value != 6.0/9 || !approx(j.Kappa, 0.46) || !approx(j.Incorrect.Precision, 0.6) || !approx(j.Incorrect.Recall, 0.75) {
				t.Errorf("accuracy %v, κ %v, precision %v, recall %v; want 6/9, 0.46, 0.6, 0.75", j.Accuracy.Value, *j.Kappa, *j.Incorrect.Precision, *j.Incorrect.Recall)
			}
			if len(j.ByClass) != 2 || j.ByClass[0].Class != "value" || j.ByClass[0].Caught != 1 || j.ByClass[1].Class != "condition" || j.ByClass[1].Caught != 2 {
				t.Errorf("recall by class %+v", j.ByClass)
			}
			if bad := j.Items[9]; bad.Verdict != "" || !strings.Contains(bad.Error, "400") {
				t.Errorf("the label the provider failed on: %+v; want its error, no verdict", bad)
			}
			// the cache answers a second time: only the failed label is asked again
			before := n.Load()
			code, j2, _ := judgeEval(t, key, "--labels", tc.labels, "--judge", tc.provider, "--judge-base-url", s.URL, "--model", "m-test", "--cache-dir", filepath.Dir(tc.labels))
			code3, j3, _ := judgeEval(t, key, "--labels", tc.labels, "--judge", tc.provider, "--judge-base-url", s.URL, "--model", "m-test", "--cache-dir", filepath.Dir(tc.labels))
			if code != exitOK || code3 != exitOK || j2.Confusion != want || j3.Confusion != want || n.Load()-before != 10+1 {
				t.Errorf("two more runs on one cache: %d requests, want 10 then 1", n.Load()-before)
			}
		})
	}
}

// TestJudgeEval_ConstantJudge: a judge that answers the same to everything agrees
// with the labels no better than chance, κ = 0, whatever its accuracy.
func TestJudgeEval_ConstantJudge(t *testing.T) {
	s, _ := verdictLLM(t, "incorrect")
	code, j, stderr := judgeEval(t, map[string]string{"ANTHROPIC_API_KEY": judgeTestKey}, "--labels", labelsJSONL(t), "--judge", "anthropic", "--judge-base-url", s.URL)
	if code != exitOK || j.Kappa == nil || *j.Kappa != 0 || j.Judged != 10 || j.Accuracy.Value != 0.5 || !approx(j.Incorrect.Recall, 1) {
		t.Errorf("exit %d, κ %v, judged %d, accuracy %v, stderr %s; want κ 0, 10 judged, accuracy 5/10, recall 1", code, j.Kappa, j.Judged, j.Accuracy.Value, stderr)
	}
}

func TestJudgeEval_BadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.jsonl", `{"expected":"SELECT 1","generated":"SELECT 2","label":"correct"}
{"expected":"SELECT 1","generated":"SELECT 2","label":"right"}
{"expected":"SELECT 1","label":"incorrect"}
`)
	code, _, stderr := runWithEnv(t, nil, "judge", "eval", "--labels", bad)
	if code != exitUsage || !strings.Contains(stderr, `bad.jsonl:2: label "right" is not correct, partially_correct or incorrect`) ||
		!strings.Contains(stderr, "bad.jsonl:3: no generated query") {
		t.Errorf("exit %d, stderr %s; want 2, naming lines 2 and 3", code, stderr)
	}
	code, _, stderr = runWithEnv(t, nil, "judge", "eval", "--labels", filepath.Join(dir, "none.jsonl"))
	if code == exitOK || !strings.Contains(stderr, "none.jsonl") {
		t.Errorf("a missing file: exit %d, stderr %s", code, stderr)
	}
	// no API key: no judge, said before anything is asked
	code, _, stderr = runWithEnv(t, nil, "judge", "eval", "--labels", labelsJSONL(t), "--cache-dir", dir)
	if code != exitUsage || !strings.Contains(stderr, "no judge") || !strings.Contains(stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("no key: exit %d, stderr %s", code, stderr)
	}
}

// TestJudgeEval_FromRun makes labels from a run's results: the cases execution settled
// become labels with their classes, and the judge is measured on them.
func TestJudgeEval_FromRun(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "-o", out, "--quiet", "--judge", "none"); code != exitThreshold && code != exitOK {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	var settled, incorrect, classed int
	for _, line := range readLines(t, filepath.Join(out, "results.jsonl")) {
		var c struct {
			Execution *struct{ Outcome string } `json:"execution"`
			Class     []struct{ Class string }  `json:"error_class"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if c.Execution == nil {
			continue
		}
		switch c.Execution.Outcome {
		case "match":
			settled++
		case "mismatch", "pred_error":
			settled, incorrect = settled+1, incorrect+1
			if len(c.Class) > 0 {
				classed++
			}
		}
	}
	s, _ := verdictLLM(t, "incorrect")
	saved := filepath.Join(t.TempDir(), "labels.jsonl")
	code, j, stderr := judgeEval(t, map[string]string{"ANTHROPIC_API_KEY": judgeTestKey}, "--labels", filepath.Join(out, "results.jsonl"),
		"--save-labels", saved, "--judge", "anthropic", "--judge-base-url", s.URL)
	if code != exitOK || j.Labels != settled || settled == 0 || incorrect == 0 || j.Errors != 0 {
		t.Fatalf("exit %d, %d labels from a run with %d settled cases (%d incorrect), stderr %s", code, j.Labels, settled, incorrect, stderr)
	}
	n := 0
	for _, c := range j.ByClass {
		n += c.N
	}
	if n != classed || classed == 0 {
		t.Errorf("labels by class count %d incorrect cases, the run classed %d", n, classed)
	}
	b, err := os.ReadFile(saved)
	if err != nil || strings.Count(string(b), "\n") != settled || !strings.Contains(string(b), `"source":"execution"`) {
		t.Errorf("saved labels (%v):\n%s", err, b)
	}
}
