package qeval

import (
	"context"
	"strconv"
)

// Portable column types of a copied table (qeval mirror): each engine maps them to its
// own (INTEGER is BIGINT on PostgreSQL, Int64 on ClickHouse, …).
const (
	TypeInteger   = "INTEGER"   // 64-bit integers
	TypeDouble    = "DOUBLE"    // 64-bit floats
	TypeDecimal   = "DECIMAL"   // exact decimals; ColumnDef.Precision and Scale
	TypeText      = "TEXT"      // text of any length
	TypeBlob      = "BLOB"      // bytes
	TypeBoolean   = "BOOLEAN"   // true or false
	TypeDate      = "DATE"      // a calendar date
	TypeTimestamp = "TIMESTAMP" // a date and time, without time zone
)

// TableDef describes a table to create in another engine: its columns in order, with
// portable types, and its primary key.
type TableDef struct {
	Name       string
	Columns    []ColumnDef
	PrimaryKey []string
	// Notes say what could not be kept as the source had it (a column whose values
	// do not fit its declared type, a key over NULLs), for the mirror's report.
	Notes []string
}

// ColumnDef is one column of a TableDef.
type ColumnDef struct {
	Name string
	// Type is one of the portable types (TypeInteger, …).
	Type string
	// Precision and Scale of a TypeDecimal column.
	Precision, Scale int
	NotNull          bool
	// Declared is the type the source declared, for messages.
	Declared string
}

// TableSink receives copied tables: Create, then Insert batches of rows in the source's
// order, for one table after another; Close finishes (commits) the copy, Abort drops
// what was written.
type TableSink interface {
	Create(ctx context.Context, t TableDef) error
	Insert(ctx context.Context, t TableDef, rows [][]Value) error
	Close() error
	Abort() error
}

// GoValue is v as the Go value a database driver takes for a column of this type: nil
// for NULL, else int64, float64, string, []byte, bool or time.Time. A value the type
// does not hold (SQLite keeps any value in any column) is converted as the column
// would read it: a number in a TEXT column as its text, an integer in a DOUBLE or
// DECIMAL column as a float, an integer in a BOOLEAN column as a bool, text in a BLOB
// column as its bytes.
func (c ColumnDef) GoValue(v Value) any {
	switch v.Kind {
	case KindNull:
		return nil
	case KindInt, KindBool:
		switch c.Type {
		case TypeDouble, TypeDecimal:
			return float64(v.Int)
		case TypeBoolean:
			return v.Int != 0
		case TypeText:
			return strconv.FormatInt(v.Int, 10)
		}
		return v.Int
	case KindFloat:
		if c.Type == TypeText {
			return strconv.FormatFloat(v.Float, 'g', -1, 64)
		}
		return v.Float
	case KindTime:
		return v.AsTime()
	case KindBytes:
		if c.Type == TypeText {
			return v.Str
		}
		return []byte(v.Str)
	}
	if c.Type == TypeBlob {
		return []byte(v.Str)
	}
	return v.Str
}
