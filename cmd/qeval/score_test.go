package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/testdata"
)

// runCmd runs the CLI in memory with stdin and returns the exit code, stdout and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

type scoreJSON struct {
	Metrics map[string]struct {
		Score   *float64       `json:"score"`
		Details map[string]any `json:"details"`
		Error   *struct {
			Metric  string            `json:"metric"`
			Message string            `json:"message"`
			Inputs  map[string]string `json:"inputs"`
		} `json:"error"`
		Skipped *string `json:"skipped"`
	} `json:"metrics"`
}

func scoreOf(t *testing.T, args ...string) scoreJSON {
	t.Helper()
	code, out, stderr := runCmd(t, "", append([]string{"score", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("qeval score %v: exit %d, stderr %q", args, code, stderr)
	}
	var s scoreJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return s
}

func TestScore_JSON(t *testing.T) {
	s := scoreOf(t, "--generated", "SELECT * FROM users", "--expected-tables", "users,orders",
		"--safety-valid", "false", "--should-pass", "true", "--is-valid", "false", "--validator-error", "DROP is not allowed")
	names := []string{"execution_match", "table_accuracy", "safety_validation", "validation_accuracy", "query_correctness",
		"schema_match", "semantic_similarity", "results_match", "llm_grading"}
	if len(s.Metrics) != len(names) {
		t.Errorf("got %d metrics, want %d", len(s.Metrics), len(names))
	}
	for _, n := range names {
		if _, ok := s.Metrics[n]; !ok {
			t.Errorf("metric %s missing from the output", n)
		}
	}
	if m := s.Metrics["table_accuracy"]; m.Score == nil || *m.Score != 0.5 {
		t.Errorf("table_accuracy=%+v, want 0.5", m)
	}
	if m := s.Metrics["safety_validation"]; m.Score == nil || *m.Score != 0 || m.Details["warning"] != "Safe query incorrectly blocked" {
		t.Errorf("safety_validation=%+v, want a false positive", m)
	}
	if m := s.Metrics["validation_accuracy"]; m.Details["type"] != "false rejection" || m.Details["category"] != "safety" {
		t.Errorf("validation_accuracy=%+v, want a false rejection in category safety", m)
	}
	if m := s.Metrics["execution_match"]; m.Skipped == nil || *m.Skipped != "no --db given" {
		t.Errorf("execution_match=%+v, want skipped: no --db given", m)
	}
	// The test environment has no API key, so the judge-based metrics say so.
	for _, n := range []string{"query_correctness", "llm_grading"} {
		if m := s.Metrics[n]; m.Skipped == nil || !strings.HasPrefix(*m.Skipped, "no LLM judge") || m.Score != nil {
			t.Errorf("%s=%+v, want skipped without a judge", n, m)
		}
	}
	none := scoreOf(t, "--generated", "SELECT 1", "--expected", "SELECT 2", "--judge", "none")
	if m := none.Metrics["query_correctness"]; m.Skipped == nil || *m.Skipped != "no LLM judge configured (--judge none)" {
		t.Errorf("--judge none: query_correctness=%+v", m)
	}
}

func TestScore_MalformedSQL(t *testing.T) {
	s := scoreOf(t, "--generated", "SELEC name FROM users", "--expected", "SELECT name FROM users",
		"--safety-valid", "true", "--should-pass", "true")
	m := s.Metrics["table_accuracy"]
	if m.Score == nil || *m.Score != 0 || m.Error == nil || !strings.Contains(m.Error.Message, "parse generated query") ||
		m.Error.Inputs["generated"] != "SELEC name FROM users" {
		t.Errorf("table_accuracy=%+v, want 0 with the parse error", m)
	}
	if m := s.Metrics["safety_validation"]; m.Score == nil || *m.Score != 1 {
		t.Errorf("safety_validation=%+v, want 1: the other metrics go on", m)
	}
}

func spiderDB(t *testing.T, id string) string {
	t.Helper()
	return qeval.BenchmarkFile(filepath.Join(testdata.SharedDir(t), "spider", "database"), id)
}

func TestScore_WithDB(t *testing.T) {
	db := spiderDB(t, "concert_singer")
	s := scoreOf(t, "--db", db, "--generated", "SELECT Name, Age FROM singer WHERE Age > 30",
		"--expected", "SELECT name FROM singer WHERE age > 30 ORDER BY name")
	if m := s.Metrics["execution_match"]; m.Score == nil || *m.Score != 0 || m.Details["outcome"] != "mismatch" {
		t.Errorf("execution_match=%+v, want a mismatch (extra column)", m)
	}
	if m := s.Metrics["results_match"]; m.Score == nil || *m.Score != 1 {
		t.Errorf("results_match=%+v, want 1 (every expected row is there)", m)
	}
	if m := s.Metrics["schema_match"]; m.Score == nil || *m.Score != 1 || m.Details["source"] != "results" {
		t.Errorf("schema_match=%+v, want 1 from the results", m)
	}
	same := scoreOf(t, "--db", db, "--generated", "SELECT count(*) FROM singer", "--expected", "SELECT COUNT(*) FROM singer")
	if m := same.Metrics["execution_match"]; m.Score == nil || *m.Score != 1 {
		t.Errorf("execution_match=%+v, want 1", m)
	}
}

func TestScore_Table(t *testing.T) {
	code, out, _ := runCmd(t, "", "score", "--generated", "SELECT a FROM t", "--expected", "SELECT a FROM t")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"METRIC", "table_accuracy       1.000", "execution_match      skipped  no --db given"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestScore_Usage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"score"}, exitUsage, "missing --generated"},
		{[]string{"score", "--generated", "SELECT 1", "--should-pass", "maybe"}, exitUsage, `"maybe" is not a boolean`},
		{[]string{"score", "--generated", "SELECT 1", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"score", "--generated", "SELECT 1", "--expected", "SELECT 1", "--db", "no/such.sqlite"}, exitFailed, "no such file"},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(t, "", tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("qeval %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}
