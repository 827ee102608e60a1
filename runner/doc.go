// Package runner runs a suite: for each case it gets the generated query (inline, from
// a predictions file, a command or an HTTP endpoint), executes both queries, computes
// every metric and the composite score, and decides PASS, FAIL or ERROR. Cases run with
// bounded concurrency and a per-case deadline; each finished case is reported as an
// event and can be appended to a results file, from which a killed run resumes.
package runner
