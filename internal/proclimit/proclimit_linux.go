//go:build linux

package proclimit

import (
	"os"
	"strconv"
	"sync"
	"syscall"
)

var (
	mu       sync.Mutex
	capped   bool
	original uint64 // the soft limit qeval started with
)

// CapAddressSpace lowers the soft RLIMIT_AS to limit (never past the hard limit, and
// never raising a tighter soft one).
func CapAddressSpace(limit uint64) error {
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
	mu.Lock()
	defer mu.Unlock()
	if !capped {
		original = rl.Cur
	}
	rl.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return err
	}
	capped = true
	return nil
}

// wrapper is the shell that gives a program qeval's original limit back before it
// runs (nil when qeval did not lower it, or has no shell).
func wrapper() []string {
	mu.Lock()
	defer mu.Unlock()
	if !capped {
		return nil
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		return nil
	}
	limit := "unlimited"
	if original != ^uint64(0) {
		limit = strconv.FormatUint(original/1024, 10) // ulimit -v counts KiB
	}
	return []string{"/bin/sh", "-c", "ulimit -v " + limit + " 2>/dev/null; exec \"$@\"", "qeval-target"}
}

// physicalMemory is the machine's memory in bytes, 0 when unknown.
func physicalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
