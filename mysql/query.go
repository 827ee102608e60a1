package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/internal/sqlguard"
)

// cleanupTimeout bounds the rollback after a query and the KILL QUERY of a stopped one.
const cleanupTimeout = 5 * time.Second

// Query runs one read-only statement and returns all its rows; see qeval.Executor.
//
// The statement runs inside START TRANSACTION READ ONLY, always rolled back, with the
// server's statement timeout (MariaDB max_statement_time, MySQL max_execution_time)
// set to what is left of the deadline (the smaller of ctx's deadline and
// Limits.Timeout). When ctx ends first, the connection is dropped and the statement
// killed on the server with KILL QUERY. Before that, a statement that is empty, holds
// several statements, does not start as a read (INSERT, DROP, SET, LOAD, ...), uses
// SELECT ... INTO or :=, or calls LOAD_FILE or GET_LOCK is refused without reaching
// the server. Errors are *qeval.Error: CodeQuery with the server's message and
// position for a failed query, CodeForbidden for a refused one, CodeTimeout or
// CodeCanceled when ctx or the timeout ends it, CodeTooLarge past Limits.MaxRows or
// Limits.MaxBytes, and CodeUnavailable when the server cannot be reached.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	end, err := check(query)
	if err != nil {
		return nil, err
	}
	// Without multi-statement support the server refuses a trailing semicolon; what
	// follows it is only whitespace and comments.
	return e.run(ctx, query[:end])
}

// run executes a checked (or trusted) statement on a pooled connection.
func (e *Executor) run(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if e.closed.Load() {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "query " + e.dsn, Message: "the executor is closed"}
	}
	if ctx.Err() != nil {
		return nil, sqlguard.Stopped(ctx)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancelTimeout()
	qctx, stop := context.WithCancel(tctx) // stop ends a query that went past a cap
	defer stop()

	conn, err := e.db.Conn(qctx)
	if err != nil {
		if tctx.Err() != nil {
			return nil, sqlguard.Stopped(ctx)
		}
		return nil, e.connectError(err)
	}
	rs, killed, err := e.exec(qctx, stop, conn, query)
	if killed || qctx.Err() != nil || !e.rollback(conn) {
		// The driver closed the connection when the context ended, or KILL QUERY may
		// still reach it: never reuse it.
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
	if err != nil {
		return nil, e.classify(ctx, tctx, query, err)
	}
	return rs, nil
}

// exec runs query in a read-only transaction on conn and fetches its rows within the
// caps. It leaves the transaction open for the caller to roll back, and reports
// whether it had the statement killed on the server.
func (e *Executor) exec(ctx context.Context, stop context.CancelFunc, conn *sql.Conn, query string) (rs *qeval.ResultSet, killed bool, err error) {
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return nil, false, err
	}
	if _, err := conn.ExecContext(ctx, e.timeoutStatement(ctx)); err != nil {
		return nil, false, err
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
		return nil, false, err
	}
	return e.fetch(ctx, stop, conn, id, query)
}

// fetch runs query on conn (whose connection id is id) and reads its rows within the
// caps; it reports whether it had the statement killed on the server.
func (e *Executor) fetch(ctx context.Context, stop context.CancelFunc, conn *sql.Conn, id int64, query string) (rs *qeval.ResultSet, killed bool, err error) {
	// The driver gives up on the connection when ctx ends; the server would go on
	// running the statement until its own timeout. Kill it.
	done := make(chan struct{})
	stopKill := context.AfterFunc(ctx, func() {
		defer close(done)
		e.kill(id)
	})
	defer func() {
		if !stopKill() {
			<-done
			killed = true
		}
	}()

	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, false, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, false, err
	}
	rs = &qeval.ResultSet{Columns: make([]qeval.Column, len(names))}
	for i, n := range names {
		rs.Columns[i] = qeval.Column{Name: n, Type: types[i].DatabaseTypeName()}
	}
	vals := make([]any, len(names))
	dest := make([]any, len(names))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var size int64
	for rows.Next() {
		if len(rs.Rows) >= e.limits.MaxRows {
			stop()
			return nil, false, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, false, err
		}
		row := make([]qeval.Value, len(vals))
		size += qeval.RowOverhead
		for i, v := range vals {
			size += qeval.ValueOverhead
			switch x := v.(type) {
			case []byte:
				size += int64(len(x))
			case string:
				size += int64(len(x))
			}
			row[i] = convert(rs.Columns[i].Type, v)
		}
		if size > e.limits.MaxBytes {
			stop()
			return nil, false, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d bytes (the byte cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return rs, false, nil
}

// timeoutStatement sets the server's statement timeout of the session to what is left
// of ctx's deadline.
func (e *Executor) timeoutStatement(ctx context.Context) string {
	ms := int64(1)
	if dl, ok := ctx.Deadline(); ok {
		ms = max(1, time.Until(dl).Milliseconds())
	}
	if e.mariadb {
		return fmt.Sprintf("SET SESSION max_statement_time = %d.%03d", ms/1000, ms%1000)
	}
	return "SET SESSION max_execution_time = " + strconv.FormatInt(ms, 10)
}

// kill stops the statement running on the connection with the given id, from another
// connection. Failures are ignored: the statement may have ended already, and the
// server's statement timeout is the backstop.
func (e *Executor) kill(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	e.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
}

// rollback ends the transaction of a query. It reports success.
func (e *Executor) rollback(conn *sql.Conn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, err := conn.ExecContext(ctx, "ROLLBACK")
	return err == nil
}

// classify turns an error of run into an *qeval.Error.
func (e *Executor) classify(ctx, tctx context.Context, query string, err error) error {
	var qe *qeval.Error
	if errors.As(err, &qe) && qe.Code != "" {
		return err
	}
	if tctx.Err() != nil {
		return sqlguard.Stopped(ctx)
	}
	var myErr *gomysql.MySQLError
	if errors.As(err, &myErr) {
		return e.queryError(query, myErr)
	}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: "query " + e.dsn, Message: "connection lost: " + e.scrub(err.Error()), Err: err}
}

// queryError is the server's error about a query, with the position of a syntax
// error as line and column of the query.
func (e *Executor) queryError(query string, myErr *gomysql.MySQLError) error {
	qe := &qeval.Error{Code: qeval.CodeQuery, Message: e.scrub(myErr.Message), Err: myErr}
	switch myErr.Number {
	case 1064: // ER_PARSE_ERROR
		qe.Line, qe.Col = syntaxPosition(query, myErr.Message)
	case 1969, 3024: // MariaDB max_statement_time, MySQL max_execution_time exceeded
		qe.Code, qe.Message = qeval.CodeTimeout, "query timed out"
	case 1317: // ER_QUERY_INTERRUPTED: killed, though not by this executor
		qe.Code, qe.Message = qeval.CodeCanceled, "query canceled"
	case 1792, 1142, 1143, 1044, 1227, 1370: // read-only transaction, access denied
		qe.Code, qe.Message = qeval.CodeForbidden, "forbidden: "+qe.Message
	case 1038, 1041, 1114, 1104: // out of memory, table full, too many rows to examine
		qe.Code = qeval.CodeTooLarge
	}
	return qe
}

var nearLine = lazyregexp.New(`(?s)near '(.*)' at line (\d+)$`)

// syntaxPosition finds where a syntax error is from the server's message, which quotes
// the query from the error on ("... near 'FORM t' at line 1"). It returns 0, 0 when it
// cannot tell.
func syntaxPosition(query, msg string) (line, col int) {
	m := nearLine.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0
	}
	near := m[1]
	want, _ := strconv.Atoi(m[2])
	if near == "" {
		return position(query, len(query))
	}
	// Search from the start of the line the server names.
	off := 0
	for l := 1; l < want; l++ {
		k := strings.IndexByte(query[off:], '\n')
		if k < 0 {
			break
		}
		off += k + 1
	}
	if k := strings.Index(query[off:], near); k >= 0 {
		return position(query, off+k)
	}
	return want, 0
}
