package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval/registry"
)

// A source mirrored once is reused by content; changed bytes make a new mirror.
func TestMirrorDuckDBCached(t *testing.T) {
	src := filepath.Join(t.TempDir(), "chinook.sqlite")
	b, err := os.ReadFile("../examples/chinook/chinook.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srcs := []registry.MirrorSource{{DBID: "chinook", Path: src}}
	first, err := registry.MirrorDuckDBCached(context.Background(), dir, srcs)
	if err != nil || len(first) != 1 || len(first[0].Notes) > 0 && first[0].Notes[0] == registry.MirrorReused {
		t.Fatalf("first mirror: %+v, %v", first, err)
	}
	again, err := registry.MirrorDuckDBCached(context.Background(), dir, srcs)
	if err != nil || len(again) != 1 || again[0].Target != first[0].Target || len(again[0].Notes) == 0 || again[0].Notes[0] != registry.MirrorReused {
		t.Fatalf("second mirror: %+v, %v; want the first one reused", again, err)
	}
	// the same name with other content is another mirror
	if err := os.WriteFile(src, append(b, make([]byte, 4096)...), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := registry.MirrorDuckDBCached(context.Background(), dir, srcs)
	if err != nil || len(other) != 1 || other[0].Target == first[0].Target {
		t.Fatalf("changed source: %+v, %v; want a new mirror", other, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".mirror-*"))
	if len(left) > 0 {
		t.Errorf("temporary folders left behind: %v", left)
	}
}
