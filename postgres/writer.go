package postgres

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

var _ qeval.TableSink = (*Writer)(nil)

// ReaderRole is the role a mirror's copies are read as: it may log in and read the
// mirrored schemas, nothing more (see RoleSetupSQL).
const ReaderRole = "qeval_reader"

// Writer fills a new schema with copied tables (qeval mirror); it implements
// qeval.TableSink. Everything is written in one transaction: Close grants ReaderRole
// read access and commits, Abort rolls back, so a failed copy leaves no schema behind.
// It needs an administrator that may create schemas and roles, and never runs a
// generated query.
type Writer struct {
	conn   *pgx.Conn
	tx     pgx.Tx
	schema string
	target string
}

// CreateSchema starts the copy into schema name (lower-cased) of the database admin names, dropping
// a schema of that name first when replace is set, else refusing it. Target is then the
// DSN that reads the copy: ReaderRole, with the schema as its search_path.
func CreateSchema(ctx context.Context, admin, name string, replace bool) (*Writer, error) {
	name = ident(name) // search_path folds an unquoted name to lower case
	op := "create schema " + name + " on " + MaskDSN(admin)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(admin), Message: scrub(err.Error(), admin), Err: err}
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", name).Scan(&exists); err != nil {
		conn.Close(context.Background())
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: scrub(err.Error(), admin), Err: err}
	}
	if exists && !replace {
		conn.Close(context.Background())
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the schema exists", Hint: "drop it, or mirror with --replace"}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Close(context.Background())
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: scrub(err.Error(), admin), Err: err}
	}
	s := pgx.Identifier{name}.Sanitize()
	for _, q := range []string{"DROP SCHEMA IF EXISTS " + s + " CASCADE", "CREATE SCHEMA " + s} {
		if _, err := tx.Exec(ctx, q); err != nil {
			tx.Rollback(context.Background())
			conn.Close(context.Background())
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: scrub(err.Error(), admin), Err: err}
		}
	}
	target, err := readerDSN(admin, name)
	if err != nil {
		tx.Rollback(context.Background())
		conn.Close(context.Background())
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: err.Error()}
	}
	return &Writer{conn: conn, tx: tx, schema: name, target: target}, nil
}

// readerDSN is admin as ReaderRole (no password: give the role one and edit the DSN on
// a server that asks for it) with search_path set to the schema.
func readerDSN(admin, schema string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Message: "mirroring needs a postgres:// URL, not key=value pairs"}
	}
	u.User = url.User(ReaderRole)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Target is the DSN that reads the copy.
func (w *Writer) Target() string { return w.target }

// pgType is the PostgreSQL type of a portable column type.
func pgType(c qeval.ColumnDef) string {
	switch c.Type {
	case qeval.TypeInteger:
		return "BIGINT"
	case qeval.TypeDouble:
		return "DOUBLE PRECISION"
	case qeval.TypeDecimal:
		if c.Precision > 0 {
			return "NUMERIC(" + strconv.Itoa(c.Precision) + "," + strconv.Itoa(c.Scale) + ")"
		}
		return "NUMERIC"
	case qeval.TypeBlob:
		return "BYTEA"
	case qeval.TypeBoolean:
		return "BOOLEAN"
	case qeval.TypeDate:
		return "DATE"
	case qeval.TypeTimestamp:
		return "TIMESTAMP"
	}
	return "TEXT"
}

// ident is a table or column name as PostgreSQL stores an unquoted one: lower case, so
// that queries written for SQLite (where names ignore case) find it.
func ident(name string) string { return strings.ToLower(name) }

func (w *Writer) table(name string) string {
	return pgx.Identifier{w.schema, ident(name)}.Sanitize()
}

// Create creates one table, with its primary key and NOT NULL columns; names are
// lower-cased (see ident).
func (w *Writer) Create(ctx context.Context, t qeval.TableDef) error {
	cols := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		d := pgx.Identifier{ident(c.Name)}.Sanitize() + " " + pgType(c)
		if c.NotNull {
			d += " NOT NULL"
		}
		cols = append(cols, d)
	}
	if len(t.PrimaryKey) > 0 {
		keys := make([]string, len(t.PrimaryKey))
		for i, k := range t.PrimaryKey {
			keys[i] = pgx.Identifier{ident(k)}.Sanitize()
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
	}
	if _, err := w.tx.Exec(ctx, "CREATE TABLE "+w.table(t.Name)+" ("+strings.Join(cols, ", ")+")"); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "create table " + t.Name + " in schema " + w.schema, Message: err.Error(), Err: err}
	}
	return nil
}

// Insert appends rows with COPY, in the order given: a table filled once and never
// updated is scanned back in that order.
func (w *Writer) Insert(ctx context.Context, t qeval.TableDef, rows [][]qeval.Value) error {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = ident(c.Name)
	}
	src := make([][]any, len(rows))
	for i, r := range rows {
		out := make([]any, len(r))
		for j, v := range r {
			out[j] = t.Columns[j].GoValue(v)
		}
		src[i] = out
	}
	if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{w.schema, ident(t.Name)}, names, pgx.CopyFromRows(src)); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "copy table " + t.Name + " into schema " + w.schema, Message: err.Error(), Err: err}
	}
	return nil
}

// Close grants ReaderRole read access to the schema (creating the role if it does not
// exist) and commits the copy.
func (w *Writer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	op := "finish schema " + w.schema
	var exists bool
	if err := w.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", ReaderRole).Scan(&exists); err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: err.Error(), Err: err}
	}
	stmts := RoleSetupSQL(ReaderRole, w.schema, "")
	if exists {
		stmts = stmts[1:] // the role is there: grant again
	}
	for _, q := range stmts {
		if _, err := w.tx.Exec(ctx, q); err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: err.Error(), Err: err}
		}
	}
	if err := w.tx.Commit(ctx); err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: err.Error(), Err: err}
	}
	return w.conn.Close(ctx)
}

// Abort rolls the copy back: the schema was never there.
func (w *Writer) Abort() error {
	ctx := context.Background()
	w.tx.Rollback(ctx)
	return w.conn.Close(ctx)
}

// DropSchema drops a mirrored schema (qeval spider --pred-engine postgres cleans up).
func DropSchema(ctx context.Context, admin, name string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(admin), Message: scrub(err.Error(), admin), Err: err}
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{ident(name)}.Sanitize()+" CASCADE"); err != nil {
		return &qeval.Error{Code: qeval.CodeQuery, Op: "drop schema " + name, Message: err.Error(), Err: err}
	}
	return nil
}
