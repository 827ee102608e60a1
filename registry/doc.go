// Package registry is the one list of names → constructors that the CLI and the server
// use: database engines (engines.go, each entry the engine's whole bundle: dialect,
// grammar, statement guard, constructor, mirror writer, role setup, DSN hint), LLM
// providers (providers.go) and report formats (writers.go). It alone imports the
// database adapters; the CLI and the server reach them through it (local.go has the
// files qeval keeps itself). Adding an engine, a provider or a format is one entry here
// and a package of its own; nothing self-registers from init.
package registry
