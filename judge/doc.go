// Package judge asks a language model whether a generated query answers the same
// question as an expected one: query correctness (correct 1.0, partially_correct 0.5,
// incorrect 0.0) and LLM grading (a score in [0, 1]), each with its reasoning.
//
// A Judge renders a versioned prompt (prompts/, embedded; see QueryCorrectnessV1 and
// LLMGradingV1), forces the model to answer through a tool whose JSON schema is
// {reasoning, verdict} or {reasoning, score}, checks the answer against that schema
// and maps it to a score. It talks to the model through a qeval.Completer (llm/anthropic,
// llm/openai), so it knows no provider. Cached wraps a Judge with a store (internal/cache)
// keyed on provider, model, prompt version and the rendered request.
//
// # Deadlines, retries and concurrency
//
// This package is the one place where they are decided; the provider SDKs are set to
// make one attempt and no deadline of their own (option.WithMaxRetries(0)).
//
//   - Every judgement gets Config.CallTimeout (DefaultCallTimeout, 30 s) in all: the
//     wait for a slot, each request and each wait between retries. A judgement that runs
//     past it fails with CodeTimeout and the message "LLM judge timeout", the timeout is
//     logged, and the run goes on; a retry is sent only while time remains for it.
//   - A provider answer of 408, 409, 429 or 5xx, or no answer at all, is retried with
//     jittered exponential backoff (RetryPolicy.BaseDelay doubling up to MaxDelay), and
//     never sooner than the provider's Retry-After (or retry-after-ms). After
//     MaxAttempts requests, or when the next wait would end past MaxElapsed, the verdict
//     fails with CodeUnavailable: "judge: openai: 429 too many requests (gave up after
//     4 tries in 38s)". Other statuses (400, 401, 404, ...) fail at once.
//   - At most Config.MaxConcurrency requests of one Judge are in flight at a time
//     (DefaultMaxConcurrency, 8); a retry waits for its backoff without holding a slot.
//     Use one Judge per provider for the whole run.
//
// Errors and timeouts are never cached. A cache that cannot be read or written logs a
// warning, and the judge asks the model as if there were no cache.
//
// A new prompt version is new files under prompts/ and a new entry in prompts (prompt.go);
// keep the old one so older reports stay reproducible.
package judge
