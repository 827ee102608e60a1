//go:build linux

package main

import (
	"syscall"
)

// capAddressSpace sets the process's soft address-space limit (RLIMIT_AS), so that an
// engine that allocates past it fails its query with "out of memory" instead of the
// system killing the run: DuckDB builds some values outside its memory_limit
// (list_value(range(1000000000)) asked for one 8 GB block, then grew to 24 GB and the
// process was killed). The cap is QEVAL_MAX_MEMORY (bytes, or with KiB, MiB, GiB; "off"
// for none), by default 8 GiB or three quarters of the machine's memory, whichever is
// smaller, and never under 4 GiB (the Go runtime and the engines reserve ~2 GB of
// address space they do not use). It is never raised past the hard limit.
func capAddressSpace(getenv func(string) string) error {
	limit, err := addressSpaceCap(getenv("QEVAL_MAX_MEMORY"), physicalMemory())
	if err != nil || limit == 0 {
		return err
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return nil
	}
	if rl.Max != ^uint64(0) && limit > rl.Max {
		limit = rl.Max
	}
	if rl.Cur != ^uint64(0) && rl.Cur <= limit {
		return nil // already as tight
	}
	rl.Cur = limit
	return syscall.Setrlimit(syscall.RLIMIT_AS, &rl)
}

func physicalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
