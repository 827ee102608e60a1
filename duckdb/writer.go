package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/qeval/qeval"
)

var _ qeval.TableSink = (*Writer)(nil)

// Writer fills a new DuckDB file with copied tables (qeval mirror); it implements
// qeval.TableSink. It is the only code of this package that writes, and it never runs
// a generated query. It is not safe for concurrent use.
type Writer struct {
	path string
	db   *sql.DB
	tx   *sql.Tx
}

// Create creates the DuckDB file path, which must not exist.
func Create(path string) (*Writer, error) {
	path = Path(path)
	op := "create database " + path
	if _, err := os.Stat(path); err == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "file exists", Hint: "remove it, or mirror with --replace"}
	}
	db, err := sql.Open("duckdb", path+"?autoinstall_known_extensions=false&autoload_known_extensions=false&enable_external_access=false")
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: engineMessage(err), Err: err}
	}
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		os.Remove(path)
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: engineMessage(err), Err: err}
	}
	return &Writer{path: path, db: db, tx: tx}, nil
}

// duckType is the DuckDB type of a portable column type.
func duckType(c qeval.ColumnDef) string {
	switch c.Type {
	case qeval.TypeInteger:
		return "BIGINT"
	case qeval.TypeDouble:
		return "DOUBLE"
	case qeval.TypeDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", c.Precision, c.Scale)
	case qeval.TypeBlob:
		return "BLOB"
	case qeval.TypeBoolean:
		return "BOOLEAN"
	case qeval.TypeDate:
		return "DATE"
	case qeval.TypeTimestamp:
		return "TIMESTAMP"
	}
	return "VARCHAR"
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Create creates one table.
func (w *Writer) Create(ctx context.Context, t qeval.TableDef) error {
	var cols []string
	for _, c := range t.Columns {
		col := quote(c.Name) + " " + duckType(c)
		if c.NotNull {
			col += " NOT NULL"
		}
		cols = append(cols, col)
	}
	if len(t.PrimaryKey) > 0 {
		keys := make([]string, len(t.PrimaryKey))
		for i, k := range t.PrimaryKey {
			keys[i] = quote(k)
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
	}
	stmt := "CREATE TABLE " + quote(t.Name) + " (" + strings.Join(cols, ", ") + ")"
	if _, err := w.tx.ExecContext(ctx, stmt); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "create table " + t.Name + " in " + w.path, Message: engineMessage(err), Err: err}
	}
	return nil
}

// Insert appends rows to a table created before.
func (w *Writer) Insert(ctx context.Context, t qeval.TableDef, rows [][]qeval.Value) error {
	if len(rows) == 0 {
		return nil
	}
	const perStatement = 200
	marks := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.Columns)), ", ") + ")"
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		stmt := "INSERT INTO " + quote(t.Name) + " VALUES " + strings.TrimSuffix(strings.Repeat(marks+", ", len(chunk)), ", ")
		args := make([]any, 0, len(chunk)*len(t.Columns))
		for _, r := range chunk {
			for _, v := range r {
				args = append(args, goValue(v))
			}
		}
		if _, err := w.tx.ExecContext(ctx, stmt, args...); err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "copy table " + t.Name + " into " + w.path, Message: engineMessage(err), Err: err}
		}
	}
	return nil
}

// goValue is the driver argument of a value.
func goValue(v qeval.Value) any {
	switch v.Kind {
	case qeval.KindNull:
		return nil
	case qeval.KindInt:
		return v.Int
	case qeval.KindFloat:
		return v.Float
	case qeval.KindBool:
		return v.Int != 0
	case qeval.KindBytes:
		return []byte(v.Str)
	case qeval.KindTime:
		return v.AsTime()
	}
	return v.Str
}

// Close commits the copy and closes the file.
func (w *Writer) Close() error {
	err := w.tx.Commit()
	if cerr := w.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(w.path)
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + w.path, Message: engineMessage(err), Err: err}
	}
	return nil
}

// Abort drops the copy: nothing is left behind.
func (w *Writer) Abort() error {
	w.tx.Rollback()
	w.db.Close()
	os.Remove(w.path + ".wal")
	return os.Remove(w.path)
}
