package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

var (
	_ qeval.Executor     = (*Executor)(nil)
	_ qeval.SchemaReader = (*Executor)(nil)
)

// Executor runs read-only queries on one DuckDB file. It is safe for concurrent use.
type Executor struct {
	path   string
	limits qeval.Limits
	db     *sql.DB // in this process (a worker's executor)
	// remote, when set, runs the queries in worker processes instead (see Host)
	remote *remote
	closed atomic.Bool
	// onClose, when set, runs after the pool closes (the parent releasing the
	// executor in the workers)
	onClose func()
	// writable: a sandbox copy's executor (sandbox.go), whose statements may write
	writable bool
}

// Path strips the duckdb: prefix of a target.
func Path(target string) string {
	if len(target) >= 7 && strings.EqualFold(target[:7], "duckdb:") {
		return target[7:]
	}
	return target
}

// IsTarget reports whether a target names a DuckDB database.
func IsTarget(target string) bool {
	l := strings.ToLower(target)
	return strings.HasPrefix(l, "duckdb:") || strings.HasSuffix(l, ".duckdb") || strings.HasSuffix(l, ".ddb")
}

// Open opens the DuckDB file named by target (duckdb:PATH or PATH) read-only, with
// limits (defaults for zero fields). Its queries run in a worker process (see Host).
func Open(target string, limits qeval.Limits) (*Executor, error) {
	path := filepath.Clean(Path(target))
	if err := checkFile(path); err != nil {
		return nil, err
	}
	return openRemote(path, limits.WithDefaults())
}

// openRemote opens path with one query in a worker (so a file DuckDB cannot open fails
// here, with its message).
func openRemote(path string, limits qeval.Limits) (*Executor, error) {
	id := newExecutorID()
	e := &Executor{path: path, limits: limits, remote: &remote{id: id}}
	if _, err := e.Query(context.Background(), "SELECT 1"); err != nil {
		workers.release(id)
		if strings.HasPrefix(qeval.ErrorMessage(err), "open database ") {
			return nil, err
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: qeval.ErrorMessage(err), Err: err}
	}
	e.onClose = func() { workers.release(id) }
	return e, nil
}

// checkFile reports a missing file or a folder where a database file should be.
func checkFile(path string) error {
	op := "open database " + path
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return &qeval.Error{Code: qeval.CodeNotFound, Op: op, Message: "no such file", Err: err}
	case st.IsDir():
		return &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "a folder, not a DuckDB database file"}
	}
	return nil
}

// openLocal opens the file in this process, as its own DuckDB instance: what a worker
// runs. DuckDB spills into the folder spill, or nowhere when it is "".
func openLocal(path string, limits qeval.Limits, spill string) (*Executor, error) {
	return openInstance(path, limits, spill, false)
}

// openInstance is openLocal, or with writable a sandbox copy's instance: read-write,
// on one connection (a transaction or a temporary table lasts from one statement to
// the next), its statements checked by sandboxAllows.
func openInstance(path string, limits qeval.Limits, spill string, writable bool) (*Executor, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	limits = limits.WithDefaults()
	cfg := url.Values{}
	for k, v := range config(limits, spill) {
		cfg.Set(k, v)
	}
	if writable {
		cfg.Set("access_mode", "READ_WRITE")
	}
	conn, err := ddb.NewConnector(path+"?"+cfg.Encode(), nil)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: engineMessage(err), Err: err}
	}
	if err := lock(conn, budget(limits)); err != nil {
		conn.Close()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: engineMessage(err), Err: err}
	}
	e := &Executor{path: path, limits: limits, db: sql.OpenDB(conn), writable: writable}
	e.db.SetMaxIdleConns(max(4, maxProcs()))
	if writable {
		e.db.SetMaxOpenConns(1)
		e.db.SetMaxIdleConns(1)
	}
	if _, err := e.Query(context.Background(), "SELECT 1"); err != nil {
		e.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: qeval.ErrorMessage(err), Err: err}
	}
	return e, nil
}

// config is the sandbox of a database, but for the settings lock sets: read-only, no
// extension install or autoload, memory_limit from limits, one thread, spilling into
// the folder spill (nowhere when it is "").
func config(limits qeval.Limits, spill string) map[string]string {
	// One thread per query: evaluation runs many small queries side by side, a thread
	// pool per query only adds overhead (0.9 ms against 1.3 ms a Spider query on two
	// cores), and one thread makes the order of rows that tie the same on every run.
	return map[string]string{
		"access_mode":                  "READ_ONLY",
		"autoinstall_known_extensions": "false",
		"autoload_known_extensions":    "false",
		"allow_community_extensions":   "false",
		"memory_limit":                 budget(limits),
		"temp_directory":               spill, // DuckDB's default: <file>.tmp beside the database
		"threads":                      "1",
	}
}

// budget is an instance's memory_limit and max_temp_directory_size: the byte cap.
func budget(limits qeval.Limits) string { return fmt.Sprintf("%dMB", max(64, limits.MaxBytes>>20)) }

// lock finishes the sandbox of an instance before its first query: the spill bounded
// by spill (max_temp_directory_size: given with the DSN DuckDB takes it and spills past
// it, 620 MB for 61 MB), no external access, the configuration locked. The last two are
// set here, after the others, because the driver applies a DSN's settings in no fixed
// order and DuckDB refuses temp_directory once external access is off. The driver keeps
// one instance per file in a process: one opened again is locked already.
func lock(c *ddb.Connector, spill string) error {
	ctx := context.Background()
	cn, err := c.Connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	rows, err := cn.(driver.QueryerContext).QueryContext(ctx,
		"SELECT current_setting('lock_configuration') AND NOT current_setting('enable_external_access')", nil)
	if err != nil {
		return err
	}
	v := make([]driver.Value, 1)
	err = rows.Next(v)
	rows.Close()
	if err != nil {
		return err
	}
	if locked, _ := v[0].(bool); locked {
		return nil
	}
	for _, s := range []string{"SET max_temp_directory_size = '" + spill + "'", "SET enable_external_access = false", "SET lock_configuration = true"} {
		if _, err := cn.(driver.ExecerContext).ExecContext(ctx, s, nil); err != nil {
			return err
		}
	}
	return nil
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// Path returns the database file.
func (e *Executor) Path() string { return e.path }

// Close closes the database; calling it again does nothing.
func (e *Executor) Close() error {
	if e == nil || (e.db == nil && e.remote == nil) || e.closed.Swap(true) {
		return nil
	}
	var err error
	if e.db != nil {
		err = e.db.Close()
	}
	if e.onClose != nil {
		e.onClose()
	}
	return err
}

// Query runs one read-only statement and returns its rows; see qeval.Executor. The
// statement is prepared by DuckDB first: several statements, or one that is not a
// SELECT, are refused (CodeForbidden) without running.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if e.closed.Load() {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "query " + e.path, Message: "the executor is closed"}
	}
	if strings.TrimSpace(strings.TrimRight(strings.TrimSpace(query), ";")) == "" {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	if err := ctx.Err(); err != nil {
		return nil, stopped(ctx, err)
	}
	if e.remote != nil {
		return e.remote.query(ctx, e.path, e.limits, query)
	}
	qctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	conn, err := e.db.Conn(qctx)
	if err != nil {
		return nil, e.classify(ctx, qctx, err)
	}
	defer conn.Close()
	var rs *qeval.ResultSet
	err = conn.Raw(func(dc any) error {
		var err error
		rs, err = e.run(qctx, cancel, dc.(*ddb.Conn), query)
		return err
	})
	if err != nil {
		return nil, e.classify(ctx, qctx, err)
	}
	return rs, nil
}

// run prepares, checks and runs one statement on a driver connection.
func (e *Executor) run(ctx context.Context, stop context.CancelFunc, c *ddb.Conn, query string) (*qeval.ResultSet, error) {
	if e.writable {
		if rs, err, done := e.runWrite(ctx, c, query); done {
			return rs, err
		}
	}
	if stmt, names := e.boundedFirst(c, query); stmt != nil {
		defer stmt.Close()
		rs, err := e.fetch(ctx, stop, stmt, names, driver.NamedValue{Ordinal: 1, Value: int64(e.rowBound(len(names)) + 1)})
		return rs, unwrapLines(err)
	}
	// Prepare, unlike PrepareContext, refuses several statements instead of running
	// all but the last.
	ds, err := c.Prepare(query)
	if err != nil {
		if strings.Contains(err.Error(), "PrepareContext") || strings.Contains(err.Error(), "multiple") {
			return nil, &qeval.Error{Code: qeval.CodeForbidden, Message: "multiple statements in one query: only one read-only SELECT runs"}
		}
		return nil, err
	}
	defer ds.Close()
	stmt := ds.(*ddb.Stmt)
	typ, err := stmt.StatementType()
	if err != nil {
		return nil, err
	}
	if typ != ddb.STATEMENT_TYPE_SELECT {
		return nil, &qeval.Error{Code: qeval.CodeForbidden,
			Message: fmt.Sprintf("%s is not allowed (read-only executor: only SELECT runs)", statementName(typ))}
	}
	if stmt.NumInput() > 0 {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "the query has parameters ($1, ?) and nothing binds them"}
	}
	names, err := columnNames(stmt)
	if err != nil {
		return nil, err
	}
	// DuckDB hands the driver a result only once it holds all of it: a cross join
	// grew to 6 GB before its deadline, past memory_limit. Run the statement under a
	// LIMIT of the most rows the byte cap can take (each row costs at least its
	// overheads), so DuckDB stops there; a result that reaches it is too_large below,
	// as it would have been.
	bounded := e.bounded(c, query, len(names))
	if bounded != nil {
		defer bounded.Close()
		stmt = bounded
	}
	rs, err := e.fetch(ctx, stop, stmt, names)
	if err != nil && bounded != nil {
		err = unwrapLines(err)
	}
	return rs, err
}

// fetch runs a prepared statement with args and reads its rows within the caps.
func (e *Executor) fetch(ctx context.Context, stop context.CancelFunc, stmt *ddb.Stmt, names []string, args ...driver.NamedValue) (*qeval.ResultSet, error) {
	rows, err := stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(names))}
	typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	for i, n := range names {
		rs.Columns[i] = qeval.Column{Name: n} // the statement's own names (a subquery renames duplicates)
		if typed != nil {
			rs.Columns[i].Type = typed.ColumnTypeDatabaseTypeName(i)
		}
	}
	dest := make([]driver.Value, len(names))
	var size int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := rows.Next(dest)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rs.Rows) >= e.limits.MaxRows {
			stop()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		row := make([]qeval.Value, len(dest))
		size += qeval.RowOverhead
		for i, v := range dest {
			row[i] = convert(v)
			size += qeval.ValueOverhead + int64(len(row[i].Str))
		}
		if size > e.limits.MaxBytes {
			stop()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d bytes (the byte cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// lineRef is a line reference in a DuckDB message ("LINE 2: …").
var lineRef = lazyregexp.New(`(?m)^LINE (\d+):`)

// unwrapLines makes the lines a message of the bounded statement names those of the
// query itself: the bound adds one line before it.
func unwrapLines(err error) error {
	var de *ddb.Error
	if !errors.As(err, &de) {
		return err
	}
	msg := lineRef.ReplaceAllStringFunc(de.Msg, func(m string) string {
		n, _ := strconv.Atoi(lineRef.FindStringSubmatch(m)[1])
		return fmt.Sprintf("LINE %d:", max(n-1, 1))
	})
	return &ddb.Error{Type: de.Type, Msg: msg}
}

// columnNames are the names of a prepared statement's result columns.
func columnNames(stmt *ddb.Stmt) ([]string, error) {
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		if names[i], err = stmt.ColumnName(i); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// rowBound is the most rows a result of cols columns can have within the byte cap.
func (e *Executor) rowBound(cols int) int {
	perRow := qeval.RowOverhead + int64(max(cols, 1))*qeval.ValueOverhead
	return int(min(int64(e.limits.MaxRows), e.limits.MaxBytes/perRow))
}

// bounded prepares query under a LIMIT of one row more than the caps allow, or returns
// nil when no such statement prepares (then the query runs as it is). The statement
// ends at its last semicolon: the attempts cut the text at each one from the end.
func (e *Executor) bounded(c *ddb.Conn, query string, cols int) *ddb.Stmt {
	limit := e.rowBound(cols) + 1
	text := query
	for attempt := 0; attempt < 4; attempt++ {
		ds, err := c.Prepare(boundedText(text, strconv.Itoa(limit)))
		if err == nil {
			st := ds.(*ddb.Stmt)
			if n, err := st.ColumnCount(); err == nil && n == cols {
				return st
			}
			ds.Close()
		}
		i := strings.LastIndexByte(text, ';')
		if i < 0 {
			return nil
		}
		text = text[:i]
	}
	return nil
}

// boundedText is query under LIMIT limit (a number, or "?" for one bound at run time).
// The query starts on the second line: unwrapLines counts on it.
func boundedText(query, limit string) string {
	return "SELECT * FROM (\n" + query + "\n) AS qeval_bounded LIMIT " + limit
}

// boundedFirst prepares query under a LIMIT the caller binds, as its only statement,
// or returns nil (and run takes the longer way: the query prepared alone, checked, then
// bounded). Planning is most of a small query's cost in DuckDB, so the common case
// costs one prepare instead of two: a query that prepares as a subquery is a single
// read-only statement. It returns nil for a query that has parameter markers of its
// own ('?' or '$' anywhere, so none can mix with the bound's), one that does not
// prepare as a subquery (it may be several statements, or not a query: the longer way
// says which), and one with a column name DuckDB may have renamed in the subquery
// (a duplicate "a" becomes "a_1": a name ending in _<digits>), whose names the query
// prepared alone gives.
func (e *Executor) boundedFirst(c *ddb.Conn, query string) (*ddb.Stmt, []string) {
	if strings.ContainsAny(query, "?$") {
		return nil, nil
	}
	ds, err := c.Prepare(boundedText(strings.TrimRight(query, "; \t\r\n"), "?"))
	if err != nil {
		return nil, nil
	}
	stmt := ds.(*ddb.Stmt)
	typ, err := stmt.StatementType()
	if err != nil || typ != ddb.STATEMENT_TYPE_SELECT || stmt.NumInput() != 1 {
		ds.Close()
		return nil, nil
	}
	names, err := columnNames(stmt)
	if err != nil || slices.ContainsFunc(names, mayBeRenamed) {
		ds.Close()
		return nil, nil
	}
	return stmt, names
}

// mayBeRenamed reports whether a column name of a subquery may be one DuckDB gave a
// duplicate: it ends in _ and digits.
func mayBeRenamed(name string) bool {
	i := strings.LastIndexByte(name, '_')
	if i < 0 || i == len(name)-1 {
		return false
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// statementName names a DuckDB statement type for a refusal.
func statementName(t ddb.StmtType) string {
	names := map[ddb.StmtType]string{
		ddb.STATEMENT_TYPE_INSERT: "INSERT", ddb.STATEMENT_TYPE_UPDATE: "UPDATE", ddb.STATEMENT_TYPE_DELETE: "DELETE",
		ddb.STATEMENT_TYPE_CREATE: "CREATE", ddb.STATEMENT_TYPE_DROP: "DROP", ddb.STATEMENT_TYPE_ALTER: "ALTER",
		ddb.STATEMENT_TYPE_COPY: "COPY", ddb.STATEMENT_TYPE_ATTACH: "ATTACH", ddb.STATEMENT_TYPE_DETACH: "DETACH",
		ddb.STATEMENT_TYPE_SET: "SET", ddb.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE", ddb.STATEMENT_TYPE_PRAGMA: "PRAGMA",
		ddb.STATEMENT_TYPE_LOAD: "LOAD", ddb.STATEMENT_TYPE_EXPORT: "EXPORT", ddb.STATEMENT_TYPE_CALL: "CALL",
		ddb.STATEMENT_TYPE_TRANSACTION: "a transaction statement", ddb.STATEMENT_TYPE_EXPLAIN: "EXPLAIN",
		ddb.STATEMENT_TYPE_VACUUM: "VACUUM", ddb.STATEMENT_TYPE_ANALYZE: "ANALYZE", ddb.STATEMENT_TYPE_PREPARE: "PREPARE",
		ddb.STATEMENT_TYPE_EXECUTE: "EXECUTE", ddb.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION",
		ddb.STATEMENT_TYPE_EXTENSION: "an extension statement",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return "this statement"
}

// classify turns a driver error into a *qeval.Error.
func (e *Executor) classify(ctx, qctx context.Context, err error) error {
	if ctx.Err() != nil || qctx.Err() != nil {
		if ctx.Err() != nil {
			return stopped(ctx, err)
		}
		if errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
		}
	}
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return err
	}
	msg := engineMessage(err)
	var de *ddb.Error
	if errors.As(err, &de) {
		switch de.Type {
		case ddb.ErrorTypeInterrupt:
			return &qeval.Error{Code: qeval.CodeCanceled, Message: "interrupted", Err: err}
		case ddb.ErrorTypeOutOfMemory:
			// DuckDB's advice after its message (raise memory_limit or
			// max_temp_directory_size, fewer threads) is for its own user: the caps are
			// the executor's
			msg, _, _ = strings.Cut(msg, "\n\nPossible solutions")
			what := "the memory cap"
			if m, _, ok := strings.Cut(msg, "\nThis limit was set by the 'max_temp_directory_size'"); ok {
				msg, what = strings.TrimSuffix(strings.TrimSpace(m), "."), "the memory cap and as much again spilled to disk"
			}
			return &qeval.Error{Code: qeval.CodeTooLarge, Message: "out of memory: the query needed more than " + what + " (" + msg + ")", Err: err}
		case ddb.ErrorTypePermission, ddb.ErrorTypeInvalidConfiguration:
			return &qeval.Error{Code: qeval.CodeForbidden, Message: msg + " (read-only executor without external access)", Err: err}
		}
		if strings.Contains(msg, "read-only") || strings.Contains(msg, "disabled by configuration") ||
			strings.Contains(msg, "external access") || strings.Contains(msg, "lock_configuration") {
			return &qeval.Error{Code: qeval.CodeForbidden, Message: msg, Err: err}
		}
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
}

// stopped names why a query stopped when its caller's context ended.
func stopped(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	}
	return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: err}
}

// engineMessage is DuckDB's own message, without the driver's prefixes.
func engineMessage(err error) string {
	var de *ddb.Error
	if errors.As(err, &de) {
		return strings.TrimSpace(de.Msg)
	}
	msg := err.Error()
	for _, p := range []string{"could not prepare query: ", "database/sql/driver: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return strings.TrimSpace(msg)
}
