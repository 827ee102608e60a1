// Package openai is a qeval.Completer on the OpenAI Chat Completions API: one POST of
// chat/completions with the tool forced through tool_choice (internal/llmhttp; the
// official Go SDK was initialised at every start of qeval, and made up a fifth of the
// binary, for this one call). With another base URL it talks to any server that speaks
// that API: Ollama, vLLM, llama.cpp's server, LiteLLM, Azure OpenAI.
//
// It makes exactly one attempt with no deadline of its own and reads nothing from the
// environment: retries, deadlines and configuration are qeval's (package judge and
// cmd/qeval).
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/llmhttp"
)

// Defaults of Client.
const (
	DefaultModel   = "gpt-5.4-mini"
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

	call *llmhttp.Call
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
	header := http.Header{}
	if c.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.APIKey)
		if strings.HasSuffix(u.Hostname(), ".openai.azure.com") || strings.HasSuffix(u.Hostname(), ".cognitiveservices.azure.com") {
			header.Set("api-key", c.APIKey)
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/chat/completions"
	c.call = &llmhttp.Call{Provider: c.Name, Key: c.APIKey, Client: c.HTTPClient, URL: u.String(), Header: header, Message: errorMessage}
	return &c, nil
}

// The wire format of Chat Completions, as much of it as Complete uses.
type (
	chatRequest struct {
		Model               string        `json:"model"`
		Messages            []chatMessage `json:"messages"`
		Tools               []chatTool    `json:"tools"`
		ToolChoice          chatTool      `json:"tool_choice"`
		MaxCompletionTokens *int          `json:"max_completion_tokens,omitempty"`
		MaxTokens           *int          `json:"max_tokens,omitempty"`
		Temperature         *float64      `json:"temperature,omitempty"`
	}
	chatMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	// chatTool is a tool, and with only a name the forced tool choice.
	chatTool struct {
		Type     string       `json:"type"`
		Function chatFunction `json:"function"`
	}
	chatFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	chatReply struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				Refusal   string `json:"refusal"`
				ToolCalls []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// Complete sends req to Chat Completions with req.Tool forced through tool_choice.
func (c *Client) Complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, error) {
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(req.Tool.Schema, &schema); err != nil || schema == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: c.Name, Message: "tool " + req.Tool.Name + ": schema is not a JSON object", Err: err}
	}
	body := chatRequest{
		Model:      c.Model,
		Tools:      []chatTool{{Type: "function", Function: chatFunction{Name: req.Tool.Name, Description: req.Tool.Description, Parameters: req.Tool.Schema}}},
		ToolChoice: chatTool{Type: "function", Function: chatFunction{Name: req.Tool.Name}},
	}
	maxTokens := req.MaxTokens
	if c.LegacyMaxTokens {
		body.MaxTokens = &maxTokens
	} else {
		body.MaxCompletionTokens = &maxTokens
	}
	if req.Temperature != nil && AcceptsTemperature(c.Model) {
		body.Temperature = req.Temperature
	}
	if req.System != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		body.Messages = append(body.Messages, chatMessage{Role: role, Content: m.Content})
	}
	var resp chatReply
	if err := c.call.Post(ctx, body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: c.Name, Message: "malformed reply: no choices"}
	}
	m := resp.Choices[0].Message
	out := &qeval.Completion{
		Model:        resp.Model,
		InputTokens:  resp.Usage.PromptTokens,
		OutputTokens: resp.Usage.CompletionTokens,
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

// errorMessage is the message of an OpenAI error object ({"error": {"message": …}}).
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Message
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
