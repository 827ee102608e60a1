package qeval

import "context"

// Schema is the tables of a database and their columns, as the engine reports them.
type Schema struct {
	Tables []TableSchema `json:"tables"`
}

// TableSchema is one table (or view) and its columns in declaration order.
type TableSchema struct {
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
	// DDL is the statement that created the table, when the engine keeps it.
	DDL string `json:"ddl,omitempty"`
}

// Table returns the table whose name equals name case-insensitively, or nil.
func (s *Schema) Table(name string) *TableSchema {
	if s == nil {
		return nil
	}
	for i := range s.Tables {
		if equalFold(s.Tables[i].Name, name) {
			return &s.Tables[i]
		}
	}
	return nil
}

// SchemaReader is implemented by executors that can describe their database.
type SchemaReader interface {
	Schema(ctx context.Context) (*Schema, error)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
