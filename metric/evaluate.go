package metric

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Evaluate computes the metrics of one case concurrently, so the case takes as long as
// its slowest metric. Each metric runs under its own deadline (opt.Timeout); a metric
// that fails, panics or runs out of time gives a Failed result (score 0, with the
// message, the case's inputs, the stack for a panic, and a timestamp), is logged, and
// does not stop the others. The map holds one result per metric, by name.
//
// A calculator that ignores its context and runs past its deadline is left to finish in
// the background; its result is discarded.
func Evaluate(ctx context.Context, c Case, opt Options) map[string]Result {
	opt = opt.withDefaults()
	c.prepare()
	results := make([]Result, len(opt.Metrics))
	var wg sync.WaitGroup
	for i, m := range opt.Metrics {
		wg.Go(func() { results[i] = run(ctx, m, &c, &opt) })
	}
	wg.Wait()
	out := make(map[string]Result, len(results))
	for i, m := range opt.Metrics {
		out[m.Name] = results[i]
	}
	return out
}

type outcome struct {
	r     Result
	err   error
	panic any
	stack string
}

// run computes one metric with panic recovery and a deadline.
func run(ctx context.Context, m Metric, c *Case, opt *Options) Result {
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// a fault of qeval's: its own frames, paths from the module root
				done <- outcome{panic: p, stack: shortStack(nil)}
			}
		}()
		r, err := m.Func(ctx, c, opt)
		o := outcome{r: r, err: err}
		if err != nil && GeneratedParseError(err) == "" {
			o.stack = shortStack(err) // where the calculator gave up
		}
		done <- o
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		// Prefer a result that arrived at the same moment.
		select {
		case o = <-done:
		default:
			o.err = ctx.Err()
		}
	}
	switch {
	case o.panic != nil:
		return fail(m.Name, fmt.Sprintf("panic: %v", o.panic), o.stack, c, opt)
	case errors.Is(o.err, context.DeadlineExceeded) && ctx.Err() != nil:
		return fail(m.Name, fmt.Sprintf("timed out after %s", opt.Timeout), o.stack, c, opt)
	case errors.Is(o.err, context.Canceled) && ctx.Err() != nil:
		return fail(m.Name, "canceled", o.stack, c, opt)
	case o.err != nil && GeneratedParseError(o.err) != "":
		// the model's failure, not the metric's: scored 0 with the parser's message,
		// neither logged nor counted as a failed metric
		return Failed(&Error{Metric: m.Name, Message: o.err.Error(), Inputs: c.inputs(), GeneratedQuery: true,
			Timestamp: opt.Now().UTC().Truncate(time.Millisecond)})
	case o.err != nil:
		return fail(m.Name, o.err.Error(), o.stack, c, opt)
	}
	if o.r.Details == nil {
		o.r.Details = map[string]any{}
	}
	if o.r.Score == nil && o.r.Skipped == nil && o.r.Error == nil {
		return fail(m.Name, "the metric returned neither a score nor a skip reason", "", c, opt)
	}
	return o.r
}

func fail(name, msg, stack string, c *Case, opt *Options) Result {
	e := &Error{Metric: name, Message: msg, Inputs: c.inputs(), Stack: stack, Timestamp: opt.Now().UTC().Truncate(time.Millisecond)}
	opt.Logger.Warn("metric failed", "metric", name, "case", c.ID, "error", msg)
	return Failed(e)
}
