// Package openai is a qeval.Completer on the OpenAI Chat Completions API, through the
// official Go SDK (github.com/openai/openai-go/v3). With another base URL it talks to
// any server that speaks that API: Ollama, vLLM, llama.cpp's server, LiteLLM, Azure
// OpenAI.
//
// The SDK is set to make exactly one attempt with no deadline of its own and to read
// nothing from the environment: retries, deadlines and configuration are qeval's
// (package judge and cmd/qeval).
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/qeval/qeval"
)

// Defaults of Client.
const (
	DefaultModel   = sdk.ChatModelGPT5_4Mini
	DefaultBaseURL = "https://api.openai.com/v1/"
)

// Client completes requests with a chat model. Build it with New.
type Client struct {
	// Name is the provider name in errors: "openai" (the default) or
	// "openai-compatible".
	Name       string
	BaseURL    string       // DefaultBaseURL when empty
	APIKey     string       // sent as a bearer token (and as api-key to Azure); never logged or echoed
	Model      string       // DefaultModel when empty
	HTTPClient *http.Client // a new http.Client when nil
	// KeyOptional lets New accept an empty APIKey, for local servers that need none.
	KeyOptional bool
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens, for servers
	// that know only the older field.
	LegacyMaxTokens bool

	chat sdk.ChatCompletionService
}

var _ qeval.Completer = (*Client)(nil)

// New checks c and returns a client ready for use. Without an API key (and without
// KeyOptional) the error wraps qeval.ErrNoAPIKey.
func New(c Client) (*Client, error) {
	if c.Name == "" {
		c.Name = "openai"
	}
	if c.APIKey == "" && !c.KeyOptional {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: c.Name, Message: "no API key",
			Hint: "set OPENAI_API_KEY", Err: qeval.ErrNoAPIKey}
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: c.Name,
			Message: fmt.Sprintf("base URL %q is not an http(s) URL", qeval.Mask(c.BaseURL, c.APIKey))}
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	// NewChatCompletionService rather than NewClient: NewClient reads OPENAI_* variables.
	opts := []option.RequestOption{
		option.WithBaseURL(c.BaseURL),
		option.WithHTTPClient(c.HTTPClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(capReply),
	}
	if c.APIKey != "" {
		opts = append(opts, option.WithAPIKey(c.APIKey))
		if strings.HasSuffix(u.Hostname(), ".openai.azure.com") || strings.HasSuffix(u.Hostname(), ".cognitiveservices.azure.com") {
			opts = append(opts, option.WithHeader("api-key", c.APIKey))
		}
	}
	c.chat = sdk.NewChatCompletionService(opts...)
	return &c, nil
}

// Complete sends req to Chat Completions with req.Tool forced through tool_choice.
func (c *Client) Complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, error) {
	var schema shared.FunctionParameters
	if err := json.Unmarshal(req.Tool.Schema, &schema); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: c.Name, Message: "tool " + req.Tool.Name + ": schema is not a JSON object", Err: err}
	}
	fn := shared.FunctionDefinitionParam{Name: req.Tool.Name, Parameters: schema}
	if req.Tool.Description != "" {
		fn.Description = sdk.String(req.Tool.Description)
	}
	params := sdk.ChatCompletionNewParams{
		Model: c.Model,
		Tools: []sdk.ChatCompletionToolUnionParam{sdk.ChatCompletionFunctionTool(fn)},
		ToolChoice: sdk.ToolChoiceOptionFunctionToolChoice(
			sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: req.Tool.Name}),
	}
	if c.LegacyMaxTokens {
		params.MaxTokens = sdk.Int(int64(req.MaxTokens))
	} else {
		params.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil && AcceptsTemperature(c.Model) {
		params.Temperature = sdk.Float(*req.Temperature)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			params.Messages = append(params.Messages, sdk.AssistantMessage(m.Content))
		} else {
			params.Messages = append(params.Messages, sdk.UserMessage(m.Content))
		}
	}
	resp, err := c.chat.New(ctx, params)
	if err != nil {
		return nil, c.convert(ctx, err)
	}
	if len(resp.Choices) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Name, Message: "malformed reply: no choices"}
	}
	m := resp.Choices[0].Message
	out := &qeval.Completion{
		Model:        resp.Model,
		InputTokens:  int(resp.Usage.PromptTokens),
		OutputTokens: int(resp.Usage.CompletionTokens),
		Text:         m.Content,
	}
	if out.Text == "" {
		out.Text = m.Refusal
	}
	for _, tc := range m.ToolCalls {
		if tc.Function.Name == req.Tool.Name {
			// Arguments is a JSON document in a string; an invalid one is caught by the judge.
			out.ToolInput = json.RawMessage(tc.Function.Arguments)
			break
		}
	}
	return out, nil
}

// convert turns an SDK error into the errors of the qeval.Completer contract.
func (c *Client) convert(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &qeval.Error{Code: qeval.CodeTimeout, Op: c.Name, Message: "no reply before the deadline", Err: ctx.Err()}
	case ctx.Err() != nil:
		return &qeval.Error{Code: qeval.CodeCanceled, Op: c.Name, Message: "canceled", Err: ctx.Err()}
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" && apiErr.Response != nil && apiErr.Response.Body != nil {
			// Not an OpenAI error object (a proxy's page, say): show the start of the body.
			b, _ := io.ReadAll(io.LimitReader(apiErr.Response.Body, 201))
			if msg = strings.TrimSpace(string(b)); len(msg) > 200 {
				msg = msg[:200] + "…"
			}
		}
		pe := &qeval.ProviderError{Provider: c.Name, StatusCode: apiErr.StatusCode, Message: qeval.Mask(msg, c.APIKey)}
		if apiErr.Response != nil {
			pe.RetryAfter = qeval.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Name, Message: pe.Detail(), Err: pe}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		pe := &qeval.ProviderError{Provider: c.Name, Message: qeval.Mask(urlErr.Err.Error(), c.APIKey)}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Name, Message: pe.Detail(), Err: pe}
	}
	// The SDK returns anything else unwrapped: a body that is not the JSON of a completion.
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Name, Message: "malformed reply: " + qeval.Mask(err.Error(), c.APIKey)}
}

// capReply bounds what is read of a reply (qeval.MaxReplyBytes).
func capReply(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if resp != nil && resp.Body != nil {
		resp.Body = qeval.CapReader(resp.Body, qeval.MaxReplyBytes, "the provider's reply")
	}
	return resp, err
}

// AcceptsTemperature reports whether a model takes a temperature: OpenAI's reasoning
// models (gpt-5…, o1, o3, o4…) accept only their default and refuse any other value, so
// none is sent to them.
func AcceptsTemperature(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"gpt-5", "o1", "o3", "o4"} {
		if strings.HasPrefix(m, p) {
			return false
		}
	}
	return true
}
