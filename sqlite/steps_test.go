package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

func TestVMSteps_Deterministic(t *testing.T) {
	e := mustOpen(t, hostileSetup...)
	ctx := context.Background()
	count := func(q string) int64 {
		t.Helper()
		n, err := e.VMSteps(ctx, q)
		if err != nil {
			t.Fatalf("VMSteps(%q): %v", q, err)
		}
		return n
	}
	small := count("SELECT a FROM t WHERE a = 5")
	full := count("SELECT b FROM t ORDER BY c DESC")
	if small <= 0 || full <= small {
		t.Errorf("VMSteps: indexed lookup %d, full sort %d; want 0 < lookup < sort", small, full)
	}
	for i := 0; i < 5; i++ {
		if got := count("SELECT b FROM t ORDER BY c DESC;"); got != full {
			t.Fatalf("run %d: VMSteps = %d, first run %d: want the same count on every run", i, got, full)
		}
	}
	// A second executor on the same file (new connections) counts the same.
	e2, err := sqlite.Open(e.Path(), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if got, err := e2.VMSteps(ctx, "SELECT b FROM t ORDER BY c DESC"); err != nil || got != full {
		t.Errorf("other executor: VMSteps = %d, %v; want %d", got, err, full)
	}
}

func TestVMSteps_Errors(t *testing.T) {
	e := mustOpen(t, hostileSetup...)
	ctx := context.Background()
	for _, c := range []struct {
		sql  string
		code qeval.Code
		msg  string
	}{
		{"SELECT nope FROM t", qeval.CodeQuery, "no such column"},
		{"", qeval.CodeQuery, "empty query"},
		{"SELECT 1; SELECT 2", qeval.CodeQuery, "multiple statements"},
		{"DELETE FROM t", qeval.CodeForbidden, ""},
		{"SELECT abs(-9223372036854775807 - 1)", qeval.CodeQuery, "integer overflow"},
	} {
		_, err := e.VMSteps(ctx, c.sql)
		if qeval.ErrorCode(err) != c.code || !strings.Contains(qeval.ErrorMessage(err), c.msg) {
			t.Errorf("VMSteps(%q) = %v (code %s), want code %s with %q", c.sql, err, qeval.ErrorCode(err), c.code, c.msg)
		}
	}
}

// TestVMSteps_NotCallableByQueries: the counting function runs nested SQL; a
// generated query may not call it, directly or through VMSteps.
func TestVMSteps_NotCallableByQueries(t *testing.T) {
	e := mustOpen(t, hostileSetup...)
	ctx := context.Background()
	for _, q := range []string{"SELECT qeval_vm_steps('SELECT 1')", "SELECT QEVAL_VM_STEPS('SELECT 1')"} {
		if _, err := e.Query(ctx, q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v, want forbidden", q, err)
		}
		if _, err := e.VMSteps(ctx, q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("VMSteps(%q) = %v, want forbidden", q, err)
		}
	}
	// and the executor still counts afterwards
	if n, err := e.VMSteps(ctx, "SELECT 1"); err != nil || n <= 0 {
		t.Errorf("VMSteps(SELECT 1) = %d, %v", n, err)
	}
}

// TestVMSteps_Hostile runs the hostile corpus through VMSteps: the sandbox is the
// same as Query's (the same refusals), runaway queries stop at the deadline, and the
// file never changes. Row and byte caps do not apply, since no row is kept.
func TestVMSteps_Hostile(t *testing.T) {
	dir := t.TempDir()
	path := buildDB(t, dir, hostileSetup...)
	before := fileHash(t, path)
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := sqlite.Open(path, qeval.Limits{Timeout: 400 * time.Millisecond, MaxBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range hostileCases(outside) {
		_, err := e.VMSteps(context.Background(), c.sql)
		switch c.code {
		case qeval.CodeTooLarge, qeval.CodeTimeout:
			// a runaway may finish counting, run into the deadline or the memory cap
		default:
			// VACUUM is refused by SQLite itself inside the counting statement, before
			// the authorizer is asked; it is refused all the same.
			if err != nil && strings.Contains(err.Error(), "SQL statements in progress") {
				continue
			}
			if got := qeval.ErrorCode(err); got != c.code {
				t.Errorf("VMSteps(%q): code %s (%v), want %s", c.sql, got, err, c.code)
			}
		}
	}
	if fileHash(t, path) != before {
		t.Fatal("the database file changed")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside the database: %v", entries)
	}
}
