package execmatch

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qeval/qeval"
)

// goldCacheVersion is part of every gold-result key: bump it when the encoding or the
// meaning of a cached result changes, and every old entry becomes a miss.
const goldCacheVersion = "gold-result@1"

// goldCachePrefix starts the key of a gold result of every version.
const goldCachePrefix = "gold-result@"

// DefaultGoldCacheBytes bounds the gold results an Evaluator keeps in memory.
const DefaultGoldCacheBytes = 128 << 20

// GoldCacheStats counts the gold results found in the cache and those executed.
type GoldCacheStats struct {
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
	// SharedErrors counts reads and writes the shared backend failed (the run went on
	// without it).
	SharedErrors int64 `json:"shared_errors"`
}

// goldCache keeps gold results keyed by database content, engine, mode and query:
// a byte-bounded LRU in memory in front of an optional shared qeval.Cache.
type goldCache struct {
	shared qeval.Cache
	limit  int64
	onErr  func(error)
	epoch  string // Options.CacheEpoch

	mu    sync.Mutex
	used  int64
	order *list.List // front: most recently used
	items map[string]*list.Element

	versions sync.Map // path and identity → content hash

	hits, misses, sharedErrs atomic.Int64
}

type goldEntry struct {
	key  string
	rs   *qeval.ResultSet
	size int64
}

func newGoldCache(shared qeval.Cache, limit int64, epoch string, onErr func(error)) *goldCache {
	if limit <= 0 {
		limit = DefaultGoldCacheBytes
	}
	return &goldCache{shared: shared, limit: limit, epoch: epoch, onErr: onErr, order: list.New(), items: map[string]*list.Element{}}
}

// key names one gold result: the database's content (a local file's or folder's
// hash, a server's engine and target), the cache epoch, the mode and the query as the
// mode prepared it. ident is the local file's fileID as the caller read it before
// opening it (zero for a server).
func (c *goldCache) key(src *qeval.Source, file string, ident fileID, mode, gold string) (string, error) {
	version := "target:" + file
	if src.Local != nil {
		v, err := c.version(src.Local(file), ident)
		if err != nil {
			return "", err
		}
		version = v
	}
	h := sha256.New()
	for _, part := range []string{goldCacheVersion, src.Engine, version, c.epoch, mode, gold} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return goldCacheVersion + ":" + hex.EncodeToString(h.Sum(nil)), nil
}

// version is the content hash of a local database (so a copy on another machine
// shares entries, and a changed file misses), computed once for each identity of it.
// A file that changes while it is hashed has no version.
func (c *goldCache) version(path string, ident fileID) (string, error) {
	id := versionKey{path, ident}
	if v, ok := c.versions.Load(id); ok {
		return v.(string), nil
	}
	v, err := contentVersion(path)
	if err != nil {
		return "", err
	}
	if now, err := identity(path); err != nil || now != ident {
		return "", fmt.Errorf("%s changed while it was read", path)
	}
	c.versions.Store(id, v)
	return v, nil
}

// versionKey names one version of a local database.
type versionKey struct {
	path string
	id   fileID
}

func (c *goldCache) get(ctx context.Context, key string) (*qeval.ResultSet, bool) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		rs := el.Value.(*goldEntry).rs
		c.mu.Unlock()
		c.hits.Add(1)
		return rs, true
	}
	c.mu.Unlock()
	if c.shared != nil {
		b, ok, err := c.shared.Get(ctx, key)
		if err != nil {
			c.sharedFailed(err)
		} else if ok {
			var rs qeval.ResultSet
			if gob.NewDecoder(bytes.NewReader(b)).Decode(&rs) == nil {
				c.remember(key, &rs)
				c.hits.Add(1)
				return &rs, true
			}
		}
	}
	c.misses.Add(1)
	return nil, false
}

func (c *goldCache) put(ctx context.Context, key string, rs *qeval.ResultSet) {
	c.remember(key, rs)
	if c.shared == nil {
		return
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(rs); err != nil {
		return
	}
	// a shared write must not hold the verdict up for long
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := c.shared.Put(ctx, key, b.Bytes()); err != nil {
		c.sharedFailed(err)
	}
}

func (c *goldCache) sharedFailed(err error) {
	if c.sharedErrs.Add(1) == 1 && c.onErr != nil {
		c.onErr(err) // once: the caller warns, the run goes on with the local cache
	}
}

// remember keeps rs in memory, evicting the least recently used results over the limit.
// A result larger than the whole limit is not kept.
func (c *goldCache) remember(key string, rs *qeval.ResultSet) {
	size := resultBytes(rs) + int64(len(key)) + 64
	if size > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&goldEntry{key: key, rs: rs, size: size})
	c.used += size
	for c.used > c.limit {
		el := c.order.Back()
		e := el.Value.(*goldEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.used -= e.size
	}
}

func (c *goldCache) stats() GoldCacheStats {
	return GoldCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), SharedErrors: c.sharedErrs.Load()}
}

// resultBytes is what a result set holds in memory, counted as the executors count it.
func resultBytes(rs *qeval.ResultSet) int64 {
	n := int64(0)
	for _, c := range rs.Columns {
		n += int64(len(c.Name)+len(c.Type)) + 32
	}
	for _, r := range rs.Rows {
		n += qeval.RowOverhead + int64(len(r))*qeval.ValueOverhead
		for _, v := range r {
			n += int64(len(v.Str))
		}
	}
	return n
}

// forget drops every result kept in memory.
func (c *goldCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.items)
	c.used = 0
}

// ForgetGoldResults drops the gold results the evaluator keeps in memory: after a
// server database's data changed, with FlushGoldResults for the shared cache.
func (e *Evaluator) ForgetGoldResults() {
	if e.gold != nil {
		e.gold.forget()
	}
}

// FlushGoldResults deletes every gold result from a shared cache (of any epoch and
// version) and returns how many it held. It fails on a cache that cannot delete
// (internal/cache's stores, Redis and Fallback can).
func FlushGoldResults(ctx context.Context, c qeval.Cache) (int64, error) {
	d, ok := c.(interface {
		DeletePrefix(ctx context.Context, prefix string) (int64, error)
	})
	if !ok {
		return 0, &qeval.Error{Code: qeval.CodeUnsupported, Op: "flush the gold results", Message: "the shared cache cannot delete entries"}
	}
	return d.DeletePrefix(ctx, goldCachePrefix)
}
