// Package anthropic is a qeval.Completer on Anthropic's Messages API, through the
// official Go SDK (github.com/anthropics/anthropic-sdk-go).
//
// The SDK is set to make exactly one attempt with no deadline of its own and to read
// nothing from the environment: retries, deadlines and configuration are qeval's
// (package judge and cmd/qeval).
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/qeval/qeval"
)

// Defaults of Client.
const (
	// DefaultModel is a current Claude model suited to judging queries.
	DefaultModel = sdk.ModelClaudeSonnet5_5
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com/"
)

// Name is the provider name used in errors and in the registry.
const Name = "anthropic"

// sdkTimeout is the SDK's per-attempt timeout: longer than any deadline qeval sets.
const sdkTimeout = 24 * time.Hour

// Client completes requests with a Claude model. Build it with New.
type Client struct {
	BaseURL    string       // DefaultBaseURL when empty
	APIKey     string       // required; never logged or echoed
	Model      string       // DefaultModel when empty
	HTTPClient *http.Client // a new http.Client when nil

	msgs sdk.MessageService
}

var _ qeval.Completer = (*Client)(nil)

// New checks c and returns a client ready for use. With no API key the error wraps
// qeval.ErrNoAPIKey.
func New(c Client) (*Client, error) {
	if c.APIKey == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: Name, Message: "no API key",
			Hint: "set ANTHROPIC_API_KEY", Err: qeval.ErrNoAPIKey}
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: Name,
			Message: fmt.Sprintf("base URL %q is not an http(s) URL", qeval.Mask(c.BaseURL, c.APIKey))}
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	client := sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		option.WithHTTPClient(c.HTTPClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(capReply),
		// The deadline is the caller's context. Without a timeout of its own the SDK
		// would set one of 10 minutes per attempt; this one outlasts any context deadline.
		option.WithRequestTimeout(sdkTimeout),
	)
	c.msgs = client.Messages
	return &c, nil
}

// Complete sends req to the Messages API with req.Tool forced through tool_choice.
func (c *Client) Complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, error) {
	var schema map[string]any
	if err := json.Unmarshal(req.Tool.Schema, &schema); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: Name, Message: "tool " + req.Tool.Name + ": schema is not a JSON object", Err: err}
	}
	input := sdk.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type", "properties":
		case "required":
			b, _ := json.Marshal(v)
			json.Unmarshal(b, &input.Required)
		default:
			input.ExtraFields[k] = v
		}
	}
	tool := sdk.ToolParam{Name: req.Tool.Name, InputSchema: input}
	if req.Tool.Description != "" {
		tool.Description = sdk.String(req.Tool.Description)
	}
	params := sdk.MessageNewParams{
		Model:      c.Model,
		MaxTokens:  int64(req.MaxTokens),
		Tools:      []sdk.ToolUnionParam{{OfTool: &tool}},
		ToolChoice: sdk.ToolChoiceParamOfTool(req.Tool.Name),
	}
	if req.Temperature != nil {
		params.Temperature = sdk.Float(*req.Temperature)
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, m := range req.Messages {
		block := sdk.NewTextBlock(m.Content)
		if m.Role == "assistant" {
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(block))
		} else {
			params.Messages = append(params.Messages, sdk.NewUserMessage(block))
		}
	}
	msg, err := c.msgs.New(ctx, params)
	if err != nil {
		return nil, c.convert(ctx, err)
	}
	out := &qeval.Completion{
		Model:        msg.Model,
		InputTokens:  int(msg.Usage.InputTokens),
		OutputTokens: int(msg.Usage.OutputTokens),
	}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "tool_use":
			if b.Name == req.Tool.Name && out.ToolInput == nil {
				out.ToolInput = append(json.RawMessage(nil), b.Input...)
			}
		case "text":
			text = append(text, b.Text)
		}
	}
	out.Text = strings.Join(text, "\n")
	return out, nil
}

// convert turns an SDK error into the errors of the qeval.Completer contract.
func (c *Client) convert(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &qeval.Error{Code: qeval.CodeTimeout, Op: Name, Message: "no reply before the deadline", Err: ctx.Err()}
	case ctx.Err() != nil:
		return &qeval.Error{Code: qeval.CodeCanceled, Op: Name, Message: "canceled", Err: ctx.Err()}
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		pe := &qeval.ProviderError{Provider: Name, StatusCode: apiErr.StatusCode, Message: qeval.Mask(apiMessage(apiErr.RawJSON()), c.APIKey)}
		if apiErr.Response != nil {
			pe.RetryAfter = qeval.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: Name, Message: pe.Detail(), Err: pe}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		pe := &qeval.ProviderError{Provider: Name, Message: qeval.Mask(urlErr.Err.Error(), c.APIKey)}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: Name, Message: pe.Detail(), Err: pe}
	}
	// The SDK returns anything else unwrapped: a body that is not the JSON of a message.
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: Name, Message: "malformed reply: " + qeval.Mask(err.Error(), c.APIKey)}
}

// apiMessage returns error.message of an Anthropic error body, or the body itself.
func apiMessage(body string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	return strings.TrimSpace(body)
}

// capReply bounds what is read of a reply (qeval.MaxReplyBytes).
func capReply(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if resp != nil && resp.Body != nil {
		resp.Body = qeval.CapReader(resp.Body, qeval.MaxReplyBytes, "the provider's reply")
	}
	return resp, err
}
