// Package cache is a content-addressed store of small values with an expiry: a map in
// memory in front of a SQLite file on disk. The judge keeps its verdicts here so that a
// second identical run asks the provider nothing.
//
// Keys are opaque strings (the judge uses a SHA-256 of everything that decides the
// answer); values are bytes. An entry older than the TTL is never returned.
package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval/sqlite"
)

// DefaultTTL is how long an entry stays valid.
const DefaultTTL = 24 * time.Hour

// FileName is the name of the SQLite file inside the cache directory.
const FileName = "judge-cache.sqlite"

// Options configures a Store. Zero fields take their defaults.
type Options struct {
	TTL time.Duration    // DefaultTTL when 0
	Now func() time.Time // time.Now when nil
	// NoMemory keeps nothing in memory, so every Get reads the file (benchmarks of
	// the disk path use it).
	NoMemory bool
}

// Store is a cache in memory, optionally backed by a SQLite file. It is safe for
// concurrent use, also by several processes sharing the file.
type Store struct {
	ttl      time.Duration
	now      func() time.Time
	noMemory bool
	path     string
	db       *sql.DB // nil for a memory-only store

	mu  sync.RWMutex
	mem map[string]entry
}

type entry struct {
	value   []byte
	created time.Time
}

// Memory returns a store that lives only as long as the process.
func Memory(opt Options) *Store {
	s := &Store{ttl: opt.TTL, now: opt.Now, noMemory: opt.NoMemory, mem: map[string]entry{}}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// DefaultDir returns the cache directory qeval uses when none is given:
// os.UserCacheDir()/qeval.
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find user cache directory: %w", err)
	}
	return filepath.Join(d, "qeval"), nil
}

// Open opens (creating if needed) the store in dir/FileName and removes the entries
// that have expired.
func Open(ctx context.Context, dir string, opt Options) (*Store, error) {
	s := Memory(opt)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	s.path = filepath.Join(dir, FileName)
	db, err := sqlite.OpenStore(s.path)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", s.path, err)
	}
	const schema = `CREATE TABLE IF NOT EXISTS entries (
		key     TEXT PRIMARY KEY,
		value   BLOB NOT NULL,
		created INTEGER NOT NULL -- Unix nanoseconds
	)`
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: %w", s.path, err)
	}
	cutoff := s.now().Add(-s.ttl).UnixNano()
	if _, err := db.ExecContext(ctx, `DELETE FROM entries WHERE created <= ?`, cutoff); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: expire entries: %w", s.path, err)
	}
	s.db = db
	return s, nil
}

// Path returns the file of the store, "" for a memory-only store.
func (s *Store) Path() string { return s.path }

// Get returns the value stored under key and whether there was one that has not
// expired. An error means the file could not be read; the caller may go on without.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	now := s.now()
	if !s.noMemory {
		s.mu.RLock()
		e, ok := s.mem[key]
		s.mu.RUnlock()
		if ok && now.Sub(e.created) < s.ttl {
			return e.value, true, nil
		}
	}
	if s.db == nil {
		return nil, false, nil
	}
	var value []byte
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT value, created FROM entries WHERE key = ?`, key).Scan(&value, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read cache %s: %w", s.path, err)
	}
	e := entry{value: value, created: time.Unix(0, created)}
	if now.Sub(e.created) >= s.ttl {
		return nil, false, nil
	}
	s.remember(key, e)
	return e.value, true, nil
}

// Put stores value under key, replacing what was there. An error means the file could
// not be written; the value is still kept in memory.
func (s *Store) Put(ctx context.Context, key string, value []byte) error {
	e := entry{value: append([]byte(nil), value...), created: s.now()}
	s.remember(key, e)
	if s.db == nil {
		return nil
	}
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO entries (key, value, created) VALUES (?, ?, ?)`,
		key, e.value, e.created.UnixNano())
	if err != nil {
		return fmt.Errorf("write cache %s: %w", s.path, err)
	}
	return nil
}

// DeletePrefix deletes every entry whose key starts with prefix, in memory and in the
// file, and returns how many the file held (the memory, for a store without a file).
func (s *Store) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	var n int64
	s.mu.Lock()
	for k := range s.mem {
		if strings.HasPrefix(k, prefix) {
			delete(s.mem, k)
			n++
		}
	}
	s.mu.Unlock()
	if s.db == nil {
		return n, nil
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM entries WHERE substr(key, 1, ?) = ?`, len(prefix), prefix)
	if err != nil {
		return 0, fmt.Errorf("delete from cache %s: %w", s.path, err)
	}
	n, _ = res.RowsAffected()
	return n, nil
}

func (s *Store) remember(key string, e entry) {
	if s.noMemory {
		return
	}
	s.mu.Lock()
	s.mem[key] = e
	s.mu.Unlock()
}

// Close closes the file. The store must not be used afterwards.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// Deleter is a cache that can delete its entries by key prefix (Store, Redis,
// Fallback): a flush of the gold results deletes those of every version.
type Deleter interface {
	DeletePrefix(ctx context.Context, prefix string) (int64, error)
}

var (
	_ Deleter = (*Store)(nil)
	_ Deleter = (*Redis)(nil)
	_ Deleter = (*Fallback)(nil)
	_ Deleter = (*Sealed)(nil)
)
