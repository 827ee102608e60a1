package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// A request's model picks the provider that serves it; without that provider's key the
// error says so and wraps qeval.ErrNoAPIKey (the server then skips the LLM component).
func TestJudgeForModel_RoutesByName(t *testing.T) {
	jf := &judgeFlags{provider: "anthropic"}
	build := func(vars map[string]string) func(string) (qeval.Judge, error) {
		e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return vars[k] }}
		return registry.JudgeForModel(jf.options(e, slog.New(slog.DiscardHandler)), &registry.JudgeSetup{})
	}
	anthropicOnly := build(map[string]string{"ANTHROPIC_API_KEY": "sk-a"})
	_, err := anthropicOnly("gpt-4o-mini")
	if !errors.Is(err, qeval.ErrNoAPIKey) || !strings.Contains(err.Error(), "openai") {
		t.Errorf("gpt-4o-mini without an OpenAI key: %v, want a no-key error naming openai", err)
	}
	if j, err := anthropicOnly("claude-haiku-5"); err != nil || j == nil {
		t.Errorf("claude-haiku-5 with an Anthropic key: %v", err)
	}
	both := build(map[string]string{"ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"})
	if j, err := both("gpt-4o-mini"); err != nil || j == nil {
		t.Errorf("gpt-4o-mini with an OpenAI key: %v", err)
	}
	// a name no prefix claims stays with the server's provider
	if _, err := anthropicOnly("my-local-model"); err != nil {
		t.Errorf("an unclaimed model name: %v", err)
	}
}
