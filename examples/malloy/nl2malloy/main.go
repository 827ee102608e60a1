// Command nl2malloy is a small NL→Malloy system for qeval's --target-command: it reads
// one case as JSON on stdin (the question and the suite's Malloy model), asks an LLM
// for a Malloy query through the provider clients qeval's judge uses (Anthropic or
// OpenAI, keys from ANTHROPIC_API_KEY / OPENAI_API_KEY), and prints {"query": ...}.
//
//	go build -o bin/nl2malloy ./examples/malloy/nl2malloy
//	qeval run examples/malloy/suite.yaml --target-command "$PWD/bin/nl2malloy --provider anthropic" -o out/
//
// A team plugs its own system in the same way: any program that reads the case and
// prints the query, or an HTTP endpoint (--target-url) that answers the same JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

func main() {
	provider := flag.String("provider", registry.DefaultProvider, "LLM provider: "+strings.Join(registry.ProviderNames(), ", "))
	model := flag.String("model", "", "the provider's model (its default when empty)")
	baseURL := flag.String("base-url", "", "the provider's API address (its default, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL, when empty)")
	timeout := flag.Duration("timeout", 60*time.Second, "deadline of the LLM call")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c, err := registry.NewCompleter(*provider, registry.ProviderConfig{Model: *model, BaseURL: *baseURL, Getenv: os.Getenv})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nl2malloy:", qeval.ErrorMessage(err))
		os.Exit(1)
	}
	q, err := answer(ctx, c, os.Stdin, ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "nl2malloy:", qeval.ErrorMessage(err))
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]string{"query": q})
}

// request is the part of qeval's case JSON this system reads.
type request struct {
	ID          string             `json:"id"`
	Question    string             `json:"question"`
	MalloyModel *qeval.MalloyModel `json:"malloy_model"`
}

// system is what the model is told once.
const system = `You translate questions about data into Malloy queries. You are given a Malloy
model (its sources, joins, measures and dimensions) and a question. Answer with one
Malloy query of the form run: <source> -> { ... } that answers the question against
that model. Prefer the model's own measures and dimensions to writing them again.
Call the tool write_malloy with the query; write nothing else.`

// tool is the structured answer the model must give.
var tool = qeval.Tool{Name: "write_malloy", Description: "Record the Malloy query that answers the question.",
	Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"one Malloy query, run: <source> -> { ... }"}},"required":["query"]}`)}

// answer reads a case from r, the model's files relative to dir, and asks c.
func answer(ctx context.Context, c qeval.Completer, r io.Reader, dir string) (string, error) {
	var req request
	if err := json.NewDecoder(r).Decode(&req); err != nil {
		return "", fmt.Errorf("read the case: %w", err)
	}
	if req.MalloyModel == nil || len(req.MalloyModel.Files) == 0 {
		return "", fmt.Errorf("case %s: no malloy_model (run this on a Malloy suite)", req.ID)
	}
	var model strings.Builder
	for _, f := range req.MalloyModel.Files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("case %s: read the model: %w", req.ID, err)
		}
		fmt.Fprintf(&model, "// %s\n%s\n", filepath.Base(f), b)
	}
	zero := 0.0
	out, err := c.Complete(ctx, qeval.CompletionRequest{System: system, Tool: tool, MaxTokens: 1024, Temperature: &zero,
		Messages: []qeval.Message{{Role: "user", Content: "Malloy model:\n```malloy\n" + model.String() + "```\n\nQuestion: " + req.Question}}})
	if err != nil {
		return "", err
	}
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(out.ToolInput, &a); err != nil || strings.TrimSpace(a.Query) == "" {
		return "", fmt.Errorf("case %s: the model gave no query (%s)", req.ID, qeval.ClipText(out.Text, 200))
	}
	return strings.TrimSpace(a.Query), nil
}
