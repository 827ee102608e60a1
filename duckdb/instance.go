package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
)

// instance is one DuckDB instance, in this process, that holds several database files,
// each attached read-only under the name DuckDB gives a file opened alone (its base
// name). An instance costs about 10 ms to start (its catalog of built-in functions) and
// a file about 1 ms to attach: the 19 Spider dev databases open in ~35 ms instead of
// ~190 ms and close in ~3 ms instead of ~90 ms (BenchmarkHost_OpenAll). A worker
// process keeps one for each Host it serves.
//
// The sandbox is the one of a file opened alone: once every file is attached, external
// access is switched off and the configuration locked, so no query can attach, read or
// write a file or change a setting; each connection starts on its own file (USE), and
// only a single SELECT runs. A query may name a table of another file of the same
// instance by its qualified name (file.table); all of them are read-only.
type instance struct {
	files []string // cleaned paths, in the order given

	once    sync.Once
	err     error
	conn    *ddb.Connector
	admin   driver.Conn
	aliases map[string]string // cleaned path → catalog name

	mu     sync.Mutex
	closed bool
}

func newInstance(files []string) *instance { return &instance{files: files} }

// openFile opens path, one of the instance's files, starting the instance with the
// first call's limits. The worker opens each file once; closing its executor detaches
// the file (its cached blocks freed), which the Host does after the file's last
// executor closed.
func (h *instance) openFile(path string, limits qeval.Limits) (*Executor, error) {
	if !slices.Contains(h.files, path) {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: "not a file of this DuckDB host"}
	}
	limits = limits.WithDefaults()
	h.once.Do(func() { h.err = h.start(limits) })
	if h.err != nil {
		return nil, h.err
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: "the DuckDB host is closed"}
	}
	e, err := newExecutor(path, limits, aliasConnector{h.conn, h.aliases[path]})
	if err != nil {
		return nil, err
	}
	e.onClose = func() { h.detach(path) }
	return e, nil
}

// detach detaches a file whose executor closed.
func (h *instance) detach(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.exec("DETACH " + quoteIdent(h.aliases[path])) // an error leaves it attached until close
	}
}

// start opens the instance, attaches every file and locks the sandbox.
func (h *instance) start(limits qeval.Limits) error {
	cfg := url.Values{}
	for k, v := range config(limits) {
		cfg.Set(k, v)
	}
	// file access and the configuration are closed after the files are attached
	cfg.Del("access_mode")
	cfg.Del("enable_external_access")
	cfg.Del("lock_configuration")
	conn, err := ddb.NewConnector("?"+cfg.Encode(), nil)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "start DuckDB", Message: engineMessage(err), Err: err}
	}
	admin, err := conn.Connect(context.Background())
	if err != nil {
		conn.Close()
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "start DuckDB", Message: engineMessage(err), Err: err}
	}
	h.conn, h.admin, h.aliases = conn, admin, map[string]string{}
	used := map[string]bool{"memory": true, "system": true, "temp": true}
	for _, f := range h.files {
		if _, ok := h.aliases[f]; ok {
			continue
		}
		alias := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		for n := 2; used[strings.ToLower(alias)]; n++ {
			alias = fmt.Sprintf("%s_%d", strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), n)
		}
		used[strings.ToLower(alias)] = true
		h.aliases[f] = alias
		if err := h.exec(fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", quoteString(f), quoteIdent(alias))); err != nil {
			h.stop()
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + f, Message: engineMessage(err), Err: err}
		}
	}
	for _, s := range []string{"SET enable_external_access = false", "SET lock_configuration = true"} {
		if err := h.exec(s); err != nil {
			h.stop()
			return &qeval.Error{Code: qeval.CodeInternal, Op: "start DuckDB", Message: engineMessage(err), Err: err}
		}
	}
	return nil
}

func (h *instance) exec(stmt string) error {
	_, err := h.admin.(driver.ExecerContext).ExecContext(context.Background(), stmt, nil)
	return err
}

func (h *instance) stop() {
	h.admin.Close()
	h.conn.Close()
	h.admin, h.conn = nil, nil
}

// close closes the instance, once the executors opened on it are closed; calling it
// again does nothing.
func (h *instance) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	// a host never opened starts nothing now
	h.once.Do(func() { h.err = &qeval.Error{Code: qeval.CodeInternal, Message: "the DuckDB host is closed"} })
	if h.conn != nil {
		h.stop()
	}
}

// aliasConnector makes the connections of one attached file: each starts on it.
// It has no Close, so closing an executor's pool leaves the instance open.
type aliasConnector struct {
	c     *ddb.Connector
	alias string
}

func (a aliasConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := a.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := cn.(driver.ExecerContext).ExecContext(ctx, "USE "+quoteIdent(a.alias), nil); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

func (a aliasConnector) Driver() driver.Driver { return a.c.Driver() }

var _ driver.Connector = aliasConnector{}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// newExecutor wraps a connector's pool as an executor, checked with one query.
func newExecutor(path string, limits qeval.Limits, c driver.Connector) (*Executor, error) {
	e := &Executor{path: path, limits: limits, db: sql.OpenDB(c)}
	e.db.SetMaxIdleConns(max(4, maxProcs()))
	if _, err := e.Query(context.Background(), "SELECT 1"); err != nil {
		e.db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: qeval.ErrorMessage(err), Err: err}
	}
	return e, nil
}
