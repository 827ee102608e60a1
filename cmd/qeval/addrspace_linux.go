//go:build linux

package main

import (
	"syscall"

	"github.com/qeval/qeval/internal/proclimit"
)

// capAddressSpace sets the process's soft address-space limit (RLIMIT_AS), so that an
// engine that allocates past it fails its query with "out of memory" instead of the
// system killing the run: DuckDB builds some values outside its memory_limit
// (list_value(range(1000000000)) asked for one 8 GB block, then grew to 24 GB and the
// process was killed). The cap is QEVAL_MAX_MEMORY (bytes, or with KiB, MiB, GiB; "off"
// for none), by default 8 GiB or three quarters of the machine's memory, whichever is
// smaller, and never under 4 GiB (the Go runtime and the engines reserve ~2 GB of
// address space they do not use). It is never raised past the hard limit, and the
// programs qeval starts (target commands) get back the limit qeval started with.
func capAddressSpace(getenv func(string) string) error {
	limit, err := addressSpaceCap(getenv("QEVAL_MAX_MEMORY"), physicalMemory())
	if err != nil || limit == 0 {
		return err
	}
	return proclimit.CapAddressSpace(limit)
}

func physicalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
