package cache

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"sync/atomic"

	"github.com/qeval/qeval"
)

// Sealed authenticates the values of a shared cache with a secret: each is stored with
// an HMAC-SHA256 tag over its key and itself, and one whose tag is missing or wrong (an
// entry written by whoever else can write to the Redis, or copied from another key) is
// a miss, counted and reported. Keys are computable by anyone (SHA-256 of public
// parts); without a tag, whoever can write to the Redis chooses every replica's
// verdicts and gold results.
type Sealed struct {
	Cache qeval.Cache
	Key   []byte
	// Reject is told of each rejected entry, with how many there were so far.
	Reject func(key string, n int64)

	rejected atomic.Int64
}

var _ qeval.Cache = (*Sealed)(nil)

// sealMagic starts a sealed value; the tag follows.
const sealMagic = "qv1:"

// MinKeyBytes is the shortest secret Sealed is used with.
const MinKeyBytes = 16

// ErrShortKey is the error of a cache key shorter than MinKeyBytes.
var ErrShortKey = errors.New("the cache key is too short: give at least 16 random characters")

func (s *Sealed) tag(key string, value []byte) []byte {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte("qeval-cache-entry\x00"))
	m.Write(binary.AppendUvarint(nil, uint64(len(key))))
	m.Write([]byte(key))
	m.Write(value)
	return m.Sum(nil)
}

// Get returns the value under key when its tag is right; a wrong or missing tag is a
// miss.
func (s *Sealed) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, ok, err := s.Cache.Get(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	const head = len(sealMagic) + sha256.Size
	if len(b) < head || string(b[:len(sealMagic)]) != sealMagic ||
		!hmac.Equal(b[len(sealMagic):head], s.tag(key, b[head:])) {
		n := s.rejected.Add(1)
		if s.Reject != nil {
			s.Reject(key, n)
		}
		return nil, false, nil
	}
	return b[head:], true, nil
}

// Put stores value under key with its tag.
func (s *Sealed) Put(ctx context.Context, key string, value []byte) error {
	b := make([]byte, 0, len(sealMagic)+sha256.Size+len(value))
	b = append(append(append(b, sealMagic...), s.tag(key, value)...), value...)
	return s.Cache.Put(ctx, key, b)
}

// DeletePrefix deletes from the cache underneath, when it can.
func (s *Sealed) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	d, ok := s.Cache.(Deleter)
	if !ok {
		return 0, nil
	}
	return d.DeletePrefix(ctx, prefix)
}

// Rejected counts the entries whose tag was missing or wrong.
func (s *Sealed) Rejected() int64 { return s.rejected.Load() }
