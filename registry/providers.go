package registry

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/llm/anthropic"
	"github.com/qeval/qeval/llm/openai"
)

// DefaultProvider is the LLM judge's provider when none is named.
const DefaultProvider = "anthropic"

// ProviderConfig configures an LLM provider. Empty fields take the provider's defaults;
// APIKey and BaseURL are read through Getenv when empty.
type ProviderConfig struct {
	APIKey     string
	BaseURL    string
	Model      string
	HTTPClient *http.Client
	// Getenv reads the provider's variables (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
	// OPENAI_API_KEY, OPENAI_BASE_URL) for the fields left empty; nil reads none.
	Getenv func(string) string
}

// provider is one entry of the table: its constructor, its default model and the
// environment variables of its key and base URL.
type provider struct {
	new          func(ProviderConfig) (qeval.Completer, error)
	defaultModel string
	keyEnv       string
	baseURLEnv   string
}

// providers is the one list of LLM providers, by name.
var providers = map[string]provider{
	"anthropic":         {newAnthropic, anthropic.DefaultModel, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
	"openai":            {newOpenAI, openai.DefaultModel, "OPENAI_API_KEY", "OPENAI_BASE_URL"},
	"openai-compatible": {newOpenAICompatible, "", "OPENAI_API_KEY", "OPENAI_BASE_URL"},
}

// NewCompleter returns the Completer of the named provider. An unknown name lists the
// known ones; a provider that needs a key and has none returns an error wrapping
// qeval.ErrNoAPIKey, which callers turn into skipped judge metrics.
func NewCompleter(name string, cfg ProviderConfig) (qeval.Completer, error) {
	p, cfg, err := resolve(name, cfg)
	if err != nil {
		return nil, err
	}
	return p.new(cfg)
}

// ResolveProvider returns cfg with the fields NewCompleter would fill: key and base URL
// from the environment, the default model. Callers use Model to name the judge.
func ResolveProvider(name string, cfg ProviderConfig) (ProviderConfig, error) {
	_, cfg, err := resolve(name, cfg)
	return cfg, err
}

// ProviderNames returns the names of the providers, sorted.
func ProviderNames() []string {
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func resolve(name string, cfg ProviderConfig) (provider, ProviderConfig, error) {
	p, ok := providers[name]
	if !ok {
		return p, cfg, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("unknown LLM provider %q (known: %s)", name, strings.Join(ProviderNames(), ", "))}
	}
	if cfg.Getenv != nil {
		if cfg.APIKey == "" {
			cfg.APIKey = strings.TrimSpace(cfg.Getenv(p.keyEnv))
		}
		if cfg.BaseURL == "" {
			cfg.BaseURL = strings.TrimSpace(cfg.Getenv(p.baseURLEnv))
		}
	}
	if cfg.Model == "" {
		cfg.Model = p.defaultModel
	}
	return p, cfg, nil
}

func newAnthropic(cfg ProviderConfig) (qeval.Completer, error) {
	c, err := anthropic.New(anthropic.Client{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: cfg.HTTPClient})
	if err != nil {
		return nil, err // not a nil *Client in a non-nil interface
	}
	return c, nil
}

func newOpenAI(cfg ProviderConfig) (qeval.Completer, error) {
	c, err := openai.New(openai.Client{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: cfg.HTTPClient})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// newOpenAICompatible is any server speaking Chat Completions (Ollama, vLLM,
// llama.cpp, LiteLLM, Azure OpenAI): it needs a base URL and a model, a key only if the
// server wants one, and gets max_tokens, which these servers know.
func newOpenAICompatible(cfg ProviderConfig) (qeval.Completer, error) {
	var missing []string
	if cfg.BaseURL == "" {
		missing = append(missing, "a base URL (--judge-base-url or OPENAI_BASE_URL)")
	}
	if cfg.Model == "" {
		missing = append(missing, "a model (--model)")
	}
	if len(missing) > 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "openai-compatible",
			Message: "needs " + strings.Join(missing, " and "),
			Hint:    "for Ollama: --judge-base-url http://127.0.0.1:11434/v1 --model llama3.1"}
	}
	c, err := openai.New(openai.Client{Name: "openai-compatible", BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model,
		HTTPClient: cfg.HTTPClient, KeyOptional: true, LegacyMaxTokens: true})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// modelPrefixes say which provider serves a model, by the start of its name.
var modelPrefixes = []struct{ prefix, provider string }{
	{"claude-", "anthropic"},
	{"gpt-", "openai"},
	{"chatgpt-", "openai"},
	{"o1", "openai"},
	{"o3", "openai"},
	{"o4", "openai"},
}

// ProviderForModel names the provider that serves model, when its name says so
// ("claude-…" is Anthropic's, "gpt-…" and the o-series OpenAI's); ok is false for a
// name no prefix claims (a local model behind openai-compatible, say).
func ProviderForModel(model string) (name string, ok bool) {
	m := strings.ToLower(model)
	for _, p := range modelPrefixes {
		if strings.HasPrefix(m, p.prefix) {
			return p.provider, true
		}
	}
	return "", false
}
