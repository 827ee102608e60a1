package duckdb

import (
	"os"
	"syscall"
)

// pipe is os.Pipe with blocking ends: a worker's answer then wakes the thread that
// waits for it directly, not through the runtime's poller (a round trip costs ~100 µs
// less). An overrunning worker is ended rather than its read interrupted.
func pipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// workerAttr starts a worker in its own process group, so a terminal's Ctrl-C reaches
// qeval (which stops the run and cancels the queries in flight) and not the workers
// directly, and has the kernel end it when qeval dies, even mid-query.
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
