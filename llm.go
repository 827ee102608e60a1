package qeval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Completer asks a large language model for one answer, forced through a tool call.
//
// Complete sends req once and returns the model's answer. The model is told it must
// call req.Tool; Completion.ToolInput holds the JSON object it passed to the tool, or
// is empty when the model answered in text only (Completion.Text then holds that text).
// Complete makes exactly one attempt: it never retries, and it sets no deadline of its
// own; retries and deadlines are the caller's policy (see package judge).
//
// When ctx ends, Complete returns promptly with an *Error of CodeTimeout (deadline) or
// CodeCanceled. An error response, or no response at all, is an *Error with
// CodeUnavailable wrapping a *ProviderError (its StatusCode is 0 when no response
// came). A reply that cannot be decoded is an *Error with CodeUnavailable and no
// ProviderError. No error, log line or field ever contains the API key.
//
// Implementations are safe for concurrent use.
type Completer interface {
	Complete(ctx context.Context, req CompletionRequest) (*Completion, error)
}

// CompletionRequest is one question to a model.
type CompletionRequest struct {
	System    string    // the system prompt
	Messages  []Message // the conversation, usually one user message
	Tool      Tool      // the tool the model must call
	MaxTokens int       // the cap on the tokens of the answer
	// Temperature is the sampling temperature; nil leaves the provider's default. A
	// judge sends 0 so that the same question gets the same verdict.
	Temperature *float64
}

// Message is one turn of a conversation.
type Message struct {
	Role    string // "user" or "assistant"
	Content string
}

// Tool is a function the model is forced to call; its arguments are the structured
// answer. Schema is a JSON Schema of type "object".
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Completion is a model's answer.
type Completion struct {
	ToolInput    json.RawMessage // the arguments of the tool call, empty when there was none
	Text         string          // any text the model wrote besides (or instead of) the call
	InputTokens  int
	OutputTokens int
	Model        string // the model that answered, as the provider names it
}

// ErrNoAPIKey is wrapped by the error a provider constructor returns when it needs an
// API key and none was configured. Callers mark judge metrics skipped with that error's
// message rather than failing the run.
var ErrNoAPIKey = errors.New("no API key configured")

// ProviderError is what an LLM provider answered instead of a completion.
type ProviderError struct {
	Provider   string        // "anthropic", "openai", ...
	StatusCode int           // the HTTP status; 0 when no response came (connection error)
	RetryAfter time.Duration // how long the provider asked to wait; 0 when it did not say
	Message    string        // the provider's own message, with the API key masked
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.Status())
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Status renders the status for people: "429 too many requests", or "no response".
func (e *ProviderError) Status() string {
	if e.StatusCode == 0 {
		return "no response"
	}
	s := strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + strings.ToLower(t)
	}
	return s
}

// Retryable reports whether the same request may succeed later: no response at all,
// 408, 409 (Anthropic's lock contention), 429 and every 5xx.
func (e *ProviderError) Retryable() bool {
	switch {
	case e.StatusCode == 0, e.StatusCode == 408, e.StatusCode == 409, e.StatusCode == 429:
		return true
	case e.StatusCode >= 500:
		return true
	}
	return false
}

// Judge decides how well a generated query answers the same question as an expected
// one, using a language model.
//
// Judge returns the verdict for in. On failure (deadline, provider gave up, a reply
// that does not fit the schema) it returns an *Error (CodeTimeout, CodeCanceled,
// CodeUnavailable) together with a verdict of score 0 that still says which provider,
// model and prompt version were used, how long it took and whether the model was
// called. Judge is safe for concurrent use.
type Judge interface {
	Judge(ctx context.Context, in JudgeInput) (JudgeVerdict, error)
}

// JudgeTask names what a judge is asked.
type JudgeTask string

// The judge tasks.
const (
	// TaskQueryCorrectness: correct (1.0), partially_correct (0.5) or incorrect (0.0).
	TaskQueryCorrectness JudgeTask = "query_correctness"
	// TaskLLMGrading: a continuous score in [0, 1] for the composite score.
	TaskLLMGrading JudgeTask = "llm_grading"
)

// The verdicts of TaskQueryCorrectness.
const (
	JudgeCorrect          = "correct"
	JudgePartiallyCorrect = "partially_correct"
	JudgeIncorrect        = "incorrect"
)

// JudgeInput is what a judge sees of one case. Generated and Expected are required;
// the rest is optional context. The results are the first rows of each query when
// execution ran.
type JudgeInput struct {
	Task            JudgeTask  `json:"task"`
	Question        string     `json:"question,omitempty"`
	Generated       string     `json:"generated"`
	Expected        string     `json:"expected"`
	Dialect         string     `json:"dialect,omitempty"`
	Schema          string     `json:"schema,omitempty"` // DDL
	GeneratedResult *ResultSet `json:"generated_result,omitempty"`
	ExpectedResult  *ResultSet `json:"expected_result,omitempty"`
	// Sample numbers a repeated question (judge.samples): sample k > 0 has a cache
	// entry of its own, so that N samples are N answers, not one answer N times.
	Sample int `json:"sample,omitempty"`
}

// JudgeVerdict is a judge's answer about one case.
type JudgeVerdict struct {
	Score         float64       `json:"score"`
	Verdict       string        `json:"verdict,omitempty"` // TaskQueryCorrectness only
	Reasoning     string        `json:"reasoning"`
	Cached        bool          `json:"cached"`     // the answer came from the cache
	LLMCalled     bool          `json:"llm_called"` // a request was sent to the provider
	Latency       time.Duration `json:"latency_ns"`
	Attempts      int           `json:"attempts"` // requests sent, retries included
	InputTokens   int           `json:"input_tokens"`
	OutputTokens  int           `json:"output_tokens"`
	Provider      string        `json:"provider"`
	Model         string        `json:"model"`
	PromptVersion string        `json:"prompt_version"`
	// Samples, when the question was asked several times, is how the answers spread;
	// Verdict and Score are then the majority's.
	Samples *JudgeSamples `json:"samples,omitempty"`
	// Panel are the answers of the other judges of a panel (judge.panel) to the same
	// question; Verdict and Score stay the first judge's.
	Panel []PanelVerdict `json:"panel,omitempty"`
}

// JudgeSamples is the spread of the answers to one question asked N times.
type JudgeSamples struct {
	N        int       `json:"n"`
	Verdicts []string  `json:"verdicts,omitempty"` // query correctness: each sample's verdict
	Scores   []float64 `json:"scores"`
	// Agreement is the share of samples that gave the majority's verdict (for a grade:
	// within 0.25 of the median score); Spread is the highest score minus the lowest.
	Agreement float64 `json:"agreement"`
	Spread    float64 `json:"spread"`
}

// PanelVerdict is one other judge's answer.
type PanelVerdict struct {
	Provider string  `json:"provider"`
	Model    string  `json:"model"`
	Verdict  string  `json:"verdict,omitempty"`
	Score    float64 `json:"score"`
	Error    string  `json:"error,omitempty"`
}

// JudgeStats counts what a judge did during a run; every report states it.
type JudgeStats struct {
	Calls        int64 `json:"calls"`      // requests sent to the provider, retries included
	CacheHits    int64 `json:"cache_hits"` // verdicts answered from the cache
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Errors       int64 `json:"errors"`   // verdicts that failed, timeouts included
	Timeouts     int64 `json:"timeouts"` // verdicts that hit the per-call deadline
}

// Detail is the message of a provider error without the provider's name (which the Op
// of a wrapping *Error already gives): the status, then the provider's message.
func (e *ProviderError) Detail() string {
	if e.Message == "" {
		return e.Status()
	}
	return e.Status() + ": " + e.Message
}

// RetryAfter reads how long a provider asks to wait before retrying: the
// retry-after-ms header, then Retry-After (seconds or an HTTP date); 0 when neither
// says.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Secrets are the configured secrets of a run (API keys, DSN passwords, bearer tokens):
// everything qeval writes or prints goes through Mask first.
type Secrets []string

// Mask replaces every secret in s.
func (ss Secrets) Mask(s string) string {
	for _, x := range ss {
		s = Mask(s, x)
	}
	return s
}

// MaskBytes replaces every secret in b (b itself when none occurs).
func (ss Secrets) MaskBytes(b []byte) []byte {
	for _, x := range ss {
		if x != "" && bytes.Contains(b, []byte(x)) {
			b = bytes.ReplaceAll(b, []byte(x), []byte("xxxxx"))
		}
	}
	return b
}

// Mask replaces every occurrence of a secret (an API key, a password) in s, so that
// no message, log line or report ever carries it.
func Mask(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "xxxxx")
}
