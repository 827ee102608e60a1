//go:build linux

package duckdb

// On Linux the DuckDB bindings link with -rdynamic, so that extensions loaded at run
// time can find DuckDB's symbols in the executable; this package loads none (extension
// loading is off, the ones it uses are linked in). Exported, DuckDB's 62,000 C++ symbols made
// the dynamic symbol table 7 MB, which the dynamic loader reads at every start of every
// qeval command. gcc hands -rdynamic to the linker ahead of -Wl options, and the
// linker honours the later one (TestLink_NoExportedSymbols).

// #cgo LDFLAGS: -Wl,--no-export-dynamic
import "C"
