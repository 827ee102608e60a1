package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
)

// A sandbox copy is the source copied with SQLite's backup API into a new file of its
// own (the source opened read-only and immutable, as for queries), then opened
// writable on one connection. The authorizer lets its statements write to the copy's
// tables and change their definitions; ATTACH, DETACH, VACUUM (INTO a file), virtual
// tables, the file and extension functions and every PRAGMA but a few harmless ones
// stay refused. max_page_count bounds the copy's size: a statement that grows it past
// the bound fails with SQLITE_FULL, which is too_large.

var _ qeval.Sandbox = (*Sandbox)(nil)

// DefaultSandboxGrowth is how many bytes a sandbox copy may grow past its source.
const DefaultSandboxGrowth = 64 << 20

// SandboxOptions are the extras of NewSandbox. Zero fields take defaults.
type SandboxOptions struct {
	// Dir is the folder of the copy (os.TempDir() when empty).
	Dir string
	// MaxGrowthBytes bounds the copy's size: its source's size plus this
	// (DefaultSandboxGrowth when 0).
	MaxGrowthBytes int64
	// MemoryBytes is the largest source copied into memory rather than into a file in
	// Dir (DefaultSandboxMemory when 0; a negative value copies every source into a file).
	MemoryBytes int64
}

// DefaultSandboxMemory is the largest source a sandbox copies into memory: a Spider or
// Chinook database is copied in a fraction of a millisecond, with no file to remove.
const DefaultSandboxMemory = 32 << 20

// Sandbox is a disposable copy of a SQLite file; see qeval.Sandbox. One asked for with
// qeval.WithSandboxReuse is a qeval.ReusedSandbox (see pool.go).
type Sandbox struct {
	*Executor
	file   string      // "" for a copy in memory
	anchor driver.Conn // keeps a copy in memory alive until Close
	mode   *sandboxMode
	shape  *copyShape // what every copy of this version of the source shares
	pool   *poolKey   // a reused copy's pool, where Close returns it when it is pristine again
	mu     sync.Mutex // one call at a time, and none after Close
}

// sandboxMode is how a sandbox copy's connection is set up, and its state in a pool.
type sandboxMode struct {
	dsn      string // the copy's: a file, or a memory database
	maxPages int64
	// pooled: a reused copy (pool.go); lost: a statement was refused for it
	// (qeval.ReusedSandbox's Lost), and none runs after
	pooled, lost bool
	control      bool // qeval's own statement runs (a savepoint of Cost, a reset)
	// oneConn: the copy lives in its connection (a reused copy): a second connection
	// would open an empty database, so it is refused
	oneConn, connected bool
	// the connection's settings a statement may change (PRAGMA), as it opened with them
	foreignKeys, recursiveTriggers int64
	settingsRead                   bool
	// what a statement asked for, as the authorizer saw it: a setting changed, a
	// temporary object made (it lives on the connection)
	settingsTouched, tempTouched bool
}

// note keeps what an authorizer request of a statement in a reused copy changes on its
// connection (go-sqlite3's statement cache is off: every statement is prepared, so
// every one is seen).
func (m *sandboxMode) note(op int, arg1, arg2 string) {
	switch op {
	case sqlite3.SQLITE_PRAGMA:
		switch strings.ToLower(arg1) {
		case "foreign_keys", "defer_foreign_keys", "recursive_triggers":
			m.settingsTouched = m.settingsTouched || arg2 != ""
		}
	case sqlite3.SQLITE_CREATE_TEMP_TABLE, sqlite3.SQLITE_CREATE_TEMP_INDEX, sqlite3.SQLITE_CREATE_TEMP_VIEW, sqlite3.SQLITE_CREATE_TEMP_TRIGGER:
		m.tempTouched = true
	}
}

// sandboxReason ends the message of a statement refused in a sandbox copy.
const sandboxReason = "a stateful answer may change only the copy's own tables"

// NewSandbox copies the SQLite file src into a new file (named by qeval.SandboxName, in
// opt.Dir) and opens the copy writable. The copy is removed when Close is called, or
// here when it cannot be made.
func NewSandbox(ctx context.Context, src string, limits qeval.Limits, opt SandboxOptions) (sb *Sandbox, err error) {
	st, err := os.Stat(src)
	if err != nil {
		if err := checkFile(src); err != nil {
			return nil, err
		}
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "copy database " + src, Message: err.Error(), Err: err}
	}
	if err := installFingerprint(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "copy database " + src, Message: err.Error(), Err: err}
	}
	dir := opt.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	growth := opt.MaxGrowthBytes
	if growth <= 0 {
		growth = DefaultSandboxGrowth
	}
	inMemory := opt.MemoryBytes
	if inMemory == 0 {
		inMemory = DefaultSandboxMemory
	}
	if err := installHandle(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "copy database " + src, Message: err.Error(), Err: err}
	}
	limits = limits.WithDefaults()
	reuse := qeval.SandboxReuse(ctx) && st.Size() <= inMemory
	key := poolKey{src: src, stamp: stampOf(st), growth: growth, limits: limits}
	if reuse {
		if sb := copies.take(key); sb != nil {
			return sb, nil
		}
		if sh := shapes.lookup(key); sh != nil && sh.image != nil {
			return fromImage(ctx, key, sh)
		}
	}
	// (a reused copy's source was checked when its image was made, at the same stamp)
	if err := checkFile(src); err != nil {
		return nil, err
	}
	name := qeval.SandboxName()
	sb = &Sandbox{mode: &sandboxMode{}}
	mode := sb.mode
	if st.Size() <= inMemory {
		// a memdb database, which lives while a connection to it is open: the backup's
		// (the anchor) until Close
		mode.dsn = "file:/" + name + "?vfs=memdb&_mutex=no"
	} else {
		sb.file = filepath.Join(dir, name+".sqlite")
		mode.dsn = sandboxDSN(sb.file)
	}
	defer func() {
		if err != nil {
			sb.Close()
		}
	}()
	pageSize, anchor, err := backup(ctx, src, sb.file, mode.dsn)
	sb.anchor = anchor
	if err != nil {
		where := "memory"
		if sb.file != "" {
			where = dir + ": it must be writable and have room for the copy"
		}
		return nil, &qeval.Error{Code: qeval.ErrorCode(err), Op: "copy database " + src + " into a sandbox", Message: qeval.ErrorMessage(err), Err: err,
			Hint: "the sandbox copies go to " + where}
	}
	mode.maxPages = (st.Size() + growth + pageSize - 1) / pageSize
	if sb.shape, err = shapes.get(key, anchor.(*sqlite3.SQLiteConn), reuse); err != nil {
		return nil, err
	}
	if reuse && sb.shape.image != nil {
		// the backup made the image; reused copies are loaded from it, each into a
		// memory database of its own connection (see pool.go)
		sb.Close()
		return fromImage(ctx, key, sb.shape)
	}
	sb.Executor, err = OpenWith(src, limits, 1, Options{sandbox: mode})
	return sb, err
}

// backup copies src into a new database, the file dest (created here) or the memory
// database dsn names, with the backup API; it returns the copy's page size and its
// connection (the anchor that keeps a memory database alive).
func backup(ctx context.Context, src, dest, destDSN string) (int64, driver.Conn, error) {
	drv := &sqlite3.SQLiteDriver{}
	sc, err := sources.take(src)
	if err != nil {
		return 0, nil, err
	}
	defer sources.put(src, sc)
	if dest != "" {
		f, err := os.OpenFile(dest, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, nil, err
		}
		f.Close()
	}
	dc, err := drv.Open(destDSN)
	if err != nil {
		return 0, nil, err
	}
	pageSize, err := copyPages(ctx, dc.(*sqlite3.SQLiteConn), sc.conn)
	if err != nil {
		dc.Close()
		return 0, nil, err
	}
	return pageSize, dc, nil
}

// copyPages runs the backup from sc into dc and returns the page size.
func copyPages(ctx context.Context, dc, sc *sqlite3.SQLiteConn) (int64, error) {
	bk, err := dc.Backup("main", sc, "main")
	if err != nil {
		return 0, err
	}
	for {
		done, err := bk.Step(1024)
		if err != nil {
			bk.Close()
			return 0, err
		}
		if done {
			break
		}
		if ctx.Err() != nil {
			bk.Close()
			return 0, &qeval.Error{Code: qeval.CodeTimeout, Message: "the copy ran past the case's deadline", Err: ctx.Err()}
		}
	}
	if err := bk.Close(); err != nil {
		return 0, err
	}
	n, err := pragmaInt(context.Background(), dc, "page_size")
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		n = 4096
	}
	return n, nil
}

// sandboxDSN opens a copy writable, never creating it.
func sandboxDSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", "rw")
	q.Set("_mutex", "no")
	// a throwaway copy: no fsync, no journal file (the backup's writes took 30 of a
	// stateful case's 60 ms in fsyncs)
	q.Set("_sync", "OFF")
	q.Set("_journal", "MEMORY")
	u.RawQuery = q.Encode()
	return u.String()
}

// setUp bounds a copy's connection: its size, and a rollback journal in memory (no
// file beside the copy).
func (m *sandboxMode) setUp(sc *sqlite3.SQLiteConn) error {
	// one call: the driver runs each statement of the text
	setup := fmt.Sprintf("PRAGMA max_page_count = %d; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; "+
		"PRAGMA temp_store = MEMORY; PRAGMA trusted_schema = OFF", m.maxPages)
	if _, err := sc.Exec(setup, nil); err != nil {
		return fmt.Errorf("set up the sandbox copy: %w", err)
	}
	return nil
}

// sandboxPragmas are the PRAGMAs a statement in a copy may run: they change how the
// copy's own constraints and triggers behave, or read its definitions.
var sandboxPragmas = map[string]bool{
	"foreign_keys": true, "defer_foreign_keys": true, "recursive_triggers": true,
	"table_info": true, "table_xinfo": true, "index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true, "foreign_key_check": true, "integrity_check": true,
}

// sandboxAllows says whether the authorizer lets a statement in a copy do op: write
// to its tables, change their definitions, use transactions and savepoints.
func sandboxAllows(op int, arg1, arg2 string) bool {
	switch op {
	case sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE,
		sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_CREATE_TRIGGER,
		sqlite3.SQLITE_CREATE_TEMP_TABLE, sqlite3.SQLITE_CREATE_TEMP_INDEX, sqlite3.SQLITE_CREATE_TEMP_VIEW, sqlite3.SQLITE_CREATE_TEMP_TRIGGER,
		sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_DROP_TRIGGER,
		sqlite3.SQLITE_DROP_TEMP_TABLE, sqlite3.SQLITE_DROP_TEMP_INDEX, sqlite3.SQLITE_DROP_TEMP_VIEW, sqlite3.SQLITE_DROP_TEMP_TRIGGER,
		sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_REINDEX, sqlite3.SQLITE_ANALYZE,
		sqlite3.SQLITE_TRANSACTION, sqlite3.SQLITE_SAVEPOINT:
		return true
	case sqlite3.SQLITE_PRAGMA:
		return sandboxPragmas[strings.ToLower(arg1)]
	}
	return false
}

// readOnly reports whether stmt only reads, by preparing it (SQLite's own answer).
func readOnly(ctx context.Context, c *conn, stmt string) bool {
	ps, err := c.PrepareContext(ctx, stmt)
	if err != nil {
		return false
	}
	defer ps.Close()
	s, ok := ps.(*sqlite3.SQLiteStmt)
	return ok && s.Readonly()
}

// File is the copy's file ("" for a copy in memory).
func (s *Sandbox) File() string { return s.file }

// errClosed is a call on a sandbox after its Close.
var errClosed = &qeval.Error{Code: qeval.CodeInternal, Message: "the sandbox copy is closed"}

// Query runs exactly one statement in the copy; see qeval.Sandbox.
func (s *Sandbox) Query(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil {
		return nil, errClosed
	}
	return s.Executor.Query(ctx, stmt)
}

// Close closes the copy and removes its file (a copy in memory goes with its last
// connection); a reused copy that can be reset to the pristine copy goes back to its
// pool instead (pool.go).
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pool != nil && s.Executor != nil {
		key := *s.pool
		s.pool = nil
		if c := s.rewind(); c != nil && copies.put(key, c) {
			s.Executor, s.anchor, s.mode = nil, nil, nil
			return nil
		}
	}
	var err error
	if s.Executor != nil {
		err = s.Executor.Close()
		s.Executor = nil
	}
	if s.anchor != nil {
		s.anchor.Close()
		s.anchor = nil
	}
	if s.file != "" {
		if rerr := removeCopy(s.file); err == nil {
			err = rerr
		}
	}
	return err
}

func removeCopy(file string) error {
	var first error
	for _, f := range []string{file, file + "-journal", file + "-wal", file + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

// CostUnit names Cost's unit.
func (s *Sandbox) CostUnit() string { return "vm_steps" }

// Cost runs stmt in a savepoint, counting SQLite's virtual-machine steps (the
// deterministic cost of BIRD's R-VES), and rolls it back. A transaction statement
// costs nothing.
func (s *Sandbox) Cost(ctx context.Context, stmt string) (float64, error) {
	switch leadingWord(stmt) {
	case "begin", "commit", "end", "rollback", "savepoint", "release":
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil {
		return 0, errClosed
	}
	if err := s.control(ctx, "SAVEPOINT qeval_cost"); err != nil {
		return 0, err
	}
	steps, err := s.VMSteps(ctx, stmt)
	if rerr := s.control(ctx, "ROLLBACK TO qeval_cost"); rerr != nil && err == nil {
		err = rerr
	}
	if rerr := s.control(ctx, "RELEASE qeval_cost"); rerr != nil && err == nil {
		err = rerr
	}
	return float64(steps), err
}

// control runs one of qeval's own statements on the copy (a savepoint's), which a
// reused copy's rules do not refuse.
func (s *Sandbox) control(ctx context.Context, stmt string) error {
	err := s.ctl(ctx, func(c *conn) error {
		c.stmt = stmt
		if _, err := c.ExecContext(ctx, stmt, nil); err != nil {
			return c.explain(err)
		}
		return nil
	})
	if err != nil {
		return s.classify(ctx, err)
	}
	return nil
}

func leadingWord(stmt string) string {
	i := nextToken(stmt, 0)
	if i < 0 {
		return ""
	}
	j := i
	for j < len(stmt) && (stmt[j] >= 'a' && stmt[j] <= 'z' || stmt[j] >= 'A' && stmt[j] <= 'Z') {
		j++
	}
	return strings.ToLower(stmt[i:j])
}

// sources keeps the read-only connections backups copy from, a few per source file, so
// that each copy does not open its source again. A connection is used by one backup at
// a time; one whose file changed since it was opened is closed instead of kept.
var sources = &sourcePool{idle: map[string][]sourceConn{}}

type sourcePool struct {
	mu   sync.Mutex
	idle map[string][]sourceConn
}

type sourceConn struct {
	conn  *sqlite3.SQLiteConn
	stamp string // the file's size and modification time when opened
}

// maxIdleSources bounds the idle connections kept per file.
const maxIdleSources = 4

func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return stampOf(st)
}

func (p *sourcePool) take(src string) (sourceConn, error) {
	stamp := fileStamp(src)
	p.mu.Lock()
	for list := p.idle[src]; len(list) > 0; list = p.idle[src] {
		c := list[len(list)-1]
		p.idle[src] = list[:len(list)-1]
		if c.stamp == stamp {
			p.mu.Unlock()
			return c, nil
		}
		c.conn.Close() // the file changed: an immutable connection would read the old one
	}
	p.mu.Unlock()
	dc, err := (&sqlite3.SQLiteDriver{}).Open(dsn(src))
	if err != nil {
		return sourceConn{}, err
	}
	return sourceConn{dc.(*sqlite3.SQLiteConn), stamp}, nil
}

func (p *sourcePool) put(src string, c sourceConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[src]) >= maxIdleSources {
		c.conn.Close()
		return
	}
	p.idle[src] = append(p.idle[src], c)
}
