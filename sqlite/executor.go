package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
)

var _ qeval.Executor = (*Executor)(nil)
var _ qeval.SchemaReader = (*Executor)(nil)

// Executor runs untrusted read-only queries on one SQLite file. It is safe for
// concurrent use; each query takes one of up to MaxConns pooled connections.
type Executor struct {
	path    string
	limits  qeval.Limits
	db      *sql.DB
	sandbox *sandboxMode // a sandbox copy's
}

// Open opens the SQLite database file at path for reading. The file must exist and be
// a SQLite database; nothing the executor runs can change it.
func Open(path string, limits qeval.Limits) (*Executor, error) {
	return OpenConns(path, limits, runtime.GOMAXPROCS(0))
}

// Opener is Open as a qeval.Opener.
func Opener(path string, limits qeval.Limits) (qeval.Executor, error) { return Open(path, limits) }

// OpenConns is Open with a bound on pooled connections (at least 1).
func OpenConns(path string, limits qeval.Limits, maxConns int) (*Executor, error) {
	return OpenWith(path, limits, maxConns, Options{})
}

// Options are the extras of OpenWith.
type Options struct {
	// Funcs and Aggregates are Go functions registered on each new connection before
	// the sandbox is installed; queries may then call them. The KQL engine installs its
	// run-time library this way, without importing the driver.
	Funcs      []Func
	Aggregates []Aggregate
	// ReverseScanOrder makes SQLite return the rows of an unordered scan in the
	// reverse of its usual order (PRAGMA reverse_unordered_selects): a query whose
	// result changes under it depends on the engine's scan order.
	ReverseScanOrder bool
	// AsOfficial refuses, as "no such function", the functions SQLite gained after
	// 3.40 (see newerFunctions): the official Spider and BIRD evaluators run
	// predictions on Python's sqlite3, SQLite 3.40 on Debian 12, where a prediction
	// calling concat() is an error; their drop-ins score it the same.
	AsOfficial bool
	// TempInMemory keeps SQLite's temporary B-trees (materialized stages, sorts,
	// DISTINCT, GROUP BY) in memory instead of spilling them to temporary files
	// (PRAGMA temp_store = MEMORY): the memory cap still bounds them, and a query
	// that needs more fails as too large instead of writing to disk.
	TempInMemory bool
	// PlainSums computes sum, total and avg as SQLite 3.40 did, adding floats one by
	// one in scan order (see plainSums): with ReverseScanOrder, a sum whose last digits
	// depend on the order of the rows changes.
	PlainSums bool

	// sandbox, when set, opens the file as a writable sandbox copy (sandbox.go).
	sandbox *sandboxMode
}

// OfficialOpener opens a SQLite file as the official evaluators' drop-ins need it:
// Open with AsOfficial.
func OfficialOpener(path string, limits qeval.Limits) (qeval.Executor, error) {
	return OpenWith(path, limits, runtime.GOMAXPROCS(0), Options{AsOfficial: true})
}

// Func is a scalar SQL function implemented in Go. Impl is a Go function whose
// arguments and results the driver converts (int64, float64, string, []byte, bool, any,
// variadic ...any; an optional trailing error result); Pure marks it deterministic so
// SQLite may fold repeated calls.
type Func struct {
	Name string
	Impl any
	Pure bool
}

// Aggregate is an aggregate SQL function implemented in Go. New returns a fresh value
// with Step(args...) and Done() (result, error?) methods, one per group.
type Aggregate struct {
	Name string
	New  any
	Pure bool
}

// register installs the options' functions on one connection.
func (o Options) register(sc *sqlite3.SQLiteConn) error {
	for _, f := range o.Funcs {
		if err := sc.RegisterFunc(f.Name, f.Impl, f.Pure); err != nil {
			return fmt.Errorf("register function %s: %w", f.Name, err)
		}
	}
	aggs := o.Aggregates
	if o.PlainSums {
		aggs = append(append([]Aggregate(nil), aggs...), plainSums...)
	}
	for _, a := range aggs {
		if err := sc.RegisterAggregator(a.Name, a.New, a.Pure); err != nil {
			return fmt.Errorf("register aggregate %s: %w", a.Name, err)
		}
	}
	return nil
}

// OpenWith is OpenConns with Options.
func OpenWith(path string, limits qeval.Limits, maxConns int, opt Options) (*Executor, error) {
	if err := checkFile(path); err != nil && opt.sandbox == nil {
		return nil, err
	}
	// Connections opened from now on can count VM steps (see VMSteps).
	if err := installVMSteps(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: err.Error(), Err: err}
	}
	if err := installMemoryCap(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open database " + path, Message: err.Error(), Err: err}
	}
	limits = limits.WithDefaults()
	setMemoryCap(limits.MaxBytes)
	if maxConns < 1 {
		maxConns = 1
	}
	c := &connector{dsn: dsn(path), limits: limits, functions: opt}
	if opt.sandbox != nil {
		c.dsn = opt.sandbox.dsn
	}
	c.drv = &sqlite3.SQLiteDriver{ConnectHook: c.hook}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	e := &Executor{path: path, limits: limits, db: db, sandbox: opt.sandbox}
	// Open one connection now so a broken file is reported by Open, not by the first query.
	if err := db.PingContext(context.Background()); err != nil {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: cleanMessage(err.Error()), Err: err}
	}
	return e, nil
}

// Path returns the database file.
func (e *Executor) Path() string { return e.path }

// Close closes every pooled connection.
func (e *Executor) Close() error { return e.db.Close() }

func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &qeval.Error{Code: qeval.CodeNotFound, Op: "open database " + path, Message: "no such file", Err: err}
		}
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: err.Error(), Err: err}
	}
	defer f.Close()
	var head [16]byte
	n, _ := io.ReadFull(f, head[:])
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: "is a directory, not a SQLite file"}
	}
	if n < 16 || string(head[:]) != "SQLite format 3\x00" {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: "not a SQLite database (bad header)"}
	}
	return nil
}

// dsn opens the file read-only and immutable: SQLite takes no locks and writes no
// journal, and an ordinary write fails even before the authorizer would refuse it.
func dsn(path string) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Set("_mutex", "no")
	q.Set("_query_only", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// connector opens connections for one Executor, each with the sandbox installed.
type connector struct {
	dsn       string
	limits    qeval.Limits
	drv       *sqlite3.SQLiteDriver
	functions Options
}

func (c *connector) Driver() driver.Driver { return c.drv }

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if m := c.functions.sandbox; m != nil && m.oneConn {
		if m.connected {
			return nil, &qeval.Error{Code: qeval.CodeInternal, Message: "the reused sandbox copy's connection was lost"}
		}
		m.connected = true
	}
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc := dc.(*sqlite3.SQLiteConn)
	cn := &conn{SQLiteConn: sc, official: c.functions.AsOfficial, sandbox: c.functions.sandbox != nil, mode: c.functions.sandbox}
	sc.RegisterAuthorizer(cn.authorize)
	return cn, nil
}

// hook runs once per new connection, before the authorizer is installed.
func (c *connector) hook(sc *sqlite3.SQLiteConn) error {
	// the memory cap, on this connection only (see memcap.go)
	if _, err := sc.Exec("SELECT "+memoryFunc+"()", nil); err != nil {
		return err
	}
	sc.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	// No single string or blob may be larger than a tenth of the memory cap.
	maxLen := c.limits.MaxBytes / 10
	if maxLen > 1_000_000_000 {
		maxLen = 1_000_000_000
	}
	sc.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, int(maxLen))
	if m := c.functions.sandbox; m != nil {
		if err := m.setUp(sc); err != nil {
			return err
		}
	}
	if c.functions.TempInMemory {
		if _, err := sc.Exec("PRAGMA temp_store = MEMORY", nil); err != nil {
			return err
		}
	}
	if c.functions.ReverseScanOrder {
		if _, err := sc.Exec("PRAGMA reverse_unordered_selects = ON", nil); err != nil {
			return err
		}
	}
	return c.functions.register(sc)
}

// conn is a driver connection with the authorizer's state: why the last statement was
// denied, and (while asked) which columns it read.
type conn struct {
	*sqlite3.SQLiteConn
	denied string
	// missing is a function the statement called that SQLite 3.40 lacks (official)
	missing  string
	official bool
	math     bool   // the math functions are registered
	stmt     string // the statement being prepared, for messages
	trusted  bool
	reads    [][2]string
	// stepsArmed lets the next call of qeval_vm_steps through the authorizer, once.
	stepsArmed bool
	// setup lets qeval's own set-up through (a reused copy's reset, pool.go)
	setup bool
	// handle is the connection's C handle, once asked for (pool.go)
	handle int64
	// sandbox: the connection is a sandbox copy's, where writes to its own tables are
	// allowed (sandboxAllows); mode is the copy's
	sandbox bool
	mode    *sandboxMode
}

// Query runs one read-only statement; see qeval.Executor.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	stmt, err := single(query)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	var rs *qeval.ResultSet
	err = e.raw(ctx, stmt, func(c *conn) error {
		var qerr error
		rs, qerr = e.query(ctx, c, stmt)
		return qerr
	})
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	return rs, nil
}

// raw runs f on a pooled connection, to run stmt ("" for the executor's own).
func (e *Executor) raw(ctx context.Context, stmt string, f func(c *conn) error) error {
	sc, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer sc.Close()
	return sc.Raw(func(dc any) error {
		c := dc.(*conn)
		c.denied, c.missing = "", ""
		if m := e.sandbox; m != nil && m.pooled && !m.control && m.lost {
			// the side runs again in a fresh copy (see pool.go)
			return errLost
		}
		if !c.math && callsMath(stmt) {
			// registering them costs more than most queries: only when one is called
			if err := (Options{Funcs: mathFuncs}).register(c.SQLiteConn); err != nil {
				return &qeval.Error{Code: qeval.CodeInternal, Message: err.Error(), Err: err}
			}
			c.math = true
		}
		return f(c)
	})
}

// single checks that query holds exactly one statement and returns it without its
// terminating semicolon.
func single(query string) (string, error) {
	if isBlank(query) {
		return "", &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	stmt, next := firstStatement(query)
	if next >= 0 {
		line, col := position(query, next)
		return "", &qeval.Error{Code: qeval.CodeQuery, Line: line, Col: col,
			Message: fmt.Sprintf("multiple statements: only one statement may run, found another at line %d, column %d", line, col)}
	}
	return stmt, nil
}

// query runs the statement and fetches its rows within the caps.
func (e *Executor) query(ctx context.Context, c *conn, stmt string) (*qeval.ResultSet, error) {
	c.stmt = stmt
	// Only the first statement goes to the driver: given a tail (even a comment after
	// the semicolon), the driver would run it too and return its rows instead.
	rows, err := c.QueryContext(ctx, stmt, nil)
	if err != nil {
		return nil, c.explain(err)
	}
	srows := rows.(*sqlite3.SQLiteRows)
	names := srows.Columns()
	decl := srows.DeclTypes()
	if needsRaw(decl) && (!c.sandbox || readOnly(ctx, c, stmt)) {
		// The driver turns values of DATE/DATETIME/TIMESTAMP/BOOLEAN columns into Go
		// times and booleans, losing the stored value. Run the statement again with
		// every result column wrapped in unary plus, which keeps the value but drops
		// the declared type.
		rows.Close()
		rows, err = c.QueryContext(ctx, rawQuery(stmt, len(names)), nil)
		if err != nil {
			return nil, c.explain(err)
		}
	}
	defer rows.Close()
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(names))}
	for i, n := range names {
		rs.Columns[i] = qeval.Column{Name: n, Type: strings.ToUpper(decl[i])}
	}
	dest := make([]driver.Value, len(names))
	var size int64
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			return nil, c.explain(err)
		}
		if len(rs.Rows) >= e.limits.MaxRows {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		row := make([]qeval.Value, len(dest))
		size += qeval.RowOverhead
		for i, v := range dest {
			row[i] = toValue(v)
			size += qeval.ValueOverhead + int64(len(row[i].Str))
		}
		if size > e.limits.MaxBytes {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d bytes (the memory cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

func needsRaw(decl []string) bool {
	for _, d := range decl {
		switch d {
		case "date", "datetime", "timestamp", "boolean":
			return true
		}
	}
	return false
}

// rawQuery wraps stmt so that its result columns lose their declared types. The
// newline keeps a trailing line comment of stmt from swallowing the closing paren.
func rawQuery(stmt string, n int) string {
	var b strings.Builder
	b.WriteString("WITH _qeval_raw(")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", i)
	}
	b.WriteString(") AS (\n")
	b.WriteString(stmt)
	b.WriteString("\n) SELECT ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "+c%d", i)
	}
	b.WriteString(" FROM _qeval_raw")
	return b.String()
}

// toValue converts one driver value. Text is decoded as UTF-8 with invalid bytes
// dropped, as the official Spider evaluator decodes it.
func toValue(v driver.Value) qeval.Value {
	switch t := v.(type) {
	case nil:
		return qeval.Null
	case int64:
		return qeval.Int(t)
	case float64:
		return qeval.Float(t)
	case string:
		if !utf8.ValidString(t) {
			t = strings.ToValidUTF8(t, "")
		}
		return qeval.Text(t)
	case []byte:
		// go-sqlite3 copies every blob out of SQLite into a new slice (C.GoBytes) and
		// never touches it again: the value takes it over (TestQuery_BlobsKeepTheirBytes)
		return qeval.OwnedBytes(t)
	case bool:
		return qeval.Bool(t)
	case time.Time:
		return qeval.Time(t)
	}
	return qeval.Text(fmt.Sprint(v))
}

// explain turns a driver error into a typed one, with the authorizer's reason when
// the statement was denied.
func (c *conn) explain(err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err // classify names it
		}
		msg := cleanMessage(err.Error())
		if strings.Contains(msg, "not enough args") {
			msg = "the query has parameters (?, :name, @name, $name) and nothing binds them"
		}
		// anything else the driver says about running the query is about the query
		return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
	}
	msg := cleanMessage(err.Error())
	if c.missing != "" && (se.Code == sqlite3.ErrAuth || strings.Contains(msg, "not authorized")) {
		return &qeval.Error{Code: qeval.CodeQuery, Err: err, Message: "no such function: " + c.missing +
			" (SQLite 3.40, which the official evaluators run predictions on, does not have it)"}
	}
	switch se.Code {
	case sqlite3.ErrAuth:
		return &qeval.Error{Code: qeval.CodeForbidden, Message: c.deniedMessage(msg), Err: err}
	case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrPerm:
		if c.sandbox {
			return &qeval.Error{Code: qeval.CodeForbidden, Message: msg + ": " + sandboxReason, Err: err}
		}
		return &qeval.Error{Code: qeval.CodeForbidden, Message: msg + ": the executor is read-only", Err: err}
	case sqlite3.ErrFull:
		return &qeval.Error{Code: qeval.CodeTooLarge, Message: "the sandbox copy is full: the statements grew it past its size bound", Err: err}
	case sqlite3.ErrNomem:
		return &qeval.Error{Code: qeval.CodeTooLarge, Message: "out of memory: the query needed more than the memory cap", Err: err}
	case sqlite3.ErrTooBig:
		return &qeval.Error{Code: qeval.CodeTooLarge, Message: msg + " (the size cap for one value)", Err: err}
	case sqlite3.ErrInterrupt:
		// the context's end (classify names it), or else the memory cap (memcap.go)
		return &qeval.Error{Code: qeval.CodeTooLarge, Message: "out of memory: the query needed more than the memory cap", Err: err}
	}
	if strings.Contains(msg, "not authorized") || strings.Contains(msg, "may not be modified") {
		return &qeval.Error{Code: qeval.CodeForbidden, Message: c.deniedMessage(msg), Err: err}
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
}

// classify names why a query stopped when its context ended, else keeps err.
func (e *Executor) classify(ctx context.Context, err error) error {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	case context.Canceled:
		return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: err}
	}
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return err
	}
	return &qeval.Error{Code: qeval.CodeInternal, Message: err.Error(), Err: err}
}

// cleanMessage keeps the engine's message for the user.
func cleanMessage(s string) string { return strings.TrimSpace(s) }

// FromEngine reports whether err (as an Executor returns it) was raised by the SQLite
// library while running the statement, rather than by qeval before or around it, so a
// caller that generated the SQL can tell a fault in its own translation.
func FromEngine(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se)
}
