package duckdb

import (
	"context"
	"fmt"

	"github.com/qeval/qeval"
)

// schemaQuery lists the tables and views of the main schema with their columns in
// declaration order, from DuckDB's information schema.
const schemaQuery = `SELECT table_name, column_name, data_type
FROM information_schema.columns
WHERE table_schema = 'main'
ORDER BY table_name, ordinal_position`

// Schema returns the tables and views of the database and their columns; it implements
// qeval.SchemaReader. It runs like a query, read-only and within the executor's limits.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	rs, err := e.Query(ctx, schemaQuery)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", e.path, err)
	}
	s := &qeval.Schema{}
	for _, row := range rs.Rows {
		table := row[0].Str
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != table {
			s.Tables = append(s.Tables, qeval.TableSchema{Name: table})
		}
		t := &s.Tables[len(s.Tables)-1]
		t.Columns = append(t.Columns, qeval.Column{Name: row[1].Str, Type: row[2].Str})
	}
	return s, nil
}
