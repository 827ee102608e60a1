package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
)

// A sandbox copy is the source file copied into a folder of its own, opened
// read-write by one worker process that the sandbox holds for its whole life (DuckDB
// locks a file it writes to one instance). Its statements may write to the copy's
// tables and change their definitions; external access stays off and the
// configuration locked, so COPY, ATTACH, reading or writing other files, extensions
// and SET are refused as for queries, and DuckDB's own statement types decide the
// rest (sandboxStatements). After each statement that is not a query the folder's
// size is checked against the bound: past it, the statement is too_large.

var _ qeval.Sandbox = (*Sandbox)(nil)

// DefaultSandboxGrowth is how many bytes a sandbox copy may grow past its source.
const DefaultSandboxGrowth = 64 << 20

// SandboxOptions are the extras of NewSandbox. Zero fields take defaults.
type SandboxOptions struct {
	// Dir is where the copy's folder goes (os.TempDir() when empty).
	Dir string
	// MaxGrowthBytes bounds the copy: its source's size plus this
	// (DefaultSandboxGrowth when 0).
	MaxGrowthBytes int64
}

// Sandbox is a disposable copy of a DuckDB file; see qeval.Sandbox.
type Sandbox struct {
	dir, file string
	id        string
	limits    qeval.Limits
	maxBytes  int64
	w         *worker // nil when its worker was ended: the next statement takes another
}

// sandboxReason ends the message of a statement refused in a sandbox copy.
const sandboxReason = "a stateful answer may change only the copy's own tables"

// NewSandbox copies the DuckDB file target names into a new folder (named by
// qeval.SandboxName, in opt.Dir) and opens the copy writable in a worker.
func NewSandbox(ctx context.Context, target string, limits qeval.Limits, opt SandboxOptions) (sb *Sandbox, err error) {
	src := filepath.Clean(Path(target))
	if err := checkFile(src); err != nil {
		return nil, err
	}
	base := opt.Dir
	if base == "" {
		base = os.TempDir()
	}
	growth := opt.MaxGrowthBytes
	if growth <= 0 {
		growth = DefaultSandboxGrowth
	}
	dir := filepath.Join(base, qeval.SandboxName())
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, copyError(src, base, err)
	}
	sb = &Sandbox{dir: dir, file: filepath.Join(dir, "copy.duckdb"), id: newExecutorID(), limits: limits.WithDefaults()}
	defer func() {
		if err != nil {
			sb.Close()
		}
	}()
	size, err := copyFile(src, sb.file)
	if err != nil {
		return nil, copyError(src, base, err)
	}
	if n, err := copyFile(src+".wal", sb.file+".wal"); err == nil {
		size += n
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, copyError(src, base, err)
	}
	sb.maxBytes = size + growth
	if _, err := sb.Query(ctx, "SELECT 1"); err != nil {
		return nil, err
	}
	return sb, nil
}

func copyError(src, dir string, err error) error {
	return &qeval.Error{Code: qeval.CodeInternal, Op: "copy database " + src + " into a sandbox", Message: err.Error(), Err: err,
		Hint: "the sandbox copies go to " + dir + ": it must be writable and have room for the copy"}
}

// copyFile copies src into the new file dest and returns its size.
func copyFile(src, dest string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// openSandboxCopy opens a sandbox copy in a worker.
func openSandboxCopy(path string, limits qeval.Limits, spill string) (*Executor, error) {
	return openInstance(path, limits, spill, true)
}

// Query runs one statement in the copy, in the sandbox's worker.
func (s *Sandbox) Query(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	if strings.TrimSpace(strings.TrimRight(strings.TrimSpace(stmt), ";")) == "" {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	if err := ctx.Err(); err != nil {
		return nil, stopped(ctx, err)
	}
	workers.init()
	if s.w == nil {
		w, err := workers.take()
		if err != nil {
			return nil, err
		}
		s.w = w
	}
	timeout := s.limits.Timeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(d), time.Millisecond))
	}
	rs, err, keep := workers.ask(ctx, s.w, request{ID: s.id, Path: s.file, Limits: s.limits, Timeout: timeout, Query: stmt, Writable: true})
	if !keep {
		workers.drop(s.w)
		s.w = nil
	}
	if err != nil {
		return nil, err
	}
	if rs != nil && len(rs.Columns) == 0 {
		if size := folderSize(s.dir); size > s.maxBytes {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("the sandbox copy is full: the statements grew it past its size bound (%d bytes)", s.maxBytes)}
		}
	}
	return rs, nil
}

func folderSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Close ends the copy's instance in its worker, hands the worker back and removes the
// copy's folder.
func (s *Sandbox) Close() error {
	if s.w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.limits.Timeout)
		_, err, keep := workers.ask(ctx, s.w, request{Releases: []string{s.id}, Timeout: s.limits.Timeout})
		cancel()
		if keep && err == nil {
			workers.put(s.w)
		} else {
			workers.drop(s.w)
		}
		s.w = nil
	}
	return os.RemoveAll(s.dir)
}

// File is the copy's file.
func (s *Sandbox) File() string { return s.file }

// sandboxStatements are the DuckDB statement types a copy runs besides SELECT: writes,
// definitions, transactions; EXPLAIN (the cost) returns its rows.
var sandboxStatements = map[ddb.StmtType]bool{
	ddb.STATEMENT_TYPE_INSERT: true, ddb.STATEMENT_TYPE_UPDATE: true, ddb.STATEMENT_TYPE_DELETE: true,
	ddb.STATEMENT_TYPE_CREATE: true, ddb.STATEMENT_TYPE_DROP: true, ddb.STATEMENT_TYPE_ALTER: true,
	ddb.STATEMENT_TYPE_TRANSACTION: true, ddb.STATEMENT_TYPE_CREATE_FUNC: true, ddb.STATEMENT_TYPE_ANALYZE: true,
	ddb.STATEMENT_TYPE_EXPLAIN: true,
}

// runWrite runs a statement of a sandbox copy that is not a SELECT (done false for a
// SELECT: the read path runs it, bounded).
func (e *Executor) runWrite(ctx context.Context, c *ddb.Conn, query string) (rs *qeval.ResultSet, err error, done bool) {
	ds, err := c.Prepare(query)
	if err != nil {
		if strings.Contains(err.Error(), "PrepareContext") || strings.Contains(err.Error(), "multiple") {
			return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "several statements in one: a sandbox runs one at a time"}, true
		}
		return nil, err, true
	}
	defer ds.Close()
	stmt := ds.(*ddb.Stmt)
	typ, err := stmt.StatementType()
	if err != nil {
		return nil, err, true
	}
	switch {
	case typ == ddb.STATEMENT_TYPE_SELECT:
		return nil, nil, false
	case !sandboxStatements[typ]:
		return nil, &qeval.Error{Code: qeval.CodeForbidden, Message: fmt.Sprintf("%s is not allowed: %s", statementName(typ), sandboxReason)}, true
	case typ == ddb.STATEMENT_TYPE_EXPLAIN:
		names, err := columnNames(stmt)
		if err != nil {
			return nil, err, true
		}
		rs, err := e.fetch(ctx, func() {}, stmt, names)
		return rs, err, true
	}
	if _, err := stmt.ExecContext(ctx, []driver.NamedValue{}); err != nil {
		return nil, err, true
	}
	return &qeval.ResultSet{}, nil, true
}
