package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
)

// Reused copies. A copy asked for with qeval.WithSandboxReuse comes from a pool of
// pristine in-memory copies of its source. The first copy of a version of a source is
// made as any (the backup API), and its bytes are kept (the image, serialized once);
// later copies load the image into a connection of their own (sqlite3_deserialize, one
// memory copy: no backup, no anchor connection), and a copy closed when it can be
// proven clean loads the image again and goes back to the pool, its connection kept.
// Every statement runs as in a fresh copy, in autocommit: BEGIN, COMMIT, SAVEPOINT and
// PRAGMA foreign_keys behave as they always did. A copy goes back to the pool only when
//
//   - no transaction is open (an answer that began one and never ended it leaves its
//     copy to be closed), and the temporary schema is empty (a TEMP table, view or
//     trigger lives on the connection, not in the copy);
//   - nothing was refused for the pool's sake (Lost): changes() and total_changes()
//     read counters the connection keeps across copies, so a statement calling them
//     is refused in a reused copy and its side runs again in a fresh copy;
//   - the source file has the stamp (size, modification time) the image was made at:
//     a changed file is copied again, never served from an old image;
//   - the pool has room: at most maxIdleCopies per source and limits, maxIdleBytes in
//     all, and a copy idle for idleRelease is closed.
//
// The reset loads the image (the grown copy's memory goes with it), sets the copy's
// bounds again (max_page_count) and the connection's settings a statement may change
// (foreign_keys, recursive_triggers) back to what they were when it opened, and forgets
// the last rowid inserted. Whatever the end of a side (an error, a timeout, a panic, a
// cancel), Close either resets the copy or closes it.

const (
	maxIdleCopies = 8
	maxIdleBytes  = 64 << 20
	idleRelease   = 10 * time.Second
)

// poolKey is what a reused copy must share with the copy asked for.
type poolKey struct {
	src, stamp string
	growth     int64
	limits     qeval.Limits
}

// idleCopy is a pristine copy in the pool.
type idleCopy struct {
	ex    *Executor
	mode  *sandboxMode
	shape *copyShape
	bytes int64
	since time.Time
}

func (c *idleCopy) close() { c.ex.Close() }

// copyPool keeps the idle pristine copies.
type copyPool struct {
	mu    sync.Mutex
	idle  map[poolKey][]*idleCopy
	bytes int64
	timer *time.Timer
}

var copies = &copyPool{idle: map[poolKey][]*idleCopy{}}

// take returns an idle copy of k, or nil; the copies of another version of the same
// source file are closed.
func (p *copyPool) take(k poolKey) *Sandbox {
	var stale []*idleCopy
	var c *idleCopy
	p.mu.Lock()
	for k2, list := range p.idle {
		if k2.src == k.src && k2.stamp != k.stamp {
			stale = append(stale, list...)
			p.drop(k2, len(list))
		}
	}
	if list := p.idle[k]; len(list) > 0 {
		c = list[len(list)-1]
		p.drop(k, 1)
	}
	p.mu.Unlock()
	for _, s := range stale {
		s.close()
	}
	if c == nil {
		return nil
	}
	c.mode.lost = false
	return &Sandbox{Executor: c.ex, mode: c.mode, shape: c.shape, pool: &k}
}

// drop forgets the last n idle copies of k (p.mu held).
func (p *copyPool) drop(k poolKey, n int) {
	list := p.idle[k]
	for _, c := range list[len(list)-n:] {
		p.bytes -= c.bytes
	}
	if list = list[:len(list)-n]; len(list) == 0 {
		delete(p.idle, k)
	} else {
		p.idle[k] = list
	}
}

// put keeps a pristine copy of k, when the source file is unchanged and the pool has
// room; false when the caller must close it.
func (p *copyPool) put(k poolKey, c *idleCopy) bool {
	if fileStamp(k.src) != k.stamp {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[k]) >= maxIdleCopies || p.bytes+c.bytes > maxIdleBytes {
		return false
	}
	c.since = time.Now()
	p.idle[k] = append(p.idle[k], c)
	p.bytes += c.bytes
	if p.timer == nil {
		p.timer = time.AfterFunc(idleRelease, p.releaseIdle)
	}
	return true
}

// releaseIdle closes the copies idle for idleRelease, and looks again later while
// copies are left.
func (p *copyPool) releaseIdle() {
	var old []*idleCopy
	p.mu.Lock()
	cut := time.Now().Add(-idleRelease)
	for k, list := range p.idle {
		keep := list[:0]
		for _, c := range list {
			if c.since.Before(cut) {
				old = append(old, c)
				p.bytes -= c.bytes
			} else {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			delete(p.idle, k)
		} else {
			p.idle[k] = keep
		}
	}
	if len(p.idle) > 0 {
		p.timer.Reset(idleRelease)
	} else {
		p.timer = nil
	}
	p.mu.Unlock()
	for _, c := range old {
		c.close()
	}
}

// closeIdle closes every idle copy now.
func (p *copyPool) closeIdle() {
	p.mu.Lock()
	var all []*idleCopy
	for _, list := range p.idle {
		all = append(all, list...)
	}
	p.idle, p.bytes = map[poolKey][]*idleCopy{}, 0
	p.mu.Unlock()
	for _, c := range all {
		c.close()
	}
}

// fromImage makes a reused copy on a new connection from the image of sh, in a memory
// database of the connection's own (whose pages StoredDigest reads: SQLite serializes a
// memory database shared by name only by copying it).
func fromImage(ctx context.Context, k poolKey, sh *copyShape) (*Sandbox, error) {
	keepCopyBuffers()
	mode := &sandboxMode{dsn: "file:/" + qeval.SandboxName() + "?vfs=memdb&_mutex=no",
		maxPages: (int64(len(sh.image)) + k.growth + sh.pageSize - 1) / sh.pageSize, pooled: true, oneConn: true}
	ex, err := OpenWith(k.src, k.limits, 1, Options{sandbox: mode})
	if err != nil {
		return nil, err
	}
	sb := &Sandbox{Executor: ex, mode: mode, shape: sh, pool: &k}
	if err := sb.reset(ctx); err != nil {
		ex.Close()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "copy database " + k.src + " into a sandbox", Message: err.Error(), Err: err}
	}
	return sb, nil
}

// ctl runs f on the copy's connection as qeval's own work (trusted, never refused for
// the pool).
func (s *Sandbox) ctl(ctx context.Context, f func(c *conn) error) error {
	s.mode.control = true
	defer func() { s.mode.control = false }()
	return s.raw(ctx, "", func(c *conn) error {
		c.trusted = true
		defer func() { c.trusted = false }()
		return f(c)
	})
}

// handleOf is the connection's C handle (c trusted), asked for once per connection.
func (s *Sandbox) handleOf(ctx context.Context, c *conn) (int64, error) {
	if c.handle == 0 {
		h, err := connHandle(ctx, c.SQLiteConn)
		if err != nil {
			return 0, err
		}
		c.handle = h
	}
	return c.handle, nil
}

// readSettings reads the connection's settings a statement may change, once, before
// any statement runs (c trusted).
func (s *Sandbox) readSettings(c *conn) error {
	m := s.mode
	if m.settingsRead {
		return nil
	}
	var err error
	ctx := context.Background()
	if m.foreignKeys, err = pragmaInt(ctx, c.SQLiteConn, "foreign_keys"); err != nil {
		return err
	}
	if m.recursiveTriggers, err = pragmaInt(ctx, c.SQLiteConn, "recursive_triggers"); err != nil {
		return err
	}
	m.settingsRead = true
	return nil
}

// reset makes the copy pristine again: see the top of this file.
func (s *Sandbox) reset(ctx context.Context) error {
	return s.ctl(ctx, func(c *conn) error {
		h, err := s.handleOf(ctx, c)
		if err != nil {
			return err
		}
		m := s.mode
		if err := s.readSettings(c); err != nil {
			return err
		}
		if !autocommit(h) {
			return fmt.Errorf("a transaction is open")
		}
		// sqlite3_deserialize attaches the image as main, and the PRAGMAs set the copy
		// up: qeval's own, which the authorizer lets through
		c.setup = true
		defer func() { c.setup = false }()
		if err := loadImage(h, s.shape.image); err != nil {
			return err
		}
		// a memory database's journal is in memory, and it has no file to sync
		setup := fmt.Sprintf("PRAGMA max_page_count = %d", m.maxPages)
		if m.settingsTouched {
			setup += fmt.Sprintf("; PRAGMA foreign_keys = %d; PRAGMA recursive_triggers = %d; PRAGMA defer_foreign_keys = 0", m.foreignKeys, m.recursiveTriggers)
			m.settingsTouched = false
		}
		_, err = c.ExecContext(ctx, setup, nil)
		return err
	})
}

// Lost reports that a statement was refused in a reused copy (see
// qeval.ReusedSandbox).
func (s *Sandbox) Lost() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode != nil && s.mode.lost
}

// rewind resets a reused copy for the pool and returns it, or nil when it is not
// provably clean (the caller closes it).
func (s *Sandbox) rewind() *idleCopy {
	if s.mode == nil || !s.mode.pooled || s.mode.lost || s.mode.tempTouched || s.shape == nil || s.shape.image == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.reset(ctx) != nil { // reset refuses a copy with a transaction open
		return nil
	}
	return &idleCopy{ex: s.Executor, mode: s.mode, shape: s.shape, bytes: int64(len(s.shape.image))}
}

// errLost is a statement asked of a reused copy after one was refused for it.
var errLost = &qeval.Error{Code: qeval.CodeInternal,
	Message: "a statement was refused in the reused sandbox copy; the side runs again in a fresh copy"}

// poolRefuses says whether a statement in a reused copy may not do op: read what the
// connection keeps across copies.
func poolRefuses(op int, arg1, arg2 string) bool {
	if op == sqlite3.SQLITE_FUNCTION {
		switch strings.ToLower(arg2) {
		case "changes", "total_changes":
			return true
		}
	}
	return false
}

// copyShape is what the copies of one version of a source file share: its size, its
// image (its bytes, for reused copies), and its tables' definitions while a copy's
// schema is the pristine one.
type copyShape struct {
	version         int64 // PRAGMA schema_version: each change of the schema adds to it
	pages, pageSize int64
	image           []byte // nil when not kept
	mu              sync.Mutex
	defs            []qeval.TableDefinition
}

// cached returns the pristine definitions, when read once (nil otherwise).
func (c *copyShape) cached() []qeval.TableDefinition {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.defs)
}

func (c *copyShape) keep(defs []qeval.TableDefinition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.defs == nil {
		c.defs = slices.Clone(defs)
	}
}

type shapeCache struct {
	mu         sync.Mutex
	m          map[[2]string]*copyShape
	imageBytes int64
}

var shapes = &shapeCache{m: map[[2]string]*copyShape{}}

const (
	// maxShapes bounds the versions of source files whose shapes are kept
	maxShapes = 1024
	// maxImageBytes bounds the images kept in all
	maxImageBytes = 256 << 20
)

func (sc *shapeCache) lookup(k poolKey) *copyShape {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.m[[2]string{k.src, k.stamp}]
}

// get returns the shape of k's version of the source, reading it from a pristine copy
// (conn) the first time, with its image when withImage and there is room for it.
func (sc *shapeCache) get(k poolKey, conn *sqlite3.SQLiteConn, withImage bool) (*copyShape, error) {
	id := [2]string{k.src, k.stamp}
	sh := sc.lookup(k)
	if sh != nil && (sh.image != nil || !withImage) {
		return sh, nil
	}
	sh = &copyShape{}
	var err error
	ctx := context.Background()
	if sh.version, err = pragmaInt(ctx, conn, "schema_version"); err != nil {
		return nil, err
	}
	if sh.pages, err = pragmaInt(ctx, conn, "page_count"); err != nil {
		return nil, err
	}
	if sh.pageSize, err = pragmaInt(ctx, conn, "page_size"); err != nil {
		return nil, err
	}
	if withImage && sh.pages*sh.pageSize <= maxImageBytes { // a larger image is never kept
		if sh.image, err = conn.Serialize("main"); err != nil {
			return nil, err
		}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if old := sc.m[id]; old != nil && (old.image != nil || sh.image == nil) {
		return old, nil
	}
	for old, o := range sc.m {
		if old[0] == k.src && old[1] != k.stamp {
			// another version of the file: its image serves no copy any more
			sc.imageBytes -= int64(len(o.image))
			delete(sc.m, old)
		}
	}
	if len(sc.m) >= maxShapes || sc.imageBytes+int64(len(sh.image)) > maxImageBytes {
		clear(sc.m)
		sc.imageBytes = 0
	}
	if old := sc.m[id]; old != nil {
		sc.imageBytes -= int64(len(old.image))
	}
	sc.m[id] = sh
	sc.imageBytes += int64(len(sh.image))
	return sh, nil
}

// pragmaInt reads an integer PRAGMA of a connection.
func pragmaInt(ctx context.Context, c *sqlite3.SQLiteConn, name string) (int64, error) {
	return queryInt(ctx, c, "PRAGMA "+name)
}

// queryInt runs a query of one integer on a connection (qeval's own, never a
// statement's) and returns that integer.
func queryInt(ctx context.Context, c *sqlite3.SQLiteConn, query string) (int64, error) {
	rows, err := c.QueryContext(ctx, query, nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		if err == io.EOF {
			return 0, fmt.Errorf("%s returned no row", query)
		}
		return 0, err
	}
	n, ok := v[0].(int64)
	if !ok {
		return 0, fmt.Errorf("%s returned %T", query, v[0])
	}
	return n, nil
}

// stampOf is a file's version as the pools compare it: its size and modification time.
func stampOf(st os.FileInfo) string {
	return fmt.Sprint(st.Size(), st.ModTime().UnixNano())
}
