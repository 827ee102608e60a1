package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// Databases are copied side by side, and the result keeps their order: each copy is
// named in the order given, a source that fails is named in the error, and the others
// are copied all the same (cached or not).
func TestMirror_ManySourcesKeepTheirOrder(t *testing.T) {
	sp := "../examples/spider/database/"
	var srcs []registry.MirrorSource
	for _, id := range []string{"concert_singer", "pets_1", "nope", "singer"} {
		srcs = append(srcs, registry.MirrorSource{DBID: id, Path: filepath.Join(sp, id, id+".sqlite")})
	}
	srcs = append(srcs, registry.MirrorSource{DBID: "chinook", Path: "../examples/chinook/chinook.sqlite"},
		registry.MirrorSource{DBID: "concert_again", Path: filepath.Join(sp, "concert_singer", "concert_singer.sqlite")})
	check := func(what string, done []registry.Mirrored, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("%s: error %v, want it to name the missing source", what, err)
		}
		var ids []string
		for _, m := range done {
			ids = append(ids, m.DBID)
		}
		if got := strings.Join(ids, ","); got != "concert_singer,pets_1,singer,chinook,concert_again" {
			t.Errorf("%s: copied %s", what, got)
		}
	}
	done, err := registry.Mirror(context.Background(), "duckdb:"+t.TempDir(), srcs, registry.MirrorOptions{})
	check("Mirror", done, err)
	done, err = registry.MirrorDuckDBCached(context.Background(), t.TempDir(), srcs)
	check("MirrorDuckDBCached", done, err)
}
