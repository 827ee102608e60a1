package cache

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/qeval/qeval"
)

// quiet drops the client library's own log lines: qeval reports a failing cache
// once, in its own words (see Fallback).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// Redis is a cache on a Redis server, so that CI shards and server replicas share
// the judge's verdicts and the gold results. Every key is stored under the prefix
// "qeval:" and expires after the TTL. It is safe for concurrent use.
type Redis struct {
	c      *redis.Client
	ttl    time.Duration
	target string // the URL without its password, for messages
}

var _ qeval.Cache = (*Redis)(nil)

// OpenRedis connects to the server of a redis:// or rediss:// URL
// (redis://[user:password@]host:port/db) and checks that it answers. Timeouts are
// short and there are no retries: a cache that is slow or gone must not hold a run up.
func OpenRedis(ctx context.Context, url string, opt Options) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which holds the password
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open cache", Message: fmt.Sprintf("bad Redis URL: %v", err),
			Hint: "write redis://[USER:PASSWORD@]HOST:PORT/DB, or rediss://… for TLS, e.g. redis://127.0.0.1:6379/0"}
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = time.Second, time.Second, time.Second
	o.MaxRetries = -1 // none
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	r := &Redis{c: redis.NewClient(o), ttl: opt.TTL, target: o.Addr}
	if r.ttl <= 0 {
		r.ttl = DefaultTTL
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := r.c.Ping(pctx).Err(); err != nil {
		r.c.Close()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: "open cache redis://" + o.Addr, Message: err.Error(), Err: err,
			Hint: "start Redis, or leave --cache out to use the local cache file"}
	}
	return r, nil
}

// Target is the server's address.
func (r *Redis) Target() string { return "redis://" + r.target }

const redisPrefix = "qeval:"

// Get returns the value under key, if any.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := r.c.Get(ctx, redisPrefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read cache redis://%s: %w", r.target, err)
	}
	return b, true, nil
}

// Put stores value under key for the TTL.
func (r *Redis) Put(ctx context.Context, key string, value []byte) error {
	if err := r.c.Set(ctx, redisPrefix+key, value, r.ttl).Err(); err != nil {
		return fmt.Errorf("write cache redis://%s: %w", r.target, err)
	}
	return nil
}

// DeletePrefix deletes every entry whose key starts with prefix (SCAN, then UNLINK in
// batches) and returns how many it deleted.
func (r *Redis) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	var n int64
	iter := r.c.Scan(ctx, 0, redisPrefix+globEscape(prefix)+"*", 1000).Iterator()
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		d, err := r.c.Unlink(ctx, batch...).Result()
		n += d
		batch = batch[:0]
		return err
	}
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 1000 {
			if err := flush(); err != nil {
				return n, fmt.Errorf("delete from cache redis://%s: %w", r.target, err)
			}
		}
	}
	if err := iter.Err(); err != nil {
		return n, fmt.Errorf("delete from cache redis://%s: %w", r.target, err)
	}
	if err := flush(); err != nil {
		return n, fmt.Errorf("delete from cache redis://%s: %w", r.target, err)
	}
	return n, nil
}

// globEscape quotes the characters a Redis MATCH pattern gives a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\^`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Close closes the connections.
func (r *Redis) Close() error { return r.c.Close() }

// Fallback is a shared cache with a local one behind it: entries are read from and
// written to the shared one while it answers. When it fails, Fallback warns once,
// uses the local cache alone, and tries the shared one again after a pause; a run
// never fails because of the cache.
type Fallback struct {
	Shared qeval.Cache
	Local  qeval.Cache
	// Warn is told of the first failure (and of the first after each recovery).
	Warn func(error)
	// Retry is the pause before the shared cache is tried again (10 s when 0).
	Retry time.Duration
	Now   func() time.Time

	mu       sync.Mutex
	downTill time.Time
	warned   atomic.Bool
	failures atomic.Int64
}

var _ qeval.Cache = (*Fallback)(nil)

func (f *Fallback) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Fallback) up() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.now().Before(f.downTill)
}

func (f *Fallback) failed(err error) {
	f.failures.Add(1)
	retry := f.Retry
	if retry <= 0 {
		retry = 10 * time.Second
	}
	f.mu.Lock()
	f.downTill = f.now().Add(retry)
	f.mu.Unlock()
	if !f.warned.Swap(true) && f.Warn != nil {
		f.Warn(err)
	}
}

// Failures counts the shared cache's failures.
func (f *Fallback) Failures() int64 { return f.failures.Load() }

// Rejected counts the shared cache's entries that failed authentication (see Sealed).
func (f *Fallback) Rejected() int64 {
	if r, ok := f.Shared.(interface{ Rejected() int64 }); ok {
		return r.Rejected()
	}
	return 0
}

// Get reads the shared cache while it answers, else the local one.
func (f *Fallback) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if f.up() {
		b, ok, err := f.Shared.Get(ctx, key)
		if err == nil {
			f.warned.Store(false)
			if ok || f.Local == nil {
				return b, ok, nil
			}
		} else {
			f.failed(err)
		}
	}
	if f.Local == nil {
		return nil, false, nil
	}
	return f.Local.Get(ctx, key)
}

// DeletePrefix deletes the entries whose key starts with prefix from both caches (those
// that can delete: see Deleter) and returns how many the shared one held.
func (f *Fallback) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	var n int64
	var first error
	if d, ok := f.Shared.(Deleter); ok {
		n, first = d.DeletePrefix(ctx, prefix)
	}
	if d, ok := f.Local.(Deleter); ok {
		if _, err := d.DeletePrefix(ctx, prefix); err != nil && first == nil {
			first = err
		}
	}
	return n, first
}

// Put writes the shared cache while it answers, and the local one always (so that
// what was learnt while the shared one was away is not lost to this machine).
func (f *Fallback) Put(ctx context.Context, key string, value []byte) error {
	if f.up() {
		if err := f.Shared.Put(ctx, key, value); err != nil {
			f.failed(err)
		}
	}
	if f.Local == nil {
		return nil
	}
	return f.Local.Put(ctx, key, value)
}
