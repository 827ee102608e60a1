package clickhouse

import (
	"context"
	"math"
	"net/url"
	"strconv"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/qeval/qeval"
)

var _ qeval.TableSink = (*Writer)(nil)

// Writer fills a new ClickHouse database with copied tables (qeval mirror); it
// implements qeval.TableSink. Tables use the Log engine, which keeps rows in the order
// they were written. It needs a user that may create databases, and never runs a
// generated query.
type Writer struct {
	conn     ch.Conn
	database string
	target   string
}

// CreateDatabase creates the database name on the server admin names (a clickhouse://
// DSN), dropping one of that name first when replace is set, else refusing it. Target
// returns the DSN of the new database.
func CreateDatabase(ctx context.Context, admin, name string, replace bool) (*Writer, error) {
	opt, _, err := options(admin)
	if err != nil {
		return nil, err
	}
	conn, err := ch.Open(opt)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open " + MaskDSN(admin), Message: err.Error(), Err: err}
	}
	w := &Writer{conn: conn, database: name}
	op := "create database " + name + " on " + MaskDSN(admin)
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.databases WHERE name = ?", name).Scan(&n); err != nil {
		conn.Close()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: err.Error(), Err: err}
	}
	if n > 0 && !replace {
		conn.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the database exists", Hint: "drop it, or mirror with --replace"}
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS " + quote(name), "CREATE DATABASE " + quote(name)} {
		if err := conn.Exec(ctx, q); err != nil {
			conn.Close()
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: err.Error(), Err: err}
		}
	}
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	w.target = u.String()
	return w, nil
}

// Target is the DSN of the database written.
func (w *Writer) Target() string { return w.target }

func quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "\\`") + "`" }

// chType is the ClickHouse type of a portable column type. DECIMAL becomes Float64:
// old servers (18.x) need an experimental setting for Decimal.
func chType(c qeval.ColumnDef) string {
	t := "String"
	switch c.Type {
	case qeval.TypeInteger:
		t = "Int64"
	case qeval.TypeDouble, qeval.TypeDecimal:
		t = "Float64"
	case qeval.TypeBoolean:
		t = "UInt8"
	case qeval.TypeDate:
		t = "Date"
	case qeval.TypeTimestamp:
		t = "DateTime"
	}
	if !c.NotNull {
		t = "Nullable(" + t + ")"
	}
	return t
}

// Create creates one table.
func (w *Writer) Create(ctx context.Context, t qeval.TableDef) error {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = quote(c.Name) + " " + chType(c)
	}
	q := "CREATE TABLE " + quote(w.database) + "." + quote(t.Name) + " (" + strings.Join(cols, ", ") + ") ENGINE = Log"
	if err := w.conn.Exec(ctx, q); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "create table " + t.Name + " in " + w.database, Message: err.Error(), Err: err}
	}
	return nil
}

// Insert appends rows to a table created before, as INSERT … SELECT of literal rows:
// old servers (18.x) do not take the native protocol's data blocks from this client.
func (w *Writer) Insert(ctx context.Context, t qeval.TableDef, rows [][]qeval.Value) error {
	const perStatement = 500
	op := "copy table " + t.Name + " into " + w.database
	for start := 0; start < len(rows); start += perStatement {
		var b strings.Builder
		b.WriteString("INSERT INTO " + quote(w.database) + "." + quote(t.Name) + " ")
		for k, r := range rows[start:min(start+perStatement, len(rows))] {
			if k > 0 {
				b.WriteString(" UNION ALL ")
			}
			b.WriteString("SELECT ")
			for i, v := range r {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("CAST(" + chLiteral(t.Columns[i], v) + " AS " + chType(t.Columns[i]) + ")")
			}
		}
		if err := w.conn.Exec(ctx, b.String()); err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: err.Error(), Err: err}
		}
	}
	return nil
}

// chLiteral writes a value as a ClickHouse literal for a column.
func chLiteral(c qeval.ColumnDef, v qeval.Value) string {
	if v.IsNull() {
		return "NULL"
	}
	switch c.Type {
	case qeval.TypeInteger, qeval.TypeBoolean:
		return strconv.FormatInt(v.Int, 10)
	case qeval.TypeDouble, qeval.TypeDecimal:
		f := v.Float
		if v.Kind == qeval.KindInt {
			f = float64(v.Int)
		}
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case qeval.TypeDate:
		return "'" + v.AsTime().Format("2006-01-02") + "'"
	case qeval.TypeTimestamp:
		return "'" + v.AsTime().Format("2006-01-02 15:04:05") + "'"
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v.Str) + "'"
}

// Close ends the copy.
func (w *Writer) Close() error { return w.conn.Close() }

// Abort drops the database written.
func (w *Writer) Abort() error {
	err := w.conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+quote(w.database))
	w.conn.Close()
	return err
}

// DropDatabase drops a database a Writer made (qeval spider --pred-engine cleans up).
func DropDatabase(ctx context.Context, admin, name string) error {
	opt, _, err := options(admin)
	if err != nil {
		return err
	}
	conn, err := ch.Open(opt)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(name))
}
