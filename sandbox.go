package qeval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Sandbox is a disposable copy of one database, made for one side (gold or generated)
// of one stateful case: its statements may write to the copy's own tables and change
// their definitions; everything that reaches outside the copy (other databases, files,
// programs, extensions, roles, other sessions) is refused as a read-only Executor
// refuses it, and the deadlines, memory and result caps of Limits apply to every
// statement. The source is never opened for writing. Close removes the copy; a copy a
// killed process left behind is named by SandboxName, so `qeval db clean` finds it.
//
// A Sandbox runs one statement at a time; it is not safe for concurrent use.
type Sandbox interface {
	// Query runs exactly one statement in the copy and returns its rows (none for a
	// statement without a result). Errors are as Executor.Query's; a copy grown past
	// its size bound is CodeTooLarge.
	Query(ctx context.Context, stmt string) (*ResultSet, error)
	// Tables describes the copy's own tables (not views, not the engine's catalog), in
	// name order, as compare_schema compares them.
	Tables(ctx context.Context) ([]TableDefinition, error)
	// Rows returns every row of one of the copy's tables: in the engine's row order
	// (SQLite's rowid, else the primary key, else all columns) when ordered.
	Rows(ctx context.Context, table string, ordered bool) (*ResultSet, error)
	// Cost is the statement's cost on the copy as it is, without changing it: SQLite's
	// virtual-machine steps (the statement is run and rolled back), the planner's
	// estimate elsewhere. CostUnit names it.
	Cost(ctx context.Context, stmt string) (float64, error)
	CostUnit() string
	// Close removes the copy (a file, a database); it is safe to call twice.
	Close() error
}

// SandboxMaker makes a sandbox from one of a Source's Files with the given limits.
type SandboxMaker func(ctx context.Context, target string, limits Limits) (Sandbox, error)

// TableDefinition is a table as compare_schema compares it: its columns in order with
// the engine's types, its primary key, its unique constraints and indexes (by their
// columns, not their names) and its foreign keys.
type TableDefinition struct {
	Name        string        `json:"name"`
	Columns     []ColumnState `json:"columns"`
	PrimaryKey  []string      `json:"primary_key,omitempty"`
	Indexes     []string      `json:"indexes,omitempty"`      // "unique (a, b)", "(c)", sorted
	ForeignKeys []string      `json:"foreign_keys,omitempty"` // "(a) references t (b)", sorted
}

// ColumnState is one column of a TableDefinition.
type ColumnState struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"not_null,omitempty"`
}

// SandboxPrefix begins the name of every sandbox copy (a file, a database): qeval
// never makes anything else under it, and `qeval db clean` removes only what bears it.
const SandboxPrefix = "qeval_sbx_"

var sandboxSeq atomic.Int64

// SandboxName is a new name for a sandbox copy, unique on this machine and usable as
// a file name and an unquoted database name: qeval_sbx_<pid>_<n>_<random>.
func SandboxName() string {
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s%d_%d_%s", SandboxPrefix, os.Getpid(), sandboxSeq.Add(1), hex.EncodeToString(r[:]))
}

// SandboxOwner is the process id a sandbox name was made by (ok false when name is not
// a sandbox's): a copy whose process is gone is a leftover.
func SandboxOwner(name string) (pid int, ok bool) {
	rest, found := strings.CutPrefix(name, SandboxPrefix)
	if !found {
		return 0, false
	}
	p, _, _ := strings.Cut(rest, "_")
	n, err := strconv.Atoi(p)
	return n, err == nil && n > 0
}

// live are the sandboxes open in this process (Track), so that a process told to stop
// at once can remove them before it exits (CloseSandboxes).
var live sync.Map // *tracked → struct{}

type tracked struct {
	Sandbox
	once sync.Once
	err  error
}

// Close removes the copy once and forgets it.
func (t *tracked) Close() error {
	t.once.Do(func() {
		live.Delete(t)
		t.err = t.Sandbox.Close()
	})
	return t.err
}

// Track returns s, remembered until it is closed: CloseSandboxes closes it if the
// process must exit first.
func Track(s Sandbox) Sandbox {
	t := &tracked{Sandbox: s}
	live.Store(t, struct{}{})
	return t
}

// CloseSandboxes closes every sandbox still open in this process, waiting at most wait
// for them, and returns how many it closed: what a process does before it exits at once
// (a second SIGTERM). A copy it could not remove in time is left for `qeval db clean`.
func CloseSandboxes(wait time.Duration) int {
	var wg sync.WaitGroup
	n := 0
	live.Range(func(k, _ any) bool {
		n++
		wg.Add(1)
		go func() { defer wg.Done(); k.(*tracked).Close() }()
		return true
	})
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
	}
	return n
}

// Fingerprinter is a Sandbox that can digest a table's rows without fetching them: two
// tables with equal digests hold the same rows (as a bag, or in order when ordered), so
// a comparison fetches the rows only of tables whose digests differ.
type Fingerprinter interface {
	Fingerprint(ctx context.Context, table string, columns []string, ordered bool) (digest string, rows int, err error)
}

type sandboxReuseKey struct{}

// WithSandboxReuse returns ctx telling a SandboxMaker that its caller can take a reused
// copy (a ReusedSandbox) where the engine keeps them: a pristine copy from a pool, reset
// to the source's state when it is closed and goes back. A caller that asks must check
// Lost after a side and run the side again in a fresh copy (without this context) when
// it is true. Without it, a maker makes a fresh copy.
func WithSandboxReuse(ctx context.Context) context.Context {
	return context.WithValue(ctx, sandboxReuseKey{}, true)
}

// SandboxReuse reports whether ctx allows a reused copy (WithSandboxReuse).
func SandboxReuse(ctx context.Context) bool {
	ok, _ := ctx.Value(sandboxReuseKey{}).(bool)
	return ok
}

// ReusedSandbox is a Sandbox taken from a pool of pristine copies of its source, which
// its statements see as a fresh copy but for what the engine cannot reset.
type ReusedSandbox interface {
	Sandbox
	// Lost reports that what ran may differ from what a fresh copy would have done: a
	// statement was refused because it would read what the engine cannot reset (for
	// SQLite, changes() and total_changes(), which count on the connection across
	// copies), and the statements after it were refused too. The caller then runs the
	// side again in a fresh copy; the copy itself is not reused.
	Lost() bool
}

// StoredDigester is a Sandbox that can digest a table's rows as it stores them, more
// cheaply than Fingerprint: equal digests hold the same rows (the same row ids, in the
// same order); digests that differ say nothing, and Fingerprint decides. ok is false
// when the digest cannot be taken.
type StoredDigester interface {
	StoredDigest(ctx context.Context, table string) (digest string, rows int, ok bool)
}
