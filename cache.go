package qeval

import "context"

// Cache is a content-addressed store of bytes with an expiry, shared by the LLM judge
// (its verdicts) and execution match (gold results). The local SQLite file is the
// default backend; Redis lets CI shards and server replicas share one.
// Keys are opaque (a SHA-256 of everything that decides the value, the semantics'
// version included). A Get or Put error means the backend failed; callers go on
// without the cache.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Put(ctx context.Context, key string, value []byte) error
}
