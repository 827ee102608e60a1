package qeval

import "context"

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
