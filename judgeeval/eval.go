package judgeeval

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Options configure Evaluate.
type Options struct {
	// Dialect is the query language of labels that name none ("" is SQLite).
	Dialect string
	// Concurrency bounds the labels judged at once (DefaultConcurrency when ≤ 0); the
	// judge bounds its own requests in flight too.
	Concurrency int
}

// DefaultConcurrency is how many labels are judged at once by default.
const DefaultConcurrency = 8

// Item is one label with the judge's answer: Verdict is "" and Error set when the
// judge failed on it (counted apart, not as a disagreement).
type Item struct {
	Line      int    `json:"line,omitempty"`
	ID        string `json:"id,omitempty"`
	Label     string `json:"label"`
	Class     string `json:"class,omitempty"`
	Verdict   string `json:"verdict,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Cached    bool   `json:"cached,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Evaluate asks the judge about every label, as a run asks it about a case (query
// correctness, through the judge's cache; identical queries are correct without a
// call), and measures its answers against the labels. The judge's failures are
// counted apart. It never fails: ctx ending leaves the labels not yet judged as
// errors.
func Evaluate(ctx context.Context, j qeval.Judge, labels []Label, opt Options) *Result {
	items := make([]Item, len(labels))
	g := errgroup.Group{}
	n := opt.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	g.SetLimit(n)
	for i := range labels {
		g.Go(func() error {
			items[i] = judgeOne(ctx, j, &labels[i], opt)
			return nil
		})
	}
	_ = g.Wait()
	return measure(items)
}

func judgeOne(ctx context.Context, j qeval.Judge, l *Label, opt Options) Item {
	it := Item{Line: l.Line, ID: l.ID, Label: l.Label, Class: l.Class}
	if err := ctx.Err(); err != nil {
		it.Error = "not judged: " + err.Error()
		return it
	}
	dialect := l.Dialect
	if dialect == "" {
		dialect = opt.Dialect
	}
	in := qeval.JudgeInput{Question: l.Question, Expected: l.Expected, Generated: l.Generated, Dialect: dialect}
	r := metric.QueryCorrectness(ctx, j, in, metric.JudgeOptions{})
	switch {
	case r.Error != nil:
		it.Error = r.Error.Message
	case r.Skipped != nil:
		it.Error = "not judged: " + *r.Skipped
	default:
		it.Verdict, _ = r.Details["verdict"].(string)
		it.Reasoning, _ = r.Details["reasoning"].(string)
		it.Cached, _ = r.Details["cached"].(bool)
		if it.Verdict == "" {
			it.Error = "the judge gave no verdict"
		}
	}
	return it
}
