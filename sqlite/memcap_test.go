package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// The memory cap of generated queries binds their connections only: qeval's own SQLite
// connections (the server's run store) may go past it (issue 39: PRAGMA hard_heap_limit
// is process-wide, and a 50,000-case report could not be stored, "out of memory").
func TestMemoryCap_OwnConnectionsOnly(t *testing.T) {
	// the default cap, 256 MiB; a deadline long enough that only the cap can stop the
	// query, even on a loaded machine
	e, err := sqlite.Open(buildDB(t, t.TempDir(), "CREATE TABLE t (a INTEGER)"), qeval.Limits{Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Query(context.Background(), "SELECT count(*) FROM t"); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.OpenStore(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// 300 MB in one value, more than the cap: refused to a generated query, fine here
	var n int64
	if err := store.QueryRow("SELECT length(printf('%.*c', 300000000, 'x'))").Scan(&n); err != nil || n != 300000000 {
		t.Fatalf("a 300 MB value on the store's connection: %d, %v", n, err)
	}

	// a generated query that holds more than the cap is stopped, as too large: fifteen
	// 20 MB aggregates (each under the size cap of one value)
	var cols []string
	for i := range 15 {
		cols = append(cols, "group_concat(h || '"+strings.Repeat("x", i)+"')")
	}
	q := "WITH RECURSIVE c(x, h) AS (SELECT 1, hex(randomblob(1000)) UNION ALL SELECT x + 1, hex(randomblob(1000)) FROM c WHERE x < 10000) SELECT " +
		strings.Join(cols, ", ") + " FROM c"
	_, err = e.Query(context.Background(), q)
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("300 MB of aggregates in a generated query: %v (code %s), want too large: out of memory", err, qeval.ErrorCode(err))
	}
	if _, err := e.Query(context.Background(), "SELECT count(*) FROM t"); err != nil {
		t.Errorf("the executor after the cap: %v", err)
	}
}
