package qeval

import (
	"bytes"
	"encoding/json"
	"io"
)

// Column describes one result column: its name and the type the database declared
// for it ("" when the column is an expression).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ResultSet is what a query returned: its columns and its rows, in the order the
// database produced them.
type ResultSet struct {
	Columns []Column  `json:"columns"`
	Rows    [][]Value `json:"rows"`
}

// NumRows returns the number of rows, 0 for a nil result set.
func (r *ResultSet) NumRows() int {
	if r == nil {
		return 0
	}
	return len(r.Rows)
}

// ColumnNames returns the names of the columns.
func (r *ResultSet) ColumnNames() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return names
}

// Head returns a copy of r limited to its first n rows (all rows when n < 0).
func (r *ResultSet) Head(n int) *ResultSet {
	if r == nil {
		return nil
	}
	if n < 0 || n >= len(r.Rows) {
		return r
	}
	return &ResultSet{Columns: r.Columns, Rows: r.Rows[:n]}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// MarshalJSON writes the result set with "rows": [] (never null) when it has no rows.
func (r ResultSet) MarshalJSON() ([]byte, error) {
	type plain ResultSet
	if r.Rows == nil {
		r.Rows = [][]Value{}
	}
	if r.Columns == nil {
		r.Columns = []Column{}
	}
	return json.Marshal(plain(r))
}
