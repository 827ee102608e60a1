package judge

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/qeval/qeval"
)

// RetryPolicy says when a failed request is sent again. Zero fields take the defaults.
type RetryPolicy struct {
	MaxAttempts int           // requests in all, the first included; DefaultMaxAttempts when 0
	BaseDelay   time.Duration // wait before the first retry, doubled after each; DefaultBaseDelay when 0
	MaxDelay    time.Duration // cap on one backoff wait; DefaultMaxDelay when 0
	MaxElapsed  time.Duration // no retry whose wait would end later than this after the first request; DefaultMaxElapsed when 0
}

// The default retry policy: 4 requests, waits of about 1 s, 2 s and 4 s, and no retry
// that would start more than 2 minutes after the first request.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
	DefaultMaxElapsed  = 2 * time.Minute
)

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = DefaultMaxElapsed
	}
	return p
}

// backoff returns the wait after the given failed attempt (1-based): half of the
// exponential delay plus a random part of the other half, and at least retryAfter.
func (p RetryPolicy) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	d = d/2 + rand.N(d/2+1)
	return max(d, retryAfter)
}

// complete sends req with the retry policy and returns the completion and the number
// of requests sent. The judge's timeout bounds the whole judgement: the wait for a
// slot, every request and every wait between them; a retry is sent only while time
// remains for it.
func (j *Judge) complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, int, error) {
	start := time.Now()
	deadline := start.Add(j.timeout)
	jctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	sent := 0
	for attempt := 1; ; attempt++ {
		c, err := j.attempt(jctx, req, &sent)
		if err == nil {
			return c, sent, nil
		}
		if ctx.Err() != nil {
			return nil, sent, j.stopped(ctx)
		}
		if jctx.Err() != nil || qeval.IsTimeout(err) {
			return nil, sent, j.timedOut()
		}
		var pe *qeval.ProviderError
		if !errors.As(err, &pe) || !pe.Retryable() {
			return nil, sent, j.failed(err, pe, attempt, start, false)
		}
		wait := j.retry.backoff(attempt, pe.RetryAfter)
		if attempt >= j.retry.MaxAttempts || time.Since(start)+wait > j.retry.MaxElapsed || time.Until(deadline) <= wait {
			return nil, sent, j.failed(err, pe, attempt, start, true)
		}
		j.log.Info("judge: retrying", "provider", j.provider, "status", pe.StatusCode, "attempt", attempt, "wait", wait)
		t := time.NewTimer(wait)
		select {
		case <-jctx.Done():
			t.Stop()
			if ctx.Err() != nil {
				return nil, sent, j.stopped(ctx)
			}
			return nil, sent, j.timedOut()
		case <-t.C:
		}
	}
}

// attempt sends req once, holding a concurrency slot, within the judgement's deadline
// (ctx), and counts the request in *sent.
func (j *Judge) attempt(ctx context.Context, req qeval.CompletionRequest, sent *int) (*qeval.Completion, error) {
	select {
	case j.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-j.slots }()
	j.calls.Add(1)
	*sent++
	c, err := j.c.Complete(ctx, req)
	if err == nil && c == nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: j.op(), Message: "completer returned neither a completion nor an error"}
	}
	return c, err
}

// timedOut is the error for a judgement that ran past the judge's timeout.
func (j *Judge) timedOut() error {
	j.log.Warn("LLM judge timeout", "provider", j.provider, "model", j.model, "timeout", j.timeout)
	return &qeval.Error{Code: qeval.CodeTimeout, Op: j.op(), Message: "LLM judge timeout after " + j.timeout.String(),
		Hint: "the provider did not answer in time (the timeout bounds the whole judgement, retries included); raise --judge-timeout", Err: context.DeadlineExceeded}
}

// stopped is the error for a run whose context ended (cancel or the run's own deadline).
func (j *Judge) stopped(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &qeval.Error{Code: qeval.CodeTimeout, Op: j.op(), Message: "the run's deadline passed", Err: ctx.Err()}
	}
	return &qeval.Error{Code: qeval.CodeCanceled, Op: j.op(), Message: "canceled", Err: ctx.Err()}
}

// failed is the error for a request that will not be sent again.
func (j *Judge) failed(err error, pe *qeval.ProviderError, attempts int, start time.Time, gaveUp bool) error {
	if pe == nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: j.op(), Message: qeval.ErrorMessage(err), Err: err}
	}
	msg := pe.Status()
	if gaveUp {
		msg += fmt.Sprintf(" (gave up after %d tries in %s)", attempts, roundElapsed(time.Since(start)))
	}
	if pe.Message != "" {
		msg += ": " + pe.Message
	}
	if gaveUp {
		j.log.Warn("judge: gave up", "provider", j.provider, "status", pe.StatusCode, "attempts", attempts)
	}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: j.op(), Message: msg, Hint: hint(pe.StatusCode), Err: err}
}

func roundElapsed(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

func hint(status int) string {
	switch {
	case status == 0:
		return "the provider could not be reached; check --judge-base-url and the network"
	case status == 401 || status == 403:
		return "check the API key and that it may use this model"
	case status == 404:
		return "check --model and --judge-base-url"
	case status == 429:
		return "the provider is rate limiting; lower the judge concurrency or try later"
	case status >= 500:
		return "the provider is failing; try later"
	}
	return ""
}
