// Package anthropic is a qeval.Completer on Anthropic's Messages API: one POST of
// v1/messages with the tool forced through tool_choice (internal/llmhttp; the official
// Go SDK was initialised at every start of qeval for this one call).
//
// It makes exactly one attempt with no deadline of its own and reads nothing from the
// environment: retries, deadlines and configuration are qeval's (package judge and
// cmd/qeval).
package anthropic

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
	// DefaultModel is a current Claude model suited to judging queries.
	DefaultModel = "claude-sonnet-5-5"
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com/"
)

// Name is the provider name used in errors and in the registry.
const Name = "anthropic"

// apiVersion is the version of the Messages API the requests are written for.
const apiVersion = "2023-06-01"

// Client completes requests with a Claude model. Build it with New.
type Client struct {
	BaseURL    string       // DefaultBaseURL when empty
	APIKey     string       // required; never logged or echoed
	Model      string       // DefaultModel when empty
	HTTPClient *http.Client // a new http.Client when nil

	call *llmhttp.Call
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
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: Name,
			Message: fmt.Sprintf("base URL %q is not an http(s) URL", qeval.Mask(c.BaseURL, c.APIKey))}
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/messages"
	c.call = &llmhttp.Call{Provider: Name, Key: c.APIKey, Client: c.HTTPClient, URL: u.String(),
		Header: http.Header{"X-Api-Key": {c.APIKey}, "Anthropic-Version": {apiVersion}}, Message: errorMessage}
	return &c, nil
}

// The wire format of the Messages API, as much of it as Complete uses.
type (
	messagesRequest struct {
		Model       string     `json:"model"`
		MaxTokens   int        `json:"max_tokens"`
		System      []block    `json:"system,omitempty"`
		Messages    []message  `json:"messages"`
		Tools       []tool     `json:"tools"`
		ToolChoice  toolChoice `json:"tool_choice"`
		Temperature *float64   `json:"temperature,omitempty"`
	}
	block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	message struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	toolChoice struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	messagesReply struct {
		Model   string `json:"model"`
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
)

// Complete sends req to the Messages API with req.Tool forced through tool_choice.
func (c *Client) Complete(ctx context.Context, req qeval.CompletionRequest) (*qeval.Completion, error) {
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(req.Tool.Schema, &schema); err != nil || schema == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: Name, Message: "tool " + req.Tool.Name + ": schema is not a JSON object", Err: err}
	}
	schema["type"] = json.RawMessage(`"object"`) // a tool's input is an object
	input, _ := json.Marshal(schema)
	body := messagesRequest{
		Model:       c.Model,
		MaxTokens:   req.MaxTokens,
		Tools:       []tool{{Name: req.Tool.Name, Description: req.Tool.Description, InputSchema: input}},
		ToolChoice:  toolChoice{Type: "tool", Name: req.Tool.Name},
		Temperature: req.Temperature,
	}
	if req.System != "" {
		body.System = []block{{Type: "text", Text: req.System}}
	}
	for _, m := range req.Messages {
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		body.Messages = append(body.Messages, message{Role: role, Content: []block{{Type: "text", Text: m.Content}}})
	}
	var msg messagesReply
	if err := c.call.Post(ctx, body, &msg); err != nil {
		return nil, err
	}
	out := &qeval.Completion{Model: msg.Model, InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens}
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

// errorMessage is the message of an Anthropic error object ({"error": {"message": …}}).
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Message
}
