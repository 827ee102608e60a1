// Package testdata locates the shared evaluation data (../shared/data next to the
// module root) for tests that run over the full Spider and KQL sets.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
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
	return dir
}
