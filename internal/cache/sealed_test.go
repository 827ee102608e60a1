package cache_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/qeval/qeval/internal/cache"
)

// A shared cache's entries are authenticated: whoever can write to the Redis wrote a
// plain value under a computable key (or copied an entry from another key), and every
// replica served it as its own. Such an entry is a miss, counted and reported.
func TestSealed_RejectsWhatItDidNotWrite(t *testing.T) {
	ctx := context.Background()
	raw := cache.Memory(cache.Options{})
	var reported []int64
	s := &cache.Sealed{Cache: raw, Key: []byte("0123456789abcdef-secret"), Reject: func(_ string, n int64) { reported = append(reported, n) }}
	if err := s.Put(ctx, "gold-result@1:a", []byte("match")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(ctx, "gold-result@1:a"); !ok || err != nil || string(v) != "match" {
		t.Fatalf("its own entry: %q %v %v", v, ok, err)
	}
	stored, _, _ := raw.Get(ctx, "gold-result@1:a")
	other := &cache.Sealed{Cache: raw, Key: []byte("another secret of 16+ bytes")}
	tampered := bytes.Clone(stored)
	tampered[len(tampered)-1] ^= 1
	for name, put := range map[string]struct {
		key   string
		value []byte
	}{
		"a plain value":           {"gold-result@1:b", []byte("match")},
		"an entry of another key": {"gold-result@1:c", stored},
		"a changed value":         {"gold-result@1:d", tampered},
		"a truncated one":         {"gold-result@1:e", stored[:10]},
	} {
		raw.Put(ctx, put.key, put.value)
		if v, ok, err := s.Get(ctx, put.key); ok || err != nil {
			t.Errorf("%s: %q %v %v, want a miss", name, v, ok, err)
		}
	}
	other.Put(ctx, "gold-result@1:f", []byte("match"))
	if _, ok, _ := s.Get(ctx, "gold-result@1:f"); ok {
		t.Errorf("an entry sealed with another key was accepted")
	}
	if s.Rejected() != 5 || len(reported) != 5 || reported[4] != 5 {
		t.Errorf("rejected %d, reported %v, want 5 counted", s.Rejected(), reported)
	}
}
