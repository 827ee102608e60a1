package cache_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/cache"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func MustOpen(tb testing.TB, dir string, opt cache.Options) *cache.Store {
	tb.Helper()
	s, err := cache.Open(context.Background(), dir, opt)
	if err != nil {
		tb.Fatalf("Open(%q): %v", dir, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestStore_RoundTrip(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, t.TempDir(), cache.Options{})
	if _, ok, err := s.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("Get(k) on empty store = ok %v, err %v; want miss", ok, err)
	}
	if err := s.Put(ctx, "k", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get(ctx, "k")
	if err != nil || !ok || string(got) != "v2" {
		t.Fatalf("Get(k) = %q, %v, %v; want v2, true, nil", got, ok, err)
	}
}

func TestStore_SurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s1, err := cache.Open(ctx, dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Put(ctx, "key", []byte("value")); err != nil {
		t.Fatal(err)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := MustOpen(t, dir, cache.Options{})
	got, ok, err := s2.Get(ctx, "key")
	if err != nil || !ok || string(got) != "value" {
		t.Fatalf("Get after reopen = %q, %v, %v; want value, true, nil", got, ok, err)
	}
	if want := filepath.Join(dir, cache.FileName); s2.Path() != want {
		t.Errorf("Path() = %q, want %q", s2.Path(), want)
	}
}

func TestStore_Expiry(t *testing.T) {
	ctx := context.Background()
	for _, noMemory := range []bool{false, true} {
		t.Run("NoMemory="+strconv.FormatBool(noMemory), func(t *testing.T) {
			c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			dir := t.TempDir()
			s := MustOpen(t, dir, cache.Options{TTL: time.Hour, Now: c.now, NoMemory: noMemory})
			if err := s.Put(ctx, "k", []byte("v")); err != nil {
				t.Fatal(err)
			}
			c.t = c.t.Add(59 * time.Minute)
			if _, ok, _ := s.Get(ctx, "k"); !ok {
				t.Fatal("Get after 59m = miss, want hit (TTL 1h)")
			}
			c.t = c.t.Add(time.Minute)
			if _, ok, _ := s.Get(ctx, "k"); ok {
				t.Fatal("Get after 60m = hit, want miss (TTL 1h)")
			}
			// Reopening removes the expired row from the file.
			s2 := MustOpen(t, dir, cache.Options{TTL: time.Hour, Now: c.now})
			c.t = c.t.Add(-time.Hour) // even a clock turned back does not bring it back
			if _, ok, _ := s2.Get(ctx, "k"); ok {
				t.Fatal("Get after reopen = hit, want the expired entry deleted")
			}
		})
	}
}

func TestStore_Memory(t *testing.T) {
	ctx := context.Background()
	s := cache.Memory(cache.Options{})
	if err := s.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Get(ctx, "k"); !ok || err != nil || string(got) != "v" {
		t.Fatalf("Get = %q, %v, %v", got, ok, err)
	}
	if s.Path() != "" {
		t.Errorf("Path() = %q, want empty for a memory store", s.Path())
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
}

func TestStore_PutCopiesValue(t *testing.T) {
	ctx := context.Background()
	s := cache.Memory(cache.Options{})
	v := []byte("abc")
	s.Put(ctx, "k", v)
	v[0] = 'X'
	got, _, _ := s.Get(ctx, "k")
	if !bytes.Equal(got, []byte("abc")) {
		t.Fatalf("Get = %q after the caller changed its slice, want abc", got)
	}
}

func TestOpen_Errors(t *testing.T) {
	ctx := context.Background()
	t.Run("ErrDirIsFile", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, []byte("x"), 0o600)
		if _, err := cache.Open(ctx, f, cache.Options{}); err == nil {
			t.Fatal("Open(a file) = nil error, want one")
		}
	})
	t.Run("ErrNotSQLite", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, cache.FileName), bytes.Repeat([]byte("not a database "), 100), 0o600)
		_, err := cache.Open(ctx, dir, cache.Options{})
		if err == nil {
			t.Fatal("Open(garbage file) = nil error, want one")
		}
		if !bytes.Contains([]byte(err.Error()), []byte(cache.FileName)) {
			t.Errorf("error %q does not name the file", err)
		}
	})
}

func TestStore_ErrClosed(t *testing.T) {
	ctx := context.Background()
	s, err := cache.Open(ctx, t.TempDir(), cache.Options{NoMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Put(ctx, "k", []byte("v")); err == nil {
		t.Error("Put after Close = nil error, want one")
	}
	if _, _, err := s.Get(ctx, "k"); err == nil {
		t.Error("Get after Close = nil error, want one")
	}
}

func TestDefaultDir(t *testing.T) {
	d, err := cache.DefaultDir()
	if err != nil {
		t.Skipf("no user cache directory on this machine: %v", err)
	}
	if filepath.Base(d) != "qeval" {
		t.Errorf("DefaultDir() = %q, want a directory named qeval", d)
	}
}

func BenchmarkStore_GetMemory(b *testing.B) {
	ctx := context.Background()
	s := MustOpen(b, b.TempDir(), cache.Options{})
	s.Put(ctx, "key", bytes.Repeat([]byte("v"), 400))
	b.ResetTimer()
	for b.Loop() {
		if _, ok, _ := s.Get(ctx, "key"); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkStore_GetDisk(b *testing.B) {
	ctx := context.Background()
	s := MustOpen(b, b.TempDir(), cache.Options{NoMemory: true})
	s.Put(ctx, "key", bytes.Repeat([]byte("v"), 400))
	b.ResetTimer()
	for b.Loop() {
		if _, ok, _ := s.Get(ctx, "key"); !ok {
			b.Fatal("miss")
		}
	}
}

// DeletePrefix deletes the entries of a prefix, in memory and in the file, and no other.
func TestStore_DeletePrefix(t *testing.T) {
	ctx := context.Background()
	s, err := cache.Open(ctx, t.TempDir(), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range []string{"gold-result@1:a", "gold-result@2:b", "judge@1:c", "gold-result"} {
		if err := s.Put(ctx, k, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeletePrefix(ctx, "gold-result@")
	if err != nil || n != 2 {
		t.Fatalf("DeletePrefix: %d %v, want 2 deleted", n, err)
	}
	for k, want := range map[string]bool{"gold-result@1:a": false, "gold-result@2:b": false, "judge@1:c": true, "gold-result": true} {
		if _, ok, err := s.Get(ctx, k); ok != want || err != nil {
			t.Errorf("Get(%q) after the delete: found=%v %v, want found=%v", k, ok, err, want)
		}
	}
}
