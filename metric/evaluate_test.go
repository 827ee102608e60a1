package metric_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
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
// slowest metric, not the sum. Four metrics of 50ms each take about 50ms, not 200ms.
func TestEvaluate_Concurrent(t *testing.T) {
	const d = 50 * time.Millisecond
	ms := []metric.Metric{sleeper("a", d), sleeper("b", d), sleeper("c", d), sleeper("d", d)}
	start := time.Now()
	rs := metric.Evaluate(context.Background(), metric.Case{}, metric.Options{Metrics: ms})
	took := time.Since(start)
	if len(rs) != 4 {
		t.Fatalf("got %d results, want 4", len(rs))
	}
	for n, r := range rs {
		if r.Score == nil || *r.Score != 1 {
			t.Errorf("%s=%+v, want 1", n, r)
		}
	}
	if took < d || took >= 3*d {
		t.Errorf("four %v metrics took %v, want under %v (concurrent)", d, took, 3*d)
	}
}

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
	stuck := metric.Metric{Name: "stuck", Func: func(ctx context.Context, _ *metric.Case, _ *metric.Options) (metric.Result, error) {
		time.Sleep(300 * time.Millisecond) // ignores ctx
		return metric.Scored(1, nil), nil
	}}
	empty := metric.Metric{Name: "empty", Func: func(context.Context, *metric.Case, *metric.Options) (metric.Result, error) {
		return metric.Result{}, nil
	}}
	ok := sleeper("ok", 0)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	start := time.Now()
	rs := metric.Evaluate(context.Background(), metric.Case{ID: "c7", Generated: "SELECT 1"}, metric.Options{
		Metrics: []metric.Metric{boom, broken, stuck, empty, ok},
		Timeout: 20 * time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		Now:     func() time.Time { return now },
	})
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("Evaluate took %v; the stuck metric should have been cut at 20ms", took)
	}
	want := map[string]string{"boom": "panic: assignment to entry in nil map", "broken": "no good", "stuck": "timed out after 20ms", "empty": "neither a score"}
	for name, msg := range want {
		r := rs[name]
		if r.Error == nil || r.Score == nil || *r.Score != 0 || !strings.Contains(r.Error.Message, msg) {
			t.Errorf("%s=%+v, want score 0 and an error containing %q", name, r, msg)
			continue
		}
		if r.Error.Metric != name || r.Error.Inputs["generated"] != "SELECT 1" || !r.Error.Timestamp.Equal(now) {
			t.Errorf("%s error=%+v, want metric, inputs and the clock's time", name, r.Error)
		}
		if !strings.Contains(logs.String(), "metric="+name) {
			t.Errorf("no log line for %s in %q", name, logs.String())
		}
	}
	if !strings.Contains(rs["boom"].Error.Stack, "evaluate_test.go") {
		t.Errorf("panic stack does not point at the test: %q", rs["boom"].Error.Stack)
	}
	// every failure has a short stack of qeval frames, not only a panic (issue 21)
	if st := rs["broken"].Error.Stack; !strings.Contains(st, "metric.") || strings.Contains(st, "runtime/") {
		t.Errorf("error stack = %q, want qeval frames only", st)
	}
	if r := rs["ok"]; r.Score == nil || *r.Score != 1 || r.Error != nil {
		t.Errorf("ok=%+v, want 1 despite the others", r)
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
	for _, n := range []string{metric.NameQueryCorrectness, metric.NameLLMGrading} {
		if r := rs[n]; r.Skipped == nil || *r.Skipped != "no LLM judge configured (set --judge and an API key)" {
			t.Errorf("%s=%+v, want skipped for want of a judge", n, r)
		}
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
