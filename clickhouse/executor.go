package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/qeval/qeval"
)

var (
	_ qeval.Executor     = (*Executor)(nil)
	_ qeval.SchemaReader = (*Executor)(nil)
)

// Executor runs read-only queries on one ClickHouse database. It is safe for
// concurrent use.
type Executor struct {
	dsn      string // masked
	database string
	user     string
	limits   qeval.Limits
	conn     ch.Conn
	closed   atomic.Bool
}

// IsTarget reports whether a target names a ClickHouse database.
func IsTarget(target string) bool {
	return strings.HasPrefix(strings.ToLower(target), "clickhouse://")
}

// MaskDSN returns dsn with its password replaced by xxxxx.
func MaskDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "clickhouse://xxxxx"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// options reads a clickhouse:// URL: host and port (9000 by default), user (default),
// password and database (default).
func options(dsn string) (*ch.Options, string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "clickhouse" || u.Host == "" {
		return nil, "", &qeval.Error{Code: qeval.CodeInvalid, Op: "open clickhouse", Message: "invalid dsn " + MaskDSN(dsn),
			Hint: "write the DSN as clickhouse://user:password@host:9000/database"}
	}
	host := u.Host
	if u.Port() == "" {
		host += ":9000"
	}
	user, pass := "default", ""
	if u.User != nil {
		user = u.User.Username()
		pass, _ = u.User.Password()
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = "default"
	}
	return &ch.Options{Addr: []string{host}, Auth: ch.Auth{Database: db, Username: user, Password: pass},
		Protocol: ch.Native, DialTimeout: 10 * time.Second}, db, nil
}

// Open connects to the database dsn names and checks that it answers, and refuses a
// user that may read every database or write (see OpenWith).
func Open(dsn string, limits qeval.Limits) (*Executor, error) {
	return OpenWith(dsn, limits, Options{})
}

// OpenWith is Open with options: unless opt.AllowPrivileged, a user that may do more
// than read the evaluation databases is refused with CodeForbidden and a hint that says
// how to make one that may not (see checkUser).
func OpenWith(dsn string, limits qeval.Limits, o Options) (*Executor, error) {
	opt, db, err := options(dsn)
	if err != nil {
		return nil, err
	}
	e := &Executor{dsn: MaskDSN(dsn), database: db, user: opt.Auth.Username, limits: limits.WithDefaults()}
	opt.DialTimeout = min(opt.DialTimeout, e.limits.Timeout)
	opt.ReadTimeout = e.limits.Timeout + 10*time.Second
	conn, err := ch.Open(opt)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open " + e.dsn, Message: err.Error(), Err: err}
	}
	e.conn = conn
	ctx, cancel := context.WithTimeout(context.Background(), e.limits.Timeout)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		conn.Close()
		return nil, e.connectError(err)
	}
	if !o.AllowPrivileged {
		if err := e.checkUser(ctx); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return e, nil
}

// Close closes the connections; calling it again does nothing.
func (e *Executor) Close() error {
	if e == nil || e.conn == nil || e.closed.Swap(true) {
		return nil
	}
	return e.conn.Close()
}

func (e *Executor) connectError(err error) error {
	code := qeval.CodeUnavailable
	var ex *ch.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case 81: // UNKNOWN_DATABASE
			code = qeval.CodeNotFound
		case 192, 193, 194, 516: // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, AUTHENTICATION_FAILED
			code = qeval.CodeInvalid
		}
		return &qeval.Error{Code: code, Op: "connect " + e.dsn, Message: ex.Message, Err: err}
	}
	return &qeval.Error{Code: code, Op: "connect " + e.dsn, Message: err.Error(),
		Hint: "check that the server is running there (native protocol, port 9000) and that the user and database are right", Err: err}
}

// Query runs one read-only statement and returns its rows; see qeval.Executor.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if e.closed.Load() {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "query " + e.dsn, Message: "the executor is closed"}
	}
	q := strings.TrimSpace(query)
	for strings.HasSuffix(q, ";") {
		q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	}
	if q == "" {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	if err := checkStatement(q); err != nil {
		return nil, err
	}
	return e.query(ctx, q)
}

// query runs a checked (or trusted) statement.
func (e *Executor) query(ctx context.Context, q string) (*qeval.ResultSet, error) {
	if err := ctx.Err(); err != nil {
		return nil, stopped(ctx, err)
	}
	qctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	kctx, stop := context.WithCancel(qctx) // stop ends a query that went past a cap
	defer stop()
	secs := int(e.limits.Timeout / time.Second)
	if dl, ok := qctx.Deadline(); ok {
		secs = int(time.Until(dl)/time.Second) + 1
	}
	id := queryID()
	rctx := ch.Context(kctx, ch.WithQueryID(id), ch.WithSettings(ch.Settings{
		"readonly":           1,
		"max_execution_time": max(1, secs),
		"max_memory_usage":   int(e.limits.MaxBytes),
		"max_result_rows":    e.limits.MaxRows + 1,
	}))
	// The client sends a cancel packet and drops the connection when the context ends;
	// old servers (18.16) do not read it and go on running the query until their own
	// max_execution_time, or longer. Kill it by its id before returning.
	killed := make(chan struct{})
	stopKill := context.AfterFunc(kctx, func() {
		defer close(killed)
		e.kill(id)
	})
	rs, err := e.run(rctx, stop, q)
	var ex *ch.Exception
	if err != nil && !errors.As(err, &ex) {
		// The client gave up on the query without the server ending it: the read
		// deadline, which the client sets from the context's, can pass a moment before
		// the context ends.
		stop()
	}
	if !stopKill() {
		<-killed
	}
	if err != nil {
		return nil, e.classify(ctx, qctx, err)
	}
	return rs, nil
}

// cleanupTimeout bounds the KILL QUERY of a stopped query.
const cleanupTimeout = 5 * time.Second

// queryID returns a new query id, unique on the server.
func queryID() string {
	var b [16]byte
	rand.Read(b[:])
	return "qeval-" + hex.EncodeToString(b[:])
}

// kill stops the query with the given id on the server, from another connection, and
// waits until the server no longer lists it: KILL QUERY … SYNC can report it finished
// a moment before it leaves system.processes. Failures are ignored: the query may have
// ended already, and the server's max_execution_time is the backstop.
func (e *Executor) kill(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := e.conn.Exec(ctx, "KILL QUERY WHERE query_id = '"+id+"' SYNC"); err != nil {
		return
	}
	for {
		var n uint64
		if err := e.conn.QueryRow(ctx, "SELECT count() FROM system.processes WHERE query_id = '"+id+"'").Scan(&n); err != nil || n == 0 {
			return
		}
		t := time.NewTimer(2 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// run executes q and fetches its rows within the caps, calling stop (which kills the
// query on the server) when a cap is passed.
func (e *Executor) run(ctx context.Context, stop context.CancelFunc, q string) (*qeval.ResultSet, error) {
	rows, err := e.conn.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := rows.ColumnTypes()
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(types))}
	dest := make([]any, len(types))
	for i, t := range types {
		rs.Columns[i] = qeval.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
		dest[i] = reflect.New(t.ScanType()).Interface()
	}
	var size int64
	for rows.Next() {
		if len(rs.Rows) >= e.limits.MaxRows {
			stop()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]qeval.Value, len(dest))
		size += qeval.RowOverhead
		for i, d := range dest {
			row[i] = convert(reflect.ValueOf(d).Elem().Interface())
			size += qeval.ValueOverhead + int64(len(row[i].Str))
		}
		if size > e.limits.MaxBytes {
			stop()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: fmt.Sprintf("result too large: more than %d bytes (the byte cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// classify turns a client or server error into a *qeval.Error.
func (e *Executor) classify(ctx, qctx context.Context, err error) error {
	if ctx.Err() != nil {
		return stopped(ctx, err)
	}
	if errors.Is(qctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		// the client's read deadline is the context's: it can fire a moment first
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	}
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return err
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		msg := ex.Message
		switch ex.Code {
		case 164: // READONLY
			return &qeval.Error{Code: qeval.CodeForbidden, Message: msg + " (read-only executor)", Err: err}
		case 159: // TIMEOUT_EXCEEDED
			return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out: " + msg, Err: err}
		case 241: // MEMORY_LIMIT_EXCEEDED
			return &qeval.Error{Code: qeval.CodeTooLarge, Message: "out of memory: " + msg, Err: err}
		case 396: // TOO_MANY_ROWS_OR_BYTES
			return &qeval.Error{Code: qeval.CodeTooLarge, Message: "result too large: " + msg, Err: err}
		case 394: // QUERY_WAS_CANCELLED
			return &qeval.Error{Code: qeval.CodeCanceled, Message: msg, Err: err}
		case 62:
			if strings.Contains(msg, "Multi-statements") {
				return &qeval.Error{Code: qeval.CodeForbidden, Message: "multiple statements in one query: only one read-only SELECT runs", Err: err}
			}
		}
		return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
	}
	msg := err.Error()
	if strings.Contains(msg, "connection refused") || strings.Contains(msg, "EOF") || strings.Contains(msg, "broken pipe") {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "query " + e.dsn, Message: msg, Err: err}
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Err: err}
}

func stopped(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	}
	return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: err}
}

// Schema returns the tables of the database and their columns, in order.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	if e.closed.Load() {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "query " + e.dsn, Message: "the executor is closed"}
	}
	rs, err := e.query(ctx, "SELECT table, name, type FROM system.columns WHERE database = currentDatabase() ORDER BY table")
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", e.dsn, err)
	}
	s := &qeval.Schema{}
	for _, row := range rs.Rows {
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != row[0].Str {
			s.Tables = append(s.Tables, qeval.TableSchema{Name: row[0].Str})
		}
		t := &s.Tables[len(s.Tables)-1]
		t.Columns = append(t.Columns, qeval.Column{Name: row[1].Str, Type: row[2].Str})
	}
	return s, nil
}
