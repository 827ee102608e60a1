//go:build !linux

package duckdb

import "os"

// stamp tells one version of a file from another without reading it: its size and
// modification time. Zero when it cannot be read.
type stamp struct {
	size, mtime int64
}

func fileStamp(path string) stamp {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{st.Size(), st.ModTime().UnixNano()}
}
