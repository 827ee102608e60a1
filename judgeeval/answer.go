package judgeeval

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Answer is one judgement as qeval judge prints it (its --json has this shape).
type Answer struct {
	Score         *float64         `json:"score"`
	Verdict       string           `json:"verdict,omitempty"`
	Reasoning     string           `json:"reasoning"`
	Cached        bool             `json:"cached"`
	LLMCalled     bool             `json:"llm_called"`
	Error         *AnswerError     `json:"error"`
	Skipped       *string          `json:"skipped"`
	Provider      string           `json:"provider"`
	Model         string           `json:"model"`
	PromptVersion string           `json:"prompt_version"`
	LatencyMS     float64          `json:"latency_ms"`
	Stats         qeval.JudgeStats `json:"stats"`
}

// AnswerError is why a judgement failed.
type AnswerError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// NewAnswer is the answer of a judge metric's result r, asked of provider's model with
// the prompt version, in took.
func NewAnswer(r metric.Result, provider, model, version string, took time.Duration, st qeval.JudgeStats) Answer {
	out := Answer{Score: r.Score, Skipped: r.Skipped, Provider: provider, Model: model,
		PromptVersion: version, LatencyMS: float64(took.Microseconds()) / 1000, Stats: st}
	out.Verdict, _ = r.Details["verdict"].(string)
	out.Reasoning, _ = r.Details["reasoning"].(string)
	out.Cached, _ = r.Details["cached"].(bool)
	out.LLMCalled, _ = r.Details["llm_called"].(bool)
	if r.Error != nil {
		out.Error = &AnswerError{Message: r.Error.Message}
		out.Error.Code, _ = r.Details["error_code"].(string)
		out.Error.Hint, _ = r.Details["hint"].(string)
	}
	return out
}

// Write writes the answer as indented JSON (asJSON) or as aligned lines of text.
func (o *Answer) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	}
	if o.Skipped != nil {
		_, err := fmt.Fprintf(w, "skipped:   %s\n", *o.Skipped)
		return err
	}
	if o.Verdict != "" {
		fmt.Fprintf(w, "verdict:   %s\n", o.Verdict)
	}
	fmt.Fprintf(w, "score:     %g\n", *o.Score)
	if o.Error != nil {
		fmt.Fprintf(w, "error:     %s\n", o.Error.Message)
	} else {
		fmt.Fprintf(w, "reasoning: %s\n", o.Reasoning)
	}
	from := "the model"
	switch {
	case o.Cached:
		from = "the cache"
	case !o.LLMCalled && o.Error == nil:
		from = "qeval (no model call)"
	}
	fmt.Fprintf(w, "from:      %s (%s %s, prompt %s)\n", from, o.Provider, o.Model, o.PromptVersion)
	fmt.Fprintf(w, "latency:   %s\n", time.Duration(o.LatencyMS*float64(time.Millisecond)).Round(time.Millisecond))
	_, err := fmt.Fprintf(w, "judge:     %d calls, %d cache hits, %d tokens in, %d tokens out\n",
		o.Stats.Calls, o.Stats.CacheHits, o.Stats.InputTokens, o.Stats.OutputTokens)
	return err
}
