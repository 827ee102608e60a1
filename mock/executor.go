// Package mock holds hand-written mocks of the root interfaces of qeval, for tests
// that check how a package calls them. Each mock has one Func field per method; a test
// sets the ones it expects to be called.
//
// Import this package only from _test.go files.
package mock

import (
	"context"
	"sync"

	"github.com/qeval/qeval"
)

var _ qeval.Executor = (*Executor)(nil)

// Executor is a qeval.Executor whose methods call QueryFunc and CloseFunc and record
// the calls. It is safe for concurrent use when the Func fields are.
type Executor struct {
	// QueryFunc answers Query. When nil, Query returns an *qeval.Error with
	// CodeInternal saying so.
	QueryFunc func(ctx context.Context, query string) (*qeval.ResultSet, error)
	// CloseFunc answers Close. When nil, Close returns nil.
	CloseFunc func() error

	mu      sync.Mutex
	queries []string
	closes  int
}

// Query records query and calls QueryFunc.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	e.mu.Lock()
	e.queries = append(e.queries, query)
	e.mu.Unlock()
	if e.QueryFunc == nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Message: "mock: Executor.QueryFunc is not set"}
	}
	return e.QueryFunc(ctx, query)
}

// Close records the call and calls CloseFunc.
func (e *Executor) Close() error {
	e.mu.Lock()
	e.closes++
	e.mu.Unlock()
	if e.CloseFunc == nil {
		return nil
	}
	return e.CloseFunc()
}

// Queries returns the queries passed to Query so far, in call order.
func (e *Executor) Queries() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.queries...)
}

// Closes returns how many times Close was called.
func (e *Executor) Closes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closes
}
