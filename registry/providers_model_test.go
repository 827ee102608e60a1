package registry

import "testing"

func TestProviderForModel(t *testing.T) {
	for model, want := range map[string]string{"gpt-4o-mini": "openai", "GPT-5.4-mini": "openai", "o3-mini": "openai", "o4-mini": "openai",
		"chatgpt-4o-latest": "openai", "claude-sonnet-5-5": "anthropic", "llama3.1:8b": "", "mistral-large": ""} {
		got, ok := ProviderForModel(model)
		if got != want || ok != (want != "") {
			t.Errorf("ProviderForModel(%q) = %q, %v; want %q", model, got, ok, want)
		}
	}
}
