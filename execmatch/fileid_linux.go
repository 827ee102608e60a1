package execmatch

import (
	"os"
	"syscall"
)

// statID reads the fileID of a file, and whether it is a folder (whose files make its
// fileID).
func statID(path string) (fileID, bool, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileID{}, false, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return fileID{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()},
		st.Mode&syscall.S_IFMT == syscall.S_IFDIR, nil
}
