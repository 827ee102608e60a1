package clickhouse

import (
	"context"
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

// Open connects to the database dsn names and checks that it answers.
func Open(dsn string, limits qeval.Limits) (*Executor, error) {
	opt, db, err := options(dsn)
	if err != nil {
		return nil, err
	}
	e := &Executor{dsn: MaskDSN(dsn), database: db, limits: limits.WithDefaults()}
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
		case 192, 193, 516: // UNKNOWN_USER, WRONG_PASSWORD, AUTHENTICATION_FAILED
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
	if err := ctx.Err(); err != nil {
		return nil, stopped(ctx, err)
	}
	qctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	secs := int(e.limits.Timeout / time.Second)
	if dl, ok := qctx.Deadline(); ok {
		secs = int(time.Until(dl)/time.Second) + 1
	}
	qctx = ch.Context(qctx, ch.WithSettings(ch.Settings{
		"readonly":           1,
		"max_execution_time": max(1, secs),
		"max_memory_usage":   int(e.limits.MaxBytes),
		"max_result_rows":    e.limits.MaxRows + 1,
	}))
	rs, err := e.run(qctx, q)
	if err != nil {
		return nil, e.classify(ctx, qctx, err)
	}
	return rs, nil
}

func (e *Executor) run(ctx context.Context, q string) (*qeval.ResultSet, error) {
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
	rs, err := e.Query(ctx, "SELECT table, name, type FROM system.columns WHERE database = currentDatabase() ORDER BY table")
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
