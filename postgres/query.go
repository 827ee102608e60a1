package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/sqlguard"
)

// cleanupTimeout bounds the rollback after a query and the closing of a connection.
const cleanupTimeout = 5 * time.Second

// Query runs one read-only statement and returns all its rows; see qeval.Executor.
//
// The statement runs inside a READ ONLY transaction that is always rolled back, with
// SET LOCAL statement_timeout set to what is left of the deadline (the smaller of
// ctx's deadline and Limits.Timeout). Before that, a statement that is empty, holds
// several statements, does not start as a read (INSERT, DROP, SET, COPY, ...), or calls
// a function that reaches outside the database (pg_read_file, lo_import, dblink, ...)
// is refused without reaching the server. Errors are *qeval.Error: CodeQuery with the
// server's message, hint and position for a failed query, CodeForbidden for a refused
// one, CodeTimeout or CodeCanceled when ctx or the timeout ends it, CodeTooLarge past
// Limits.MaxRows or Limits.MaxBytes, and CodeUnavailable when the server cannot be
// reached.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if err := check(query); err != nil {
		return nil, err
	}
	if e.guard != nil {
		if err := e.guard(query); err != nil {
			return nil, err
		}
	}
	return e.run(ctx, query)
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

	c, err := e.pool.Acquire(qctx)
	if err != nil {
		if tctx.Err() != nil {
			return nil, sqlguard.Stopped(ctx)
		}
		return nil, e.connectError(err)
	}
	rs, err := e.exec(qctx, stop, c.Conn(), query)
	// A connection whose context ended may still receive the cancel request meant for
	// this query; never reuse it.
	if qctx.Err() != nil || !e.rollback(c.Conn()) {
		e.discard(c)
	} else {
		c.Release()
	}
	if err != nil {
		return nil, e.classify(ctx, tctx, query, err)
	}
	return rs, nil
}

// exec runs query in a read-only transaction on conn and fetches its rows within the
// caps. It leaves the transaction open for the caller to roll back.
func (e *Executor) exec(ctx context.Context, stop context.CancelFunc, conn *pgx.Conn, query string) (*qeval.ResultSet, error) {
	pc := conn.PgConn()
	ms := int64(1)
	if dl, ok := ctx.Deadline(); ok {
		ms = max(1, time.Until(dl).Milliseconds())
	}
	begin := "BEGIN READ ONLY; SET LOCAL statement_timeout = " + strconv.FormatInt(ms, 10)
	if _, err := pc.Exec(ctx, begin).ReadAll(); err != nil {
		return nil, err
	}
	return e.fetch(ctx, stop, conn, query)
}

// fetch runs query on conn (in whatever transaction it is in) and reads its rows
// within the caps.
func (e *Executor) fetch(ctx context.Context, stop context.CancelFunc, conn *pgx.Conn, query string) (*qeval.ResultSet, error) {
	pc := conn.PgConn()
	rr := pc.ExecParams(ctx, query, nil, nil, nil, nil)
	fields := rr.FieldDescriptions()
	m := conn.TypeMap()
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(fields))}
	oids := make([]uint32, len(fields))
	for i, f := range fields {
		oids[i] = f.DataTypeOID
		rs.Columns[i] = qeval.Column{Name: f.Name, Type: e.typeName(m, f.DataTypeOID)}
	}
	var size int64
	for rr.NextRow() {
		if len(rs.Rows) >= e.limits.MaxRows {
			stop()
			rr.Close()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d rows (the row cap)", e.limits.MaxRows)}
		}
		vals := rr.Values()
		row := make([]qeval.Value, len(vals))
		size += qeval.RowOverhead
		for i, raw := range vals {
			size += qeval.ValueOverhead + int64(len(raw))
			if i < len(oids) {
				row[i] = convert(m, oids[i], raw)
			}
		}
		if size > e.limits.MaxBytes {
			stop()
			rr.Close()
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("result too large: more than %d bytes (the byte cap)", e.limits.MaxBytes)}
		}
		rs.Rows = append(rs.Rows, row)
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	e.resolveTypes(ctx, pc, rs, oids)
	return rs, nil
}

// rollback ends the transaction of a query and releases any session-level advisory
// lock, so the connection goes back to the pool as it came. It reports success.
func (e *Executor) rollback(conn *pgx.Conn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, err := conn.PgConn().Exec(ctx, "ROLLBACK; SELECT pg_catalog.pg_advisory_unlock_all()").ReadAll()
	return err == nil && conn.PgConn().TxStatus() == 'I'
}

// discard takes c out of the pool and closes it.
func (e *Executor) discard(c *pgxpool.Conn) {
	conn := c.Hijack()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn.Close(ctx)
}

// typeName names a result column's type, from pgx's table or from the names read
// from pg_type earlier ("" until then).
func (e *Executor) typeName(m *pgtype.Map, oid uint32) string {
	if name := typeName(m, oid); name != "" {
		return name
	}
	if name, ok := e.types.Load(oid); ok {
		return name.(string)
	}
	return ""
}

// resolveTypes names the column types pgx does not know (enums, domains, extension
// types) from pg_type, in the query's transaction, and remembers them. A failure
// leaves the names empty: they are informative only.
func (e *Executor) resolveTypes(ctx context.Context, pc *pgconn.PgConn, rs *qeval.ResultSet, oids []uint32) {
	var missing []string
	for i, c := range rs.Columns {
		if c.Type == "" {
			missing = append(missing, strconv.FormatUint(uint64(oids[i]), 10))
		}
	}
	if len(missing) == 0 {
		return
	}
	q := "SELECT oid, typname FROM pg_catalog.pg_type WHERE oid IN (" + strings.Join(missing, ", ") + ")"
	res := pc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return
	}
	for _, row := range res.Rows {
		if oid, err := strconv.ParseUint(string(row[0]), 10, 32); err == nil {
			e.types.Store(uint32(oid), string(row[1]))
		}
	}
	for i := range rs.Columns {
		if rs.Columns[i].Type == "" {
			if name, ok := e.types.Load(oids[i]); ok {
				rs.Columns[i].Type = name.(string)
			}
		}
	}
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
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return e.queryError(query, pgErr)
	}
	return &qeval.Error{Code: qeval.CodeUnavailable, Op: "query " + e.dsn, Message: "connection lost: " + e.scrub(err.Error()), Err: err}
}

// queryError is the server's error about a query, with its position as line and
// column of the query.
func (e *Executor) queryError(query string, pgErr *pgconn.PgError) error {
	qe := &qeval.Error{Code: qeval.CodeQuery, Message: e.scrub(pgErr.Message), Hint: e.scrub(pgErr.Hint), Err: pgErr}
	if pgErr.Position > 0 {
		qe.Line, qe.Col = charPosition(query, int(pgErr.Position))
	}
	switch {
	case pgErr.Code == "57014" && strings.Contains(pgErr.Message, "statement timeout"): // query_canceled
		qe.Code, qe.Message = qeval.CodeTimeout, "query timed out"
	case pgErr.Code == "57014":
		qe.Code, qe.Message = qeval.CodeCanceled, "query canceled"
	case pgErr.Code == "25006" || pgErr.Code == "42501": // read_only_sql_transaction, insufficient_privilege
		qe.Code, qe.Message = qeval.CodeForbidden, "forbidden: "+qe.Message
		if qe.Hint == "" {
			qe.Hint = "generated queries run read-only: data-changing statements are refused"
		}
	case pgErr.Code == "53200" || pgErr.Code == "53400" || pgErr.Code == "54000": // out of memory, configuration or program limit
		qe.Code = qeval.CodeTooLarge
	}
	return qe
}

// charPosition turns a 1-based character position of query, as the server reports
// it, into a 1-based line and column.
func charPosition(query string, pos int) (line, col int) {
	line, col = 1, 1
	n := 1
	for _, r := range query {
		if n >= pos {
			break
		}
		n++
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
