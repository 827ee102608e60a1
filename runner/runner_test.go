package runner_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/suite"
)

func ptr[T any](v T) *T { return &v }

// salesDB builds a small database for the runner's tests.
func salesDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sales.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, product TEXT, amount REAL)",
		"INSERT INTO sales (region, product, amount) VALUES ('north','tea',10),('north','coffee',20),('south','tea',5),('south','tea',7),('east','coffee',12)",
		"CREATE TABLE returns (id INTEGER PRIMARY KEY, product TEXT, amount REAL)",
		"INSERT INTO returns (product, amount) VALUES ('tea', 3), ('coffee', 4)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestScore_Renormalises(t *testing.T) {
	weights := qeval.DefaultWeights()
	m := map[string]qeval.MetricResult{
		"schema_match":        {Score: ptr(1.0)},
		"semantic_similarity": {Score: ptr(0.8)},
		"results_match":       {Score: ptr(0.6)},
		"llm_grading":         {Skipped: ptr("no judge")},
	}
	c := metric.Combine(m, weights)
	if c.Total == nil || *c.Total < 0.7999 || *c.Total > 0.8001 || !c.Partial || c.Missing[0] != "llm_grading" {
		t.Errorf("Score = %+v, want 0.8 over three components, partial", c)
	}
	if w := c.Components["semantic_similarity"]; *w.WeightedScore != 0.2 || w.Weight != 0.25 {
		t.Errorf("semantic component = %+v", w)
	}
	m["llm_grading"] = qeval.MetricResult{Score: ptr(0.0), Error: &qeval.MetricError{Message: "LLM judge timeout"}}
	c = metric.Combine(m, weights)
	if d := *c.Total - 0.6; d > 1e-9 || d < -1e-9 || c.Partial {
		t.Errorf("a failed component counts as 0: %+v", c)
	}
	c = metric.Combine(map[string]qeval.MetricResult{}, weights)
	if c.Total != nil {
		t.Errorf("nothing computed: total %v, want nil", *c.Total)
	}
}

// The seed's three worked scenarios: a perfect match passes at 100%, minor differences
// pass, a wrong table and grouping fails.
func TestRun_SeedScenarios(t *testing.T) {
	db := salesDB(t)
	expected := "SELECT region, SUM(amount) AS total FROM sales GROUP BY region"
	s := &qeval.Suite{Name: "seed", Database: db, Cases: []qeval.Case{
		{ID: "perfect", ExpectedQuery: expected, GeneratedQuery: ptr(expected)},
		{ID: "minor", ExpectedQuery: expected, GeneratedQuery: ptr("select REGION, sum(AMOUNT) as total from Sales s group by s.region order by 1")},
		{ID: "wrong", ExpectedQuery: expected, GeneratedQuery: ptr("SELECT product, SUM(amount) AS total FROM returns GROUP BY product")},
	}}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]qeval.CaseResult{}
	for _, c := range rep.Cases {
		got[c.ID] = c
	}
	if c := got["perfect"]; c.Status != qeval.StatusPass || *c.TotalScore != 1 || !c.Partial {
		t.Errorf("perfect: %s %v partial=%v (%s)", c.Status, deref(c.TotalScore), c.Partial, c.Reason)
	}
	if c := got["minor"]; c.Status != qeval.StatusPass || *c.TotalScore < 0.9 {
		t.Errorf("minor: %s %v (%s)", c.Status, deref(c.TotalScore), c.Reason)
	}
	if c := got["wrong"]; c.Status != qeval.StatusFail || *c.TotalScore >= 0.9 || !strings.Contains(c.Reason, "below the threshold") {
		t.Errorf("wrong: %s %v (%s)", c.Status, deref(c.TotalScore), c.Reason)
	}
	if j := rep.Run.Judge; j == nil || j.Skipped == "" {
		t.Errorf("judge info %+v, want skipped with a reason", j)
	}
	if m := got["perfect"].Metrics["llm_grading"]; m.Skipped == nil {
		t.Errorf("llm_grading = %+v, want skipped", m)
	}
	if rep.Summary.Passed != 2 || rep.Summary.Failed != 1 || rep.Summary.ExecutionAccuracy == nil || rep.Run.Mode != "bag@1" {
		t.Errorf("summary %+v, mode %s", rep.Summary, rep.Run.Mode)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestRun_ErrorsStayInTheirCase(t *testing.T) {
	db := salesDB(t)
	s := &qeval.Suite{Name: "errors", Database: db, Cases: []qeval.Case{
		{ID: "ok", ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: ptr("SELECT count(*) FROM sales")},
		{ID: "gold", ExpectedQuery: "SELECT nope FROM sales", GeneratedQuery: ptr("SELECT 1")},
		{ID: "pred", ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: ptr("SELEC count(*) FROM sales")},
		{ID: "none", ExpectedQuery: "SELECT 1"},
		{ID: "write", ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: ptr("DELETE FROM sales")},
	}}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ok": qeval.StatusPass, "gold": qeval.StatusError, "pred": qeval.StatusFail, "none": qeval.StatusError, "write": qeval.StatusFail}
	for _, c := range rep.Cases {
		if c.Status != want[c.ID] {
			t.Errorf("case %s: %s (%s), want %s", c.ID, c.Status, c.Reason, want[c.ID])
		}
		if c.ID != "ok" && c.Reason == "" {
			t.Errorf("case %s has no reason", c.ID)
		}
	}
	if n := len(rep.Cases); n != 5 {
		t.Fatalf("%d cases", n)
	}
}

// A command target is a real program: it gets the case (never the expected query) on
// stdin and answers with JSON; an HTTP target gets the same over POST.
func TestRun_Targets(t *testing.T) {
	db := salesDB(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "sut.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
input=$(cat)
case "$input" in
  *'"expected'*) echo '{"query": "SELECT 0"}' ;;
  *'"id":"a"'*) echo '{"query": "SELECT count(*) FROM sales", "confidence": "high"}' ;;
  *'"id":"b"'*) echo "not json" ;;
  *) exit 3 ;;
esac
`), 0o755)
	cases := []qeval.Case{
		{ID: "a", Question: "How many sales?", ExpectedQuery: "SELECT count(*) FROM sales"},
		{ID: "b", ExpectedQuery: "SELECT 1"},
		{ID: "c", ExpectedQuery: "SELECT 1"},
	}
	s := &qeval.Suite{Name: "t", Database: db, Cases: cases}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Target: &runner.Command{Argv: []string{script}}})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]qeval.CaseResult{}
	for _, c := range rep.Cases {
		byID[c.ID] = c
	}
	if c := byID["a"]; c.Status != qeval.StatusPass || c.Target == nil || c.Target.Kind != "command" || c.Confidence.Level != "high" {
		t.Errorf("a: %+v", c)
	}
	if c := byID["b"]; c.Status != qeval.StatusError || !strings.Contains(c.Reason, "not JSON") {
		t.Errorf("b: %s %s", c.Status, c.Reason)
	}
	if c := byID["c"]; c.Status != qeval.StatusError || c.Target.Error == "" {
		t.Errorf("c: %s %+v", c.Status, c.Target)
	}

	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(body, &req)
		if _, leaked := req["expected_query"]; leaked || r.Header.Get("X-Key") != "k" {
			http.Error(w, "bad request", 400)
			return
		}
		if req["id"] == "c" {
			http.Error(w, "model overloaded", http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"query": "SELECT count(*) FROM sales"})
	}))
	defer srv.Close()
	rep, err = runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Target: &runner.HTTP{URL: srv.URL, Headers: map[string]string{"X-Key": "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls", calls.Load())
	}
	for _, c := range rep.Cases {
		switch c.ID {
		case "a":
			if c.Status != qeval.StatusPass {
				t.Errorf("http a: %s %s", c.Status, c.Reason)
			}
		case "c":
			if c.Status != qeval.StatusError || !strings.Contains(c.Reason, "503") {
				t.Errorf("http c: %s %s", c.Status, c.Reason)
			}
		}
	}
}

// A run killed half-way resumes from its results file without redoing or losing a
// finished case.
func TestRun_Resume(t *testing.T) {
	db := salesDB(t)
	var cases []qeval.Case
	for i := 0; i < 8; i++ {
		cases = append(cases, qeval.Case{ID: string(rune('a' + i)), ExpectedQuery: "SELECT count(*) FROM sales"})
	}
	s := &qeval.Suite{Name: "r", Database: db, Cases: cases}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := runner.CreateResults(results)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	target := &countingTarget{calls: &calls}
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int32
	rep, err := runner.Run(ctx, s, runner.Config{Catalog: catalogOf(s), Target: target, Concurrency: 1, OnCase: func(r qeval.CaseResult) {
		w.Append(r)
		if done.Add(1) == 3 {
			cancel()
		}
	}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Run.Interrupted || len(rep.Cases) < 3 || len(rep.Cases) == 8 {
		t.Fatalf("first run: interrupted=%v with %d cases", rep.Run.Interrupted, len(rep.Cases))
	}
	// a kill can leave half a line at the end
	f, _ := os.OpenFile(results, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id": "h", "status": "PA`)
	f.Close()
	loaded, err := runner.LoadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	finished := loaded.Done
	if loaded.TornLine == 0 {
		t.Errorf("the half line was not reported")
	}
	first := calls.Load()
	rep, err = runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Target: target, Done: finished})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 8 || rep.Summary.Passed != 8 {
		t.Errorf("resumed run has %d cases, %d passed", len(rep.Cases), rep.Summary.Passed)
	}
	if again := calls.Load() - first; int(again) != 8-len(finished) {
		t.Errorf("resume called the target %d times for %d unfinished cases", again, 8-len(finished))
	}
}

// A run killed at any byte of its results file, several times over, resumes each time
// to a valid file, and the final report equals an uninterrupted run's (issue 24: the
// second --resume after a torn line failed with "not a case result").
func TestRun_ResumeAfterRepeatedKills(t *testing.T) {
	db := salesDB(t)
	var cases []qeval.Case
	for i := 0; i < 12; i++ {
		q := fmt.Sprintf("SELECT count(*) + %d FROM sales", i%3)
		cases = append(cases, qeval.Case{ID: fmt.Sprintf("c%02d", i), ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: &q})
	}
	s := &qeval.Suite{Name: "kills", Database: db, Cases: cases}
	fixed := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	want, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 1, Now: fixed})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rng := rand.New(rand.NewPCG(7, 24))
	var loaded *runner.Results
	for kill := 0; ; kill++ {
		var w *runner.ResultsWriter
		if loaded == nil {
			w, err = runner.CreateResults(path)
		} else {
			w, err = runner.ResumeResults(path, loaded)
		}
		if err != nil {
			t.Fatal(err)
		}
		cfg := runner.Config{Catalog: catalogOf(s), Concurrency: 1, Now: fixed, OnCase: func(r qeval.CaseResult) { w.Append(r) }}
		if loaded != nil {
			cfg.Done = loaded.Done
		}
		rep, err := runner.Run(context.Background(), s, cfg)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if kill == 4 {
			// the last run went to the end: its report is the uninterrupted one's
			if len(rep.Cases) != len(want.Cases) {
				t.Fatalf("final run has %d cases, want %d", len(rep.Cases), len(want.Cases))
			}
			for i := range rep.Cases {
				g, w := rep.Cases[i], want.Cases[i]
				if g.ID != w.ID || g.Status != w.Status || *g.TotalScore != *w.TotalScore || g.Verdict.Outcome != w.Verdict.Outcome {
					t.Errorf("case %s: %s %v %s, want %s %v %s", g.ID, g.Status, *g.TotalScore, g.Verdict.Outcome, w.Status, *w.TotalScore, w.Verdict.Outcome)
				}
			}
			if rep.Summary.Passed != want.Summary.Passed || rep.Summary.Failed != want.Summary.Failed {
				t.Errorf("summary %+v, want %+v", rep.Summary, want.Summary)
			}
			break
		}
		// a kill at a random byte: the file is cut there, mid-line or not
		st, _ := os.Stat(path)
		cut := rng.Int64N(st.Size() + 1)
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		if loaded, err = runner.LoadResults(path); err != nil {
			t.Fatalf("kill %d at byte %d: %v", kill, cut, err)
		}
	}
	// every line of the final file is a whole case result
	final, err := runner.LoadResults(path)
	if err != nil || final.TornLine != 0 || len(final.Done) != len(cases) {
		t.Errorf("final file: %v, torn line %d, %d cases", err, final.TornLine, len(final.Done))
	}
}

type countingTarget struct{ calls *atomic.Int32 }

func (countingTarget) Kind() string { return "predictions" }

func (t *countingTarget) Generate(ctx context.Context, _ *qeval.Suite, c qeval.Case) (runner.Output, error) {
	t.calls.Add(1)
	return runner.Output{Query: "SELECT count(*) FROM sales"}, nil
}

func TestLoadResults_BadLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(p, []byte("{\"id\":\"a\",\"status\":\"PASS\"}\nnot json\n{\"id\":\"b\"}\n"), 0o644)
	_, err := runner.LoadResults(p)
	if err == nil || !strings.Contains(err.Error(), p+":2") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadPredictions(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "p.jsonl")
	os.WriteFile(jl, []byte(`{"id": "x", "query": "SELECT 2", "confidence": 0.4}`+"\n"), 0o644)
	p, err := runner.LoadPredictions(jl)
	if err != nil {
		t.Fatal(err)
	}
	s := &qeval.Suite{Cases: []qeval.Case{{ID: "x"}, {ID: "y"}}}
	o, err := p.Generate(context.Background(), s, s.Cases[0])
	if err != nil || o.Query != "SELECT 2" || *o.Confidence.Value != 0.4 {
		t.Errorf("x: %+v %v", o, err)
	}
	if _, err := p.Generate(context.Background(), s, s.Cases[1]); err == nil || !strings.Contains(err.Error(), `no prediction for case "y"`) {
		t.Errorf("y: %v", err)
	}
	txt := filepath.Join(dir, "p.txt")
	os.WriteFile(txt, []byte("SELECT 1\nSELECT 2\n"), 0o644)
	p, _ = runner.LoadPredictions(txt)
	if o, _ := p.Generate(context.Background(), s, s.Cases[1]); o.Query != "SELECT 2" {
		t.Errorf("by line: %+v", o)
	}
}

// gaugeTarget records how many calls run at once.
type gaugeTarget struct{ now, max atomic.Int32 }

func (*gaugeTarget) Kind() string { return "url" }

func (g *gaugeTarget) Generate(ctx context.Context, _ *qeval.Suite, c qeval.Case) (runner.Output, error) {
	n := g.now.Add(1)
	for {
		m := g.max.Load()
		if n <= m || g.max.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-time.After(20 * time.Millisecond):
	case <-ctx.Done():
	}
	g.now.Add(-1)
	return runner.Output{Query: "SELECT count(*) FROM sales"}, nil
}

// A target's own concurrency bounds its calls, whatever the run's concurrency.
func TestRun_TargetConcurrency(t *testing.T) {
	db := salesDB(t)
	var cases []qeval.Case
	for i := 0; i < 8; i++ {
		cases = append(cases, qeval.Case{ID: string(rune('a' + i)), ExpectedQuery: "SELECT count(*) FROM sales"})
	}
	for _, limit := range []int{1, 2} {
		g := &gaugeTarget{}
		s := &qeval.Suite{Name: "tc", Database: db, Cases: cases, Target: &qeval.Target{Concurrency: limit}}
		if _, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Target: g, Concurrency: 8}); err != nil {
			t.Fatal(err)
		}
		if got := int(g.max.Load()); got != limit {
			t.Errorf("target concurrency %d: at most %d calls at once, want exactly %d", limit, got, limit)
		}
	}
}

// A suite's target names its predictions file and its command relative to the suite's
// folder; the command runs there.
func TestNewTarget_RelativeToSuite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"id": "a", "query": "SELECT 7"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sut.sh"), []byte("#!/bin/sh\ncat >/dev/null\n[ -f p.jsonl ] && echo '{\"query\": \"SELECT 8\"}'\n"), 0o755)
	s := &qeval.Suite{Cases: []qeval.Case{{ID: "a"}}}
	for _, c := range []struct {
		target qeval.Target
		want   string
	}{
		{qeval.Target{Predictions: "p.jsonl"}, "SELECT 7"},
		{qeval.Target{Command: []string{"./sut.sh"}}, "SELECT 8"},
	} {
		tg, err := runner.NewTarget(&c.target, dir)
		if err != nil {
			t.Fatalf("%+v: %v", c.target, err)
		}
		o, err := tg.Generate(context.Background(), s, s.Cases[0])
		if err != nil || o.Query != c.want {
			t.Errorf("%+v: %q %v, want %q", c.target, o.Query, err, c.want)
		}
	}
	if tg, _ := runner.NewTarget(nil, dir); tg.Kind() != "inline" {
		t.Errorf("no target: %s", tg.Kind())
	}
}

// catalogOf resolves a suite's databases beside its file, as qeval run does.
func catalogOf(s *qeval.Suite) *registry.Catalog { return &registry.Catalog{Dir: suite.Dir(s)} }

// The composite can pass a query whose results differ (a missing DISTINCT finds every
// expected row), and a query that did not run scores 0 on the result-based components
// (issue 21, item 10). pass_requires: [score, execution] requires both verdicts.
func TestRun_ScoreAndExecutionVerdicts(t *testing.T) {
	db := salesDB(t)
	noDistinct, broken := "SELECT region FROM sales", "SELECT regio FROM sales"
	cases := []qeval.Case{
		{ID: "distinct", ExpectedQuery: "SELECT DISTINCT region FROM sales", GeneratedQuery: &noDistinct},
		{ID: "broken", ExpectedQuery: "SELECT region FROM sales", GeneratedQuery: &broken},
	}
	s := &qeval.Suite{Name: "v", Database: db, Cases: cases}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, b := rep.Cases[0], rep.Cases[1]
	if d.Status != qeval.StatusPass || d.Verdict.Match {
		t.Errorf("distinct: %s, match %v; want PASS on score with results that differ", d.Status, d.Verdict.Match)
	}
	if rep.Summary.Disagreements == nil || rep.Summary.Disagreements.ScoreWithoutMatch != 1 {
		t.Errorf("disagreements = %+v, want 1 pass on score with results that differ", rep.Summary.Disagreements)
	}
	for _, n := range []string{metric.NameResultsMatch, metric.NameSchemaMatch} {
		if m := b.Metrics[n]; m.Score == nil || *m.Score != 0 {
			t.Errorf("broken: %s = %+v, want 0 (the query did not run)", n, m)
		}
	}
	s.PassRequires = []string{"score", "execution"}
	rep, err = runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Cases[0]; c.Status != qeval.StatusFail || !strings.Contains(c.Reason, "results do not match") {
		t.Errorf("with pass_requires execution: %s %q", c.Status, c.Reason)
	}

	// execution alone: a case whose results match passes whatever its total
	// (written another way: its total is below 1 though its results match, columns
	// lined up by value included)
	renamed := "SELECT region AS r FROM sales GROUP BY region"
	s.Cases = append(s.Cases, qeval.Case{ID: "renamed", ExpectedQuery: "SELECT DISTINCT region FROM sales", GeneratedQuery: &renamed})
	s.Threshold = new(float64)
	*s.Threshold = 1
	s.PassRequires = []string{"execution"}
	rep, err = runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rep.Cases {
		got[c.ID] = c.Status
	}
	if got["distinct"] != qeval.StatusFail || got["broken"] != qeval.StatusFail || got["renamed"] != qeval.StatusPass || rep.Cases[2].TotalScore == nil || *rep.Cases[2].TotalScore >= 1 {
		t.Errorf("pass_requires [execution]: %v (renamed total %v), want only renamed to pass, below the threshold", got, rep.Cases[2].TotalScore)
	}
}

type panickyTarget struct{}

func (panickyTarget) Kind() string { return "command" }
func (panickyTarget) Generate(_ context.Context, _ *qeval.Suite, c qeval.Case) (runner.Output, error) {
	if c.ID == "boom" {
		panic("target exploded")
	}
	return runner.Output{Query: "SELECT 1"}, nil
}

// A case that panics is an ERROR for that case; the run and the other cases go on.
func TestRun_PanicIsolated(t *testing.T) {
	db := salesDB(t)
	s := &qeval.Suite{Name: "p", Database: db, Cases: []qeval.Case{{ID: "ok", ExpectedQuery: "SELECT 1"}, {ID: "boom", ExpectedQuery: "SELECT 1"}}}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Target: panickyTarget{}, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]qeval.CaseResult{}
	for _, c := range rep.Cases {
		byID[c.ID] = c
	}
	if byID["ok"].Status != qeval.StatusPass || byID["boom"].Status != qeval.StatusError || !strings.Contains(byID["boom"].Reason, "target exploded") {
		t.Errorf("ok %s, boom %s %q", byID["ok"].Status, byID["boom"].Status, byID["boom"].Reason)
	}
}

// The results writer is the run's case store: a case written is read back whole (with
// its secrets masked, as in every report), an id it did not write is not found, a case
// JSON cannot hold is refused alone, and a read after CloseRead is an error, never a
// silent miss.
func TestResultsWriter_Store(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := runner.CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Secrets = qeval.Secrets{"hunter2"}
	score := 0.5
	a := qeval.CaseResult{ID: "a", Status: qeval.StatusFail, TotalScore: &score, Reason: "password hunter2 leaked",
		Metrics: map[string]qeval.MetricResult{"execution_match": {Score: &score, Details: map[string]any{"rows": 3}}}}
	nan := math.NaN()
	bad := qeval.CaseResult{ID: "bad", Metrics: map[string]qeval.MetricResult{"x": {Score: &nan}}}
	b := qeval.CaseResult{ID: "b", Status: qeval.StatusPass}
	if err := w.Put(a); err != nil {
		t.Fatal(err)
	}
	if err := w.Put(bad); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("a NaN score: %v, want an error naming the case", err)
	}
	if err := w.Put(b); err != nil {
		t.Fatalf("the writer stopped after a case it could not encode: %v", err)
	}
	got, ok, err := w.Load("a")
	if err != nil || !ok || !strings.Contains(got.Reason, "leaked") || strings.Contains(got.Reason, "hunter2") ||
		got.Metrics["execution_match"].Details["rows"] != 3.0 || *got.TotalScore != 0.5 {
		t.Fatalf("Load(a) = %+v, %v, %v", got, ok, err)
	}
	if got, ok, err := w.Load("b"); err != nil || !ok || got.Status != qeval.StatusPass {
		t.Fatalf("Load(b) = %+v, %v, %v", got, ok, err)
	}
	if _, ok, err := w.Load("bad"); ok || err != nil {
		t.Fatalf("Load(bad) = %v, %v; want not found", ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := w.Load("a"); !ok || err != nil {
		t.Fatalf("Load after Close (reports are written after the run): %v, %v", ok, err)
	}
	w.CloseRead()
	if _, _, err := w.Load("a"); err == nil {
		t.Fatal("Load after CloseRead: no error")
	}
	loaded, err := runner.LoadResults(path)
	if err != nil || len(loaded.Done) != 2 {
		t.Fatalf("the file holds %v cases (%v), want a and b", loaded, err)
	}
}

// brokenStream gives its cases, then fails as a file changed under a run would.
type brokenStream struct {
	cases []qeval.Case
}

func (b *brokenStream) Len() int { return len(b.cases) + 1 }

func (b *brokenStream) Each(fn func(i int, c qeval.Case) error) error {
	for i, c := range b.cases {
		if err := fn(i, c); err != nil {
			return err
		}
	}
	return &qeval.Error{Code: qeval.CodeInvalid, Message: "the file changed since the run started"}
}

// A streamed suite is walked as the run goes; one that cannot be read to its end keeps
// the cases that finished, and the report says the run stopped and why.
func TestRun_StreamedSuiteStopsKeepingFinishedCases(t *testing.T) {
	db := salesDB(t)
	st := &brokenStream{cases: []qeval.Case{
		{ID: "a", ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: ptr("SELECT count(*) FROM sales")},
		{ID: "b", ExpectedQuery: "SELECT count(*) FROM sales", GeneratedQuery: ptr("SELECT 1")},
	}}
	s := &qeval.Suite{Name: "streamed", Database: db, Stream: st}
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: catalogOf(s), Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 2 || rep.Cases[0].ID != "a" || rep.Cases[1].ID != "b" || rep.Summary.Total != 2 {
		t.Errorf("cases %d (summary %d), want a and b kept", len(rep.Cases), rep.Summary.Total)
	}
	if !rep.Run.Interrupted || !strings.Contains(rep.Run.StoppedBy, "the file changed") {
		t.Errorf("run %+v: want interrupted, stopped by the read error", rep.Run)
	}
}
