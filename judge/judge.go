package judge

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
)

// Defaults of Config.
const (
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxConcurrency = 8
	DefaultMaxTokens      = 1024
)

// Config configures a Judge. Zero fields take their defaults.
type Config struct {
	// Provider and Model name what answers ("anthropic", "claude-sonnet-5-5"); they go
	// into every verdict, error message and cache key. Required.
	Provider string
	Model    string

	CallTimeout    time.Duration // deadline of one request to the provider; DefaultCallTimeout when 0
	MaxConcurrency int           // requests in flight at once; DefaultMaxConcurrency when 0
	Retry          RetryPolicy
	MaxTokens      int // cap on the answer's tokens; DefaultMaxTokens when 0
	// Temperature is sent with every request; 0 when nil, so that a question asked
	// twice gets the same verdict (the providers' own default is 1).
	Temperature *float64
	PreviewRows int          // result rows shown to the model; DefaultPreviewRows when 0, none when < 0
	Logger      *slog.Logger // warnings (timeouts, cache failures) and retries; discarded when nil
	// Secrets are masked in every verdict and error before it leaves the judge (and so
	// before the cache stores it): a provider or proxy that echoes the API key in its
	// reasoning must not put it in reports.
	Secrets qeval.Secrets
}

// Judge asks a Completer for verdicts. It implements qeval.Judge and is safe for
// concurrent use.
type Judge struct {
	c           qeval.Completer
	provider    string
	model       string
	timeout     time.Duration
	retry       RetryPolicy
	maxTokens   int
	temperature float64
	previewRows int
	log         *slog.Logger
	slots       chan struct{}
	secrets     qeval.Secrets

	calls, inTokens, outTokens, errs, timeouts atomic.Int64
}

var _ qeval.Judge = (*Judge)(nil)

// New returns a Judge that asks c.
func New(c qeval.Completer, cfg Config) *Judge {
	j := &Judge{
		c: c, provider: cfg.Provider, model: cfg.Model,
		timeout: cfg.CallTimeout, retry: cfg.Retry.withDefaults(),
		maxTokens: cfg.MaxTokens, previewRows: cfg.PreviewRows, log: cfg.Logger, secrets: cfg.Secrets,
	}
	if j.timeout <= 0 {
		j.timeout = DefaultCallTimeout
	}
	if j.maxTokens <= 0 {
		j.maxTokens = DefaultMaxTokens
	}
	if cfg.Temperature != nil {
		j.temperature = *cfg.Temperature
	}
	switch {
	case j.previewRows == 0:
		j.previewRows = DefaultPreviewRows
	case j.previewRows < 0:
		j.previewRows = 0
	}
	if j.log == nil {
		j.log = slog.New(slog.DiscardHandler)
	}
	n := cfg.MaxConcurrency
	if n <= 0 {
		n = DefaultMaxConcurrency
	}
	j.slots = make(chan struct{}, n)
	return j
}

func (j *Judge) op() string { return "judge: " + j.provider }

// request builds the request for in and its cache key.
func (j *Judge) request(in qeval.JudgeInput) (*prompt, qeval.CompletionRequest, string, error) {
	p, err := promptFor(in.Task)
	if err != nil {
		return nil, qeval.CompletionRequest{}, "", err
	}
	var missing []string
	if strings.TrimSpace(in.Generated) == "" {
		missing = append(missing, "generated query")
	}
	if strings.TrimSpace(in.Expected) == "" {
		missing = append(missing, "expected query")
	}
	if len(missing) > 0 {
		return p, qeval.CompletionRequest{}, "", &qeval.Error{Code: qeval.CodeInvalid, Op: j.op(),
			Message: "nothing to judge: no " + strings.Join(missing, " and no ")}
	}
	if in.ExpectedResult != nil && j.previewRows == 0 {
		in.ExpectedResult = nil
	}
	if in.GeneratedResult != nil && j.previewRows == 0 {
		in.GeneratedResult = nil
	}
	user, err := render(p, in, j.previewRows)
	if err != nil {
		return p, qeval.CompletionRequest{}, "", err
	}
	req := qeval.CompletionRequest{
		System:    p.system,
		Messages:  []qeval.Message{{Role: "user", Content: user}},
		Tool:      p.tool,
		MaxTokens: j.maxTokens,
	}
	t := j.temperature
	req.Temperature = &t
	key := cacheKey(j.provider, j.model, p, req)
	if in.Sample > 0 {
		key += "#" + strconv.Itoa(in.Sample)
	}
	return p, req, key, nil
}

// Judge asks the model about in. See qeval.Judge for the contract.
func (j *Judge) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	start := time.Now()
	v := qeval.JudgeVerdict{Provider: j.provider, Model: j.model}
	p, req, _, err := j.request(in)
	if p != nil {
		v.PromptVersion = p.version
	}
	if err != nil {
		j.errs.Add(1)
		return v, err
	}
	return j.ask(ctx, p, req, v, start)
}

// ask is askProvider with every secret masked in the verdict and the error, before
// either reaches a caller or the cache.
func (j *Judge) ask(ctx context.Context, p *prompt, req qeval.CompletionRequest, v qeval.JudgeVerdict, start time.Time) (qeval.JudgeVerdict, error) {
	v, err := j.askProvider(ctx, p, req, v, start)
	v.Reasoning, v.Verdict = j.secrets.Mask(v.Reasoning), j.secrets.Mask(v.Verdict)
	if err != nil && len(j.secrets) > 0 {
		if m := j.secrets.Mask(qeval.ErrorMessage(err)); m != qeval.ErrorMessage(err) {
			err = &qeval.Error{Code: qeval.ErrorCode(err), Message: m}
		}
	}
	return v, err
}

func (j *Judge) askProvider(ctx context.Context, p *prompt, req qeval.CompletionRequest, v qeval.JudgeVerdict, start time.Time) (qeval.JudgeVerdict, error) {
	c, sent, err := j.complete(ctx, req)
	v.Attempts = sent
	v.LLMCalled = sent > 0
	v.Latency = time.Since(start)
	if err != nil {
		j.errs.Add(1)
		if qeval.IsTimeout(err) {
			j.timeouts.Add(1)
		}
		return v, err
	}
	v.InputTokens, v.OutputTokens = c.InputTokens, c.OutputTokens
	j.inTokens.Add(int64(c.InputTokens))
	j.outTokens.Add(int64(c.OutputTokens))
	raw, err := toolInput(c, p.tool.Name)
	if err == nil {
		v.Verdict, v.Score, v.Reasoning, err = p.parse(raw)
	}
	if err != nil {
		j.errs.Add(1)
		var er errReply
		msg := err.Error()
		if errors.As(err, &er) {
			msg = string(er)
		}
		v.Score, v.Verdict, v.Reasoning = 0, "", ""
		return v, &qeval.Error{Code: qeval.CodeUnavailable, Op: j.op(), Message: msg,
			Hint: "the model " + j.model + " did not answer in the required form; try another model"}
	}
	return v, nil
}

// Stats returns what the judge did so far.
func (j *Judge) Stats() qeval.JudgeStats {
	return qeval.JudgeStats{
		Calls: j.calls.Load(), InputTokens: j.inTokens.Load(), OutputTokens: j.outTokens.Load(),
		Errors: j.errs.Load(), Timeouts: j.timeouts.Load(),
	}
}
