package execmatch

import (
	"context"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
)

// Summary aggregates the verdicts of a batch.
type Summary struct {
	Mode     string                `json:"mode"`
	Total    int                   `json:"total"`
	Correct  int                   `json:"correct"`
	Accuracy float64               `json:"accuracy"`
	Outcomes map[qeval.Outcome]int `json:"outcomes"`
	// GoldTime and PredTime add up the time spent executing each side.
	GoldTime time.Duration `json:"gold_ns"`
	PredTime time.Duration `json:"pred_ns"`
	Wall     time.Duration `json:"wall_ns"`
}

// Summarize counts verdicts. Accuracy is correct / total over all items; gold errors
// count as not correct and are reported in Outcomes.
func Summarize(mode string, vs []qeval.Verdict) Summary {
	s := Summary{Mode: mode, Total: len(vs), Outcomes: map[qeval.Outcome]int{}}
	for _, v := range vs {
		s.Outcomes[v.Outcome]++
		if v.Match {
			s.Correct++
		}
		s.GoldTime += v.GoldTime
		s.PredTime += v.PredTime
	}
	if s.Total > 0 {
		s.Accuracy = float64(s.Correct) / float64(s.Total)
	}
	return s
}

// Run judges every item with at most workers at a time (GOMAXPROCS when workers <= 0)
// and returns the verdicts in input order with their summary. done, when set, is called
// after each item (from the worker goroutines; it must not block). When ctx ends, items
// not yet finished are canceled.
func (e *Evaluator) Run(ctx context.Context, items []qeval.Item, workers int, done func(i int, v qeval.Verdict)) ([]qeval.Verdict, Summary) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	out := make([]qeval.Verdict, len(items))
	// A database is closed as soon as no item is left for it, so a run over many
	// databases holds only the ones in use.
	var mu sync.Mutex
	left := map[string]int{}
	for _, it := range items {
		left[it.Database]++
	}
	finished := func(db string) {
		mu.Lock()
		left[db]--
		last := left[db] == 0
		mu.Unlock()
		if last {
			e.release(ctx, db)
		}
	}
	g := new(errgroup.Group)
	g.SetLimit(workers)
	for i := range items {
		if ctx.Err() != nil {
			out[i] = qeval.Verdict{Mode: e.mode.ID(), Outcome: qeval.OutcomeCanceled, Error: "canceled before the item started"}
			if done != nil {
				done(i, out[i])
			}
			continue
		}
		g.Go(func() error {
			out[i] = e.Match(ctx, items[i])
			finished(items[i].Database)
			if done != nil {
				done(i, out[i])
			}
			return nil
		})
	}
	g.Wait()
	s := Summarize(e.mode.ID(), out)
	s.Wall = time.Since(start)
	return out, s
}
