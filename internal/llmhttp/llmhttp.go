// Package llmhttp makes the one HTTP call of an LLM provider's client: a JSON request,
// a reply read whole and bounded, and the errors of the qeval.Completer contract.
//
// The providers' official SDKs were once used for this one call; each was initialised
// at every start of every qeval command, used or not (openai-go's packages alone took
// ~0.8 ms and 35 MB of the binary).
package llmhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// Call is one request to a provider.
type Call struct {
	Provider string // the name in errors: "openai", "anthropic", …
	Key      string // masked in every error
	Client   *http.Client
	URL      string
	Header   http.Header // besides Content-Type and Accept
	// Message reads the provider's error message from an error reply's body; "" when
	// it holds none, and the start of the body is shown instead.
	Message func(body []byte) string
}

// Post sends body as JSON and decodes a successful reply into out. Every failure is a
// *qeval.Error: CodeTimeout or CodeCanceled when ctx ended; CodeUnavailable wrapping a
// *qeval.ProviderError for an error status (with the provider's message and how long
// it asked to wait) or no reply; CodeUnavailable without one for a reply that cannot
// be read or decoded (larger than qeval.MaxReplyBytes, not JSON).
func (c *Call) Post(ctx context.Context, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: c.Provider, Message: "request: " + err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(b))
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: c.Provider, Message: qeval.Mask(err.Error(), c.Key), Err: err}
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Client.Do(req)
	if err != nil {
		return c.failed(ctx, err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(qeval.CapReader(resp.Body, qeval.MaxReplyBytes, "the provider's reply"))
	if err != nil {
		if ctx.Err() != nil {
			return c.failed(ctx, err)
		}
		return c.malformed(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.status(resp, reply)
	}
	if err := json.Unmarshal(reply, out); err != nil {
		return c.malformed(err)
	}
	return nil
}

// failed is the error of a call that got no reply.
func (c *Call) failed(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &qeval.Error{Code: qeval.CodeTimeout, Op: c.Provider, Message: "no reply before the deadline", Err: ctx.Err()}
	case ctx.Err() != nil:
		return &qeval.Error{Code: qeval.CodeCanceled, Op: c.Provider, Message: "canceled", Err: ctx.Err()}
	}
	msg := err.Error()
	if urlErr, ok := errors.AsType[*url.Error](err); ok {
		msg = urlErr.Err.Error()
	}
	pe := &qeval.ProviderError{Provider: c.Provider, Message: qeval.Mask(msg, c.Key)}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Provider, Message: pe.Detail(), Err: pe}
}

// status is the error of an error reply.
func (c *Call) status(resp *http.Response, body []byte) error {
	msg := ""
	if c.Message != nil {
		msg = c.Message(body)
	}
	if msg == "" {
		// not the provider's error object (a proxy's page, say): the start of the body
		if msg = strings.TrimSpace(string(body)); len(msg) > 200 {
			msg = msg[:200] + "…"
		}
	}
	pe := &qeval.ProviderError{Provider: c.Provider, StatusCode: resp.StatusCode, Message: qeval.Mask(msg, c.Key),
		RetryAfter: qeval.RetryAfter(resp.Header, time.Now())}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Provider, Message: pe.Detail(), Err: pe}
}

func (c *Call) malformed(err error) error {
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Provider, Message: "malformed reply: " + qeval.Mask(err.Error(), c.Key)}
}
