// Package testdata locates the shared evaluation data (../shared/data next to the
// module root) for tests that run over the full Spider and KQL sets.
package testdata

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// SharedDir returns the path of the shared data folder (<module root>/../shared/data),
// or skips the test with a message saying it is absent.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "data")
	if env := os.Getenv("QEVAL_SHARED_DATA"); env != "" {
		dir = env
	}
	if _, err := os.Stat(filepath.Join(dir, "spider", "dev.json")); err != nil {
		tb.Skipf("shared data not found at %s (set QEVAL_SHARED_DATA to its path): tests over the full Spider set need it", dir)
	}
	if err := CheckShared(dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// manifest lists the SHA-256 of every shared file the tests read (sha256sum's format,
// paths relative to the shared data folder). When the data changes on purpose, make it
// again: (cd ../shared/data && find . -type f ! -name README.md | sort | sed 's|^\./||' |
// xargs sha256sum) > internal/testdata/shared.sha256
//
//go:embed shared.sha256
var manifest []byte

var (
	checkOnce sync.Once
	checkErr  error
)

// CheckShared checks, once per process, that the shared files are those the tests'
// expectations were made from: a changed or missing file is one line naming it, not a
// test full of differences.
func CheckShared(dir string) error {
	checkOnce.Do(func() { checkErr = checkManifest(dir, manifest) })
	return checkErr
}

func checkManifest(dir string, manifest []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(manifest))
	for sc.Scan() {
		sum, rel, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return fmt.Errorf("shared data: %s is missing (%v); the tests expect the file with sha256 %s", filepath.Join(dir, rel), err, sum)
		}
		got := sha256.Sum256(b)
		if h := hex.EncodeToString(got[:]); h != sum {
			return fmt.Errorf("shared data: %s changed (expected sha256 %s, found %s)", filepath.Join(dir, rel), sum, h)
		}
	}
	return nil
}
