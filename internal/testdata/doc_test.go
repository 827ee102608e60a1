package testdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A changed shared file is one line naming it; an unchanged folder passes.
func TestCheckManifest(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "spider"), 0o755)
	os.WriteFile(filepath.Join(dir, "spider", "gold.sql"), []byte("SELECT 1\tx\n"), 0o644)
	m := []byte("c7b44d44b46c0d0c04bb92bf3a0e4ac1d9df5bfc6e8c89fbd87b7ce96aa0e0de  spider/gold.sql\n")
	err := checkManifest(dir, m)
	if err == nil || !strings.Contains(err.Error(), "spider/gold.sql changed (expected sha256 c7b44d44") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("changed file: %v", err)
	}
	sum := "5f0c8f3c2b6bfe7f0a0bb2b7d51cd1b9b1d1a0a8d1e2b5de6f7f0a3a4e4d8b1c"
	if err := checkManifest(dir, []byte(sum+"  spider/none.sql\n")); err == nil || !strings.Contains(err.Error(), "none.sql is missing") {
		t.Errorf("missing file: %v", err)
	}
	shared := filepath.Join("..", "..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(shared, "spider", "dev.json")); err != nil {
		t.Skipf("shared data absent at %s: the real manifest is not checked", shared)
	}
	if err := checkManifest(shared, manifest); err != nil {
		t.Error(err)
	}
}
