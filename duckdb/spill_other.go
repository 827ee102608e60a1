//go:build !unix

package duckdb

import "os"

// running reports whether a process runs under pid.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// ownDir reports whether path is a folder (not a link).
func ownDir(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.IsDir()
}
