package execmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
)

// fileID tells one version of a database file (or folder) on this machine from
// another without reading it: its device and inode, size, and modification and change
// times. A copy written over it in place, even at the same size with the old
// modification time kept (cp -p, rsync -t), has a new change time; one renamed over it
// a new inode. A folder's lists those of every file under it. The zero fileID is a
// server's (no file).
type fileID struct {
	dev, ino           uint64
	size, mtime, ctime int64
	folder             string
}

// identity reads the fileID of a file or folder.
func identity(path string) (fileID, error) {
	id, dir, err := statID(path)
	if err != nil || !dir {
		return id, err
	}
	var b strings.Builder
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, _, err := statID(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(&b, "%q %d %d %d %d %d\n", rel, f.dev, f.ino, f.size, f.mtime, f.ctime)
		return nil
	})
	if err != nil {
		return fileID{}, err
	}
	return fileID{folder: "dir:" + b.String()}, nil
}

// contentVersion is the SHA-256 of a file's content, or for a folder of the names and
// contents of every file under it: what names a database wherever it is copied.
func contentVersion(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		sum, err := qeval.FileSHA256(path)
		if err != nil {
			return "", err
		}
		return "sha256:" + sum, nil
	}
	h := sha256.New()
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		sum, err := qeval.FileSHA256(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%q %s\n", filepath.ToSlash(rel), sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	return "sha256-dir:" + hex.EncodeToString(h.Sum(nil)), nil
}
