package execmatch_test

import (
	"context"
	"sync"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
)

func mustEvaluator(tb testing.TB, opt execmatch.Options) *execmatch.Evaluator {
	tb.Helper()
	e, err := execmatch.New(opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return e
}

// TestRun_GoldErrorDoesNotAbort: a failing gold query (or a missing database) makes
// that item a gold_error and the other items are still judged.
func TestRun_GoldErrorDoesNotAbort(t *testing.T) {
	db := mustSingerDB(t)
	items := []qeval.Item{
		{Index: 0, Database: db, Gold: "SELECT count(*) FROM singer", Pred: "SELECT count(*) FROM singer"},
		{Index: 1, Database: db, Gold: "SELECT nope FROM singer", Pred: "SELECT name FROM singer"},
		{Index: 2, Database: db, Gold: "SELECT name FROM singer WHERE age > 40", Pred: "SELECT name FROM singer WHERE age > 41"},
		{Index: 3, Database: db + ".missing", Gold: "SELECT 1", Pred: "SELECT 1"},
		{Index: 4, Database: db, Gold: "SELECT max(age) FROM singer", Pred: "SELECT age FROM singer ORDER BY age DESC LIMIT 1"},
		{Index: 5, Database: db, Gold: "SELECT 1", Pred: "SELEC 1"},
	}
	want := []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeGoldError, qeval.OutcomeMismatch,
		qeval.OutcomeGoldError, qeval.OutcomeMatch, qeval.OutcomePredError}
	for _, workers := range []int{1, 3, 0} {
		e := mustEvaluator(t, spiderOpts(execmatch.Options{}))
		var mu sync.Mutex
		seen := map[int]bool{}
		vs, sum := e.Run(context.Background(), items, workers, func(i int, v qeval.Verdict) {
			mu.Lock()
			defer mu.Unlock()
			if seen[i] {
				t.Errorf("workers=%d: done called twice for item %d", workers, i)
			}
			seen[i] = true
		})
		if len(vs) != len(items) || len(seen) != len(items) {
			t.Fatalf("workers=%d: %d verdicts, done called for %d items, want %d", workers, len(vs), len(seen), len(items))
		}
		for i, v := range vs {
			if v.Outcome != want[i] {
				t.Errorf("workers=%d: item %d: %s (%s), want %s", workers, i, v.Outcome, v.Error, want[i])
			}
		}
		if sum.Total != 6 || sum.Correct != 2 || sum.Accuracy != 2.0/6 || sum.Mode != "spider-ts@1" {
			t.Errorf("workers=%d: summary %+v, want 2 of 6 correct under spider-ts@1", workers, sum)
		}
		wantCounts := map[qeval.Outcome]int{qeval.OutcomeMatch: 2, qeval.OutcomeGoldError: 2, qeval.OutcomeMismatch: 1, qeval.OutcomePredError: 1}
		for o, n := range wantCounts {
			if sum.Outcomes[o] != n {
				t.Errorf("workers=%d: Outcomes[%s]=%d, want %d (all: %v)", workers, o, sum.Outcomes[o], n, sum.Outcomes)
			}
		}
	}
}

// TestRun_Canceled: items not finished when the context ends are canceled.
func TestRun_Canceled(t *testing.T) {
	db := mustSingerDB(t)
	items := make([]qeval.Item, 4)
	for i := range items {
		items[i] = qeval.Item{Index: i, Database: db, Gold: "SELECT name FROM singer", Pred: "SELECT name FROM singer"}
	}
	t.Run("BeforeStart", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		vs, sum := mustEvaluator(t, spiderOpts(execmatch.Options{})).Run(ctx, items, 2, nil)
		for i, v := range vs {
			if v.Outcome != qeval.OutcomeCanceled || v.Match {
				t.Errorf("item %d: %s match=%v, want canceled", i, v.Outcome, v.Match)
			}
		}
		if sum.Outcomes[qeval.OutcomeCanceled] != len(items) || sum.Correct != 0 {
			t.Errorf("summary %+v, want every item canceled", sum)
		}
	})
	t.Run("AfterFirst", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		vs, _ := mustEvaluator(t, spiderOpts(execmatch.Options{})).Run(ctx, items, 1, func(i int, v qeval.Verdict) {
			if i == 0 {
				cancel()
			}
		})
		if vs[0].Outcome != qeval.OutcomeMatch {
			t.Errorf("item 0: %s %s, want match (it finished before the cancel)", vs[0].Outcome, vs[0].Error)
		}
		for i, v := range vs[1:] {
			if v.Outcome != qeval.OutcomeCanceled {
				t.Errorf("item %d: %s, want canceled", i+1, v.Outcome)
			}
		}
	})
}

func TestSummarize(t *testing.T) {
	vs := []qeval.Verdict{
		{Match: true, Outcome: qeval.OutcomeMatch, GoldTime: 2, PredTime: 3},
		{Outcome: qeval.OutcomeTimeout, GoldTime: 5, PredTime: 7},
		{Outcome: qeval.OutcomeMismatch},
		{Match: true, Outcome: qeval.OutcomeMatch},
	}
	s := execmatch.Summarize("bag@1", vs)
	if s.Mode != "bag@1" || s.Total != 4 || s.Correct != 2 || s.Accuracy != 0.5 || s.GoldTime != 7 || s.PredTime != 10 {
		t.Errorf("Summarize=%+v", s)
	}
	if s.Outcomes[qeval.OutcomeMatch] != 2 || s.Outcomes[qeval.OutcomeTimeout] != 1 || s.Outcomes[qeval.OutcomeMismatch] != 1 {
		t.Errorf("Outcomes=%v", s.Outcomes)
	}
	if z := execmatch.Summarize("bag@1", nil); z.Total != 0 || z.Accuracy != 0 {
		t.Errorf("Summarize(nil)=%+v", z)
	}
}
