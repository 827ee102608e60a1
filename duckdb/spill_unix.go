//go:build unix

package duckdb

import (
	"errors"
	"os"
	"syscall"
)

// running reports whether a process runs under pid (one of another user counts).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownDir reports whether path is a folder (not a link) of this process's user.
func ownDir(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Getuid()
}
