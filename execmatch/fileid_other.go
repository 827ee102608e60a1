//go:build !linux

package execmatch

import "os"

// statID reads the fileID of a file (its size and modification time), and whether it
// is a folder (whose files make its fileID).
func statID(path string) (fileID, bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileID{}, false, err
	}
	return fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}, st.IsDir(), nil
}
