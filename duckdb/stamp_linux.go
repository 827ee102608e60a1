package duckdb

import "syscall"

// stamp tells one version of a file from another without reading it: device and inode
// (a copy renamed over it), size, and modification and change times (one written over
// it in place, even with its modification time kept). Zero when it cannot be read.
type stamp struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

func fileStamp(path string) stamp {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return stamp{}
	}
	return stamp{st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}
