package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The entries of a shared Redis are authenticated with QEVAL_CACHE_KEY. Keys are computable
// and values were plain gob: an entry copied under other keys made a second run serve
// it as their gold results, and judge wrong predictions matches. With the key, such
// entries are ignored (the gold runs), counted and warned about; without one, the
// run says once that the shared cache is not authenticated.
func TestSpider_SharedCacheEntriesAuthenticated(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second); err != nil {
		t.Skipf("no Redis at 127.0.0.1:6379 (%v): start redis-server to run this test", err)
	} else {
		c.Close()
	}
	const url = "redis://127.0.0.1:6379/11" // a database of this test's own
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the local cache file behind Redis starts empty
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", DB: 11})
	defer rc.Close()
	keys := func() []string {
		t.Helper()
		ks, err := rc.Keys(ctx, "qeval:gold-result@*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	if ks := keys(); len(ks) > 0 {
		rc.Del(ctx, ks...)
	}
	dir := t.TempDir()
	base := []string{"spider", "--gold", exampleDir + "/gold.sql", "--pred", exampleDir + "/pred.txt", "--db", exampleDir + "/database"}
	// runKeyed runs qeval with QEVAL_CACHE_KEY set to key ("" for none)
	runKeyed := func(key string, args ...string) (int, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(ctx, args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			getenv: func(k string) string { return map[string]string{"QEVAL_CACHE_KEY": key}[k] }})
		return code, errb.String()
	}
	spider := func(name, key string) (items, stderr string) {
		t.Helper()
		path := filepath.Join(dir, name+".jsonl")
		code, stderr := runKeyed(key, append(base, "--items", path, "--cache", url)...)
		if code != exitOK {
			t.Fatalf("%s: code %d: %s", name, code, stderr)
		}
		b, _ := os.ReadFile(path)
		return withoutTimings(t, b, "pred_ms", "gold_ms"), stderr
	}
	plain := filepath.Join(dir, "plain.jsonl")
	if code, _, stderr := runCLI(t, "", append(base, "--items", plain)...); code != exitOK {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(plain)
	want := withoutTimings(t, b, "pred_ms", "gold_ms")
	const key = "a-test-secret-of-32-characters!!"
	if got, stderr := spider("first", key); got != want || strings.Contains(stderr, "not authenticated") {
		t.Fatalf("the first run on the cache: verdicts differ=%v: %s", got != want, stderr)
	}
	ks := keys()
	if len(ks) < 2 {
		t.Fatalf("%d gold results in Redis after the first run", len(ks))
	}
	// whoever can write to the Redis copies one entry under every other key
	forged, err := rc.Get(ctx, ks[0]).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks[1:] {
		rc.Set(ctx, k, forged, time.Hour)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // another machine: nothing in its local cache file
	got, stderr := spider("forged", key)
	if got != want {
		t.Errorf("with forged entries in the cache the verdicts changed")
	}
	var fromCache, executed int
	_, err = fmt.Sscanf(stderr[max(0, strings.Index(stderr, "gold results:")):], "gold results: %d from the cache, %d executed", &fromCache, &executed)
	if err != nil ||
		executed < len(ks)-1 || !strings.Contains(stderr, "failed authentication") {
		t.Errorf("%d forged entries were not all ignored (%v), or not reported: %s", len(ks)-1, err, stderr)
	}
	_, stderr = spider("no-key", "")
	if n := strings.Count(stderr, "not authenticated"); n != 1 {
		t.Errorf("a run without --cache-key said %d times that the cache is not authenticated, want once: %s", n, stderr)
	}
	if code, stderr := runKeyed("short", append(base, "--cache", url)...); code == exitOK || !strings.Contains(stderr, "too short") {
		t.Errorf("a short key: code %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--judge", "none", "--gold-cache", "--cache", url, "--cache-key", "short"); code != exitUsage || !strings.Contains(stderr, "too short") {
		t.Errorf("qeval run --cache-key short: code %d: %s", code, stderr)
	}
}
