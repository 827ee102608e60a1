//go:build linux

package duckdb

import (
	"debug/elf"
	"os"
	"testing"
)

// A binary that links DuckDB does not export DuckDB's symbols (tens of thousands of them
// with the bindings' -rdynamic; a few dozen from the C libraries without).
func TestLink_NoExportedSymbols(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("the test binary's path is unknown here: %v", err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("the test binary is not ELF on this system: %v", err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatalf("dynamic symbols of %s: %v", exe, err)
	}
	defined := 0
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			defined++
		}
	}
	if defined > 1000 {
		t.Errorf("%s exports %d dynamic symbols, want at most 1000", exe, defined)
	}
	t.Logf("%d dynamic symbols, %d defined", len(syms), defined)
}
