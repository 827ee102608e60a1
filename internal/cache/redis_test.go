package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/cache"
)

const redisURL = "redis://127.0.0.1:6379/0"

// mustRedis connects to the machine's Redis, or skips saying none is reachable.
func mustRedis(t *testing.T) *cache.Redis {
	t.Helper()
	if c, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second); err != nil {
		t.Skipf("no Redis reachable at 127.0.0.1:6379 (%v): start redis-server to run this test", err)
	} else {
		c.Close()
	}
	r, err := cache.OpenRedis(context.Background(), redisURL, cache.Options{TTL: time.Minute})
	if err != nil {
		t.Fatalf("OpenRedis: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRedis_GetPutAcrossClients(t *testing.T) {
	ctx := context.Background()
	a, b := mustRedis(t), mustRedis(t)
	key := fmt.Sprintf("test:%s:%d", t.Name(), time.Now().UnixNano())
	if _, ok, err := a.Get(ctx, key); ok || err != nil {
		t.Fatalf("fresh key: ok=%v err=%v", ok, err)
	}
	value := []byte("verdict\x00with a zero byte")
	if err := a.Put(ctx, key, value); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Get(ctx, key)
	if err != nil || !ok || !bytes.Equal(got, value) {
		t.Fatalf("second client: %q ok=%v err=%v", got, ok, err)
	}
}

func TestRedis_UnreachableAndBadURL(t *testing.T) {
	ctx := context.Background()
	// a port nothing listens on
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = cache.OpenRedis(ctx, "redis://"+addr+"/0", cache.Options{})
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("unreachable Redis: %v", err)
	}
	if _, err := cache.OpenRedis(ctx, "http://127.0.0.1:6379", cache.Options{}); err == nil || !strings.Contains(err.Error(), "bad Redis URL") {
		t.Fatalf("bad URL: %v", err)
	}
	// the URL parser's message quoted the URL, password and all
	if _, err := cache.OpenRedis(ctx, "redis://qeval:s3cret@127.0.0.1:port/0", cache.Options{}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("bad URL with a password: %v", err)
	}
}

// flaky is a shared cache that can be switched off.
type flaky struct {
	mu   sync.Mutex
	down bool
	m    map[string][]byte
}

func (f *flaky) Get(_ context.Context, k string) ([]byte, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, false, errors.New("connection refused")
	}
	v, ok := f.m[k]
	return v, ok, nil
}

func (f *flaky) Put(_ context.Context, k string, v []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errors.New("connection refused")
	}
	f.m[k] = v
	return nil
}

func TestFallback_SharedGoesAwayMidRun(t *testing.T) {
	ctx := context.Background()
	shared := &flaky{m: map[string][]byte{}}
	now := time.Unix(1000, 0)
	var warnings []error
	f := &cache.Fallback{Shared: shared, Local: cache.Memory(cache.Options{}), Retry: time.Minute,
		Now: func() time.Time { return now }, Warn: func(err error) { warnings = append(warnings, err) }}

	if err := f.Put(ctx, "a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if shared.m["a"] == nil {
		t.Fatal("the shared cache did not get the entry")
	}
	shared.mu.Lock()
	shared.down = true
	shared.mu.Unlock()
	for i := 0; i < 5; i++ {
		if err := f.Put(ctx, fmt.Sprint("b", i), []byte("2")); err != nil {
			t.Fatalf("a Put failed with the shared cache away: %v", err)
		}
		if v, ok, err := f.Get(ctx, "a"); err != nil || !ok || string(v) != "1" {
			t.Fatalf("local copy while away: %q %v %v", v, ok, err)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want one", len(warnings))
	}
	if f.Failures() != 1 {
		t.Fatalf("the shared cache was tried %d times while down, want once (then a pause)", f.Failures())
	}
	// it comes back: after the pause it is used again
	shared.mu.Lock()
	shared.down = false
	shared.mu.Unlock()
	now = now.Add(2 * time.Minute)
	if err := f.Put(ctx, "c", []byte("3")); err != nil || shared.m["c"] == nil {
		t.Fatalf("after recovery the shared cache was not written: %v", err)
	}
}

// DeletePrefix deletes the keys of a prefix only; * and ? in it are plain characters.
func TestRedis_DeletePrefix(t *testing.T) {
	ctx := context.Background()
	r := mustRedis(t)
	base := fmt.Sprintf("test:%s:%d:", t.Name(), time.Now().UnixNano())
	for _, k := range []string{"gold*?:a", "gold*?:b", "gold-other", "gold"} {
		if err := r.Put(ctx, base+k, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := r.DeletePrefix(ctx, base+"gold*?")
	if err != nil || n != 2 {
		t.Fatalf("DeletePrefix: %d %v, want 2 deleted", n, err)
	}
	for k, want := range map[string]bool{"gold*?:a": false, "gold*?:b": false, "gold-other": true, "gold": true} {
		if _, ok, err := r.Get(ctx, base+k); ok != want || err != nil {
			t.Errorf("Get(%q) after the delete: found=%v %v, want found=%v", k, ok, err, want)
		}
	}
	r.DeletePrefix(ctx, base)
}
