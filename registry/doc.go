// Package registry is the one list of names → constructors that the CLI and the server
// use: database engines (executors.go), LLM providers (providers.go) and report
// formats (writers.go). Adding an engine, a provider or a format is one line here and a
// package of its own; nothing self-registers from init.
package registry
