package metric_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval/metric"
)

func sleeper(name string, d time.Duration) metric.Metric {
	return metric.Metric{Name: name, Func: func(ctx context.Context, _ *metric.Case, _ *metric.Options) (metric.Result, error) {
		select {
		case <-time.After(d):
			return metric.Scored(1, nil), nil
		case <-ctx.Done():
			return metric.Result{}, ctx.Err()
		}
	}}
}

// MC-REQ-08: the metrics of a case run concurrently, so the case takes as long as its
// slowest metric, not the sum. Each of four metrics waits until all four have started:
// run one after another, the first would wait until its deadline.
func TestEvaluate_Concurrent(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	barrier := func(name string) metric.Metric {
		return metric.Metric{Name: name, Func: func(ctx context.Context, _ *metric.Case, _ *metric.Options) (metric.Result, error) {
			started.Done()
			select {
			case <-all:
				return metric.Scored(1, nil), nil
			case <-ctx.Done():
				return metric.Result{}, ctx.Err()
			}
		}}
	}
	ms := []metric.Metric{barrier("a"), barrier("b"), barrier("c"), barrier("d")}
	rs := metric.Evaluate(context.Background(), metric.Case{}, metric.Options{Metrics: ms, Timeout: 10 * time.Second})
	if len(rs) != n {
		t.Fatalf("got %d results, want %d", len(rs), n)
	}
	for name, r := range rs {
		if r.Score == nil || *r.Score != 1 || r.Error != nil {
			t.Errorf("%s=%+v, want 1 (the metrics did not run at the same time)", name, r)
		}
	}
}

// A metric that panics, fails, or returns nothing scores 0 with an error naming it; the
// others keep their scores.
func TestEvaluate_Isolation(t *testing.T) {
	var logs bytes.Buffer
	boom := metric.Metric{Name: "boom", Func: func(context.Context, *metric.Case, *metric.Options) (metric.Result, error) {
		var m map[string]int
		m["x"] = 1 //lint:ignore SA5000 a nil map, to make the metric panic
		return metric.Result{}, nil
	}}
	broken := metric.Metric{Name: "broken", Func: func(context.Context, *metric.Case, *metric.Options) (metric.Result, error) {
		return metric.Result{}, errors.New("no good")
	}}
	empty := metric.Metric{Name: "empty", Func: func(context.Context, *metric.Case, *metric.Options) (metric.Result, error) {
		return metric.Result{}, nil
	}}
	ok := sleeper("ok", 0)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rs := metric.Evaluate(context.Background(), metric.Case{ID: "c7", Generated: "SELECT 1"}, metric.Options{
		Metrics: []metric.Metric{boom, broken, empty, ok},
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		Now:     func() time.Time { return now },
	})
	want := map[string]string{"boom": "panic: assignment to entry in nil map", "broken": "no good", "empty": "neither a score"}
	for name, msg := range want {
		checkFailed(t, rs[name], name, msg, now, logs.String())
	}
	if !strings.Contains(rs["boom"].Error.Stack, "evaluate_test.go") {
		t.Errorf("panic stack does not point at the test: %q", rs["boom"].Error.Stack)
	}
	// every failure has a short stack of qeval frames, not only a panic: a metric's
	// error should say where it gave up
	if st := rs["broken"].Error.Stack; !strings.Contains(st, "metric.") || strings.Contains(st, "runtime/") {
		t.Errorf("error stack = %q, want qeval frames only", st)
	}
	if r := rs["ok"]; r.Score == nil || *r.Score != 1 || r.Error != nil {
		t.Errorf("ok=%+v, want 1 despite the others", r)
	}
}

// A metric that ignores its context is cut at the deadline: Evaluate returns without
// waiting for it.
func TestEvaluate_StuckMetric(t *testing.T) {
	var logs bytes.Buffer
	release := make(chan struct{})
	var finished atomic.Bool
	stuck := metric.Metric{Name: "stuck", Func: func(ctx context.Context, _ *metric.Case, _ *metric.Options) (metric.Result, error) {
		<-release // ignores ctx
		finished.Store(true)
		return metric.Scored(1, nil), nil
	}}
	defer close(release)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	got := make(chan map[string]metric.Result, 1)
	go func() {
		got <- metric.Evaluate(context.Background(), metric.Case{ID: "c7", Generated: "SELECT 1"}, metric.Options{
			Metrics: []metric.Metric{stuck},
			Timeout: 20 * time.Millisecond,
			Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
			Now:     func() time.Time { return now },
		})
	}()
	var rs map[string]metric.Result
	select {
	case rs = <-got:
	case <-time.After(time.Minute): // a hang guard, not a bound: the metric never ends by itself
		t.Fatal("Evaluate waits for a metric that ignores its deadline")
	}
	if finished.Load() {
		t.Fatal("the stuck metric finished before Evaluate returned")
	}
	checkFailed(t, rs["stuck"], "stuck", "timed out after 20ms", now, logs.String())
}

// checkFailed checks that r is a failure of metric name: score 0, an error containing
// msg with the case's inputs and the clock's time, and a log line.
func checkFailed(t *testing.T, r metric.Result, name, msg string, now time.Time, logs string) {
	t.Helper()
	if r.Error == nil || r.Score == nil || *r.Score != 0 || !strings.Contains(r.Error.Message, msg) {
		t.Errorf("%s=%+v, want score 0 and an error containing %q", name, r, msg)
		return
	}
	if r.Error.Metric != name || r.Error.Inputs["generated"] != "SELECT 1" || !r.Error.Timestamp.Equal(now) {
		t.Errorf("%s error=%+v, want metric, inputs and the clock's time", name, r.Error)
	}
	if !strings.Contains(logs, "metric="+name) {
		t.Errorf("no log line for %s in %q", name, logs)
	}
}

func TestEvaluate_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := metric.Evaluate(ctx, metric.Case{}, metric.Options{Metrics: []metric.Metric{sleeper("slow", time.Hour)}})
	if r := rs["slow"]; r.Error == nil || r.Error.Message != "canceled" {
		t.Errorf("slow=%+v, want a canceled error", r)
	}
}

func TestEvaluate_AllMetrics(t *testing.T) {
	rs := metric.Evaluate(context.Background(), metric.Case{Generated: "SELECT name FROM users", Expected: "SELECT name FROM users"}, metric.Options{})
	if len(rs) != len(metric.Names()) {
		t.Fatalf("got %d results, want one per metric (%v)", len(rs), metric.Names())
	}
	if r := rs[metric.NameLLMGrading]; r.Skipped == nil || *r.Skipped != "no LLM judge configured (set --judge and an API key)" {
		t.Errorf("llm_grading=%+v, want skipped for want of a judge", r)
	}
	if r := rs[metric.NameQueryCorrectness]; r.Score == nil || *r.Score != 1 || r.Details["shortcut"] != "identical" {
		t.Errorf("query_correctness=%+v, want 1 for identical queries without a judge", r)
	}
	for _, n := range []string{metric.NameExecutionMatch, metric.NameSafetyValidation, metric.NameValidationAccuracy, metric.NameResultsMatch} {
		if r := rs[n]; r.Skipped == nil || r.Score != nil || r.Details == nil {
			t.Errorf("%s=%+v, want skipped with empty details", n, r)
		}
	}
	if r := rs[metric.NameTableAccuracy]; r.Score == nil || *r.Score != 1 {
		t.Errorf("table_accuracy=%+v, want 1", r)
	}
}

func TestLookup(t *testing.T) {
	ms, err := metric.Lookup("table_accuracy", "schema_match")
	if err != nil || len(ms) != 2 || ms[1].Name != "schema_match" {
		t.Fatalf("Lookup=%v, %v", ms, err)
	}
	_, err = metric.Lookup("table_acuracy")
	if err == nil || !strings.Contains(err.Error(), `unknown metric "table_acuracy" (known: execution_match, llm_grading,`) {
		t.Errorf("Lookup(unknown) error=%v", err)
	}
	want := []string{"execution_match", "table_accuracy", "safety_validation", "validation_accuracy", "query_correctness", "schema_match", "semantic_similarity", "results_match", "llm_grading"}
	if got := metric.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Names()=%v, want %v", got, want)
	}
}

// A generated query that does not parse is the model's failure: the metrics that parse
// it score 0 with the parser's message, marked generated_query, with no stack and no log
// line; the case's reason says it once. A metric's own fault keeps a short stack with
// paths from the module root, never the build machine's folders.
func TestEvaluate_GeneratedQueryThatDoesNotParse(t *testing.T) {
	var logs strings.Builder
	opt := metric.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	c := metric.Case{ID: "bad", Generated: "SELEC name FROM users", Expected: "SELECT name FROM users", ExpectedTables: []string{"users"}}
	rs := metric.Evaluate(context.Background(), c, opt)
	for _, n := range []string{metric.NameTableAccuracy, metric.NameSchemaMatch, metric.NameSemanticSimilarity} {
		r := rs[n]
		if r.Score == nil || *r.Score != 0 || r.Error == nil || !r.Error.GeneratedQuery || r.Error.Stack != "" || !strings.Contains(r.Error.Message, "line 1, col 1") {
			t.Errorf("%s = %+v (error %+v), want 0 marked as the generated query's, no stack", n, r, r.Error)
		}
	}
	if logs.Len() != 0 {
		t.Errorf("logged: %s", logs.String())
	}
	sc := metric.Score(context.Background(), c, metric.Config{Options: opt})
	if !strings.HasPrefix(sc.Reason, "generated query does not parse: line 1, col 1: ") {
		t.Errorf("reason %q", sc.Reason)
	}
	boom := metric.Metric{Name: "boom", Func: func(context.Context, *metric.Case, *metric.Options) (metric.Result, error) {
		var m map[string]int
		//lint:ignore SA5000 the metric panics on purpose: its stack is what the test reads
		m["x"] = 1
		return metric.Result{}, nil
	}}
	r := metric.Evaluate(context.Background(), c, metric.Options{Metrics: []metric.Metric{boom}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})["boom"]
	root, err := filepath.Abs("..") // the module's folder on this machine: no frame may name it
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.GeneratedQuery || !strings.Contains(r.Error.Stack, "metric/evaluate_test.go:") || strings.Contains(r.Error.Stack, root+string(filepath.Separator)) {
		t.Errorf("a panic's stack = %q, want module-relative frames", r.Error.Stack)
	}
}
