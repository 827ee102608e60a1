package qeval

import (
	"context"
	"time"
)

// Executor runs read-only queries on one database.
//
// Query executes exactly one statement and returns all its rows. A query that the
// engine rejects or that fails while running is returned as an *Error with CodeQuery
// (or CodeForbidden for writes and sandbox escapes); it is data about the query, not a
// fault of the harness. When ctx ends the running statement is interrupted and Query
// returns an *Error with CodeTimeout (deadline) or CodeCanceled (cancel) promptly.
// Going past a row, byte or memory cap returns CodeTooLarge.
//
// Implementations are safe for concurrent use. Close releases the database; queries
// running at that time fail.
type Executor interface {
	Query(ctx context.Context, query string) (*ResultSet, error)
	Close() error
}

// Limits caps what one query may cost. Zero fields mean the executor's defaults.
type Limits struct {
	Timeout  time.Duration // per query; DefaultTimeout when 0
	MaxRows  int           // rows fetched; DefaultMaxRows when 0
	MaxBytes int64         // bytes of fetched values and engine memory; DefaultMaxBytes when 0
}

// Default limits: generous enough for any benchmark query, small enough that a hostile
// query cannot take the machine down.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxRows  = 1_000_000
	DefaultMaxBytes = 256 << 20 // per result: what one query may fetch or make its engine hold
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Opener opens an Executor on a database named by path (a file) with the given limits.
type Opener func(path string, limits Limits) (Executor, error)
