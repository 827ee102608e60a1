package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// FuzzQuery throws arbitrary text at the executor: it never panics, always answers
// within its deadline (plus slack), gives a typed error when it refuses, and the
// database file never changes.
func FuzzQuery(f *testing.F) {
	for _, c := range hostileCases("/tmp/qeval-fuzz-outside") {
		f.Add(c.sql)
	}
	f.Add("SELECT * FROM t WHERE b LIKE '%1%' ORDER BY c DESC LIMIT 3")
	f.Add("SELECT 1; -- x")
	dir := f.TempDir()
	path := buildDB(f, dir, hostileSetup...)
	before := fileHash(f, path)
	limits := qeval.Limits{Timeout: 200 * time.Millisecond, MaxRows: 5_000, MaxBytes: 8 << 20}
	e, err := sqlite.Open(path, limits)
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	f.Fuzz(func(t *testing.T, q string) {
		start := time.Now()
		_, err := e.Query(context.Background(), q)
		if took := time.Since(start); took > limits.Timeout+2*time.Second {
			t.Fatalf("Query(%q) took %v", q, took)
		}
		if err != nil && qeval.ErrorCode(err) == qeval.CodeInternal {
			t.Fatalf("Query(%q): untyped error %v", q, err)
		}
		if fileHash(t, path) != before {
			t.Fatalf("Query(%q) changed the database file", q)
		}
	})
}
