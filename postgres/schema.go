package postgres

import (
	"context"
	"fmt"

	"github.com/qeval/qeval"
)

// schemaQuery lists the tables, views and foreign tables of the current schema (the
// first schema of search_path that exists) with their columns in declaration order.
// Type names are pg_type.typname, as in query results.
const schemaQuery = `SELECT c.relname, a.attname, t.typname
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE n.nspname = pg_catalog.current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
ORDER BY c.relname, a.attnum`

// Schema returns the tables and views of the current schema and their columns; it
// implements qeval.SchemaReader. It runs like a query, read-only and within the
// executor's limits.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	rs, err := e.run(ctx, schemaQuery)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", e.dsn, err)
	}
	s := &qeval.Schema{}
	for _, row := range rs.Rows {
		table := row[0].Str
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != table {
			s.Tables = append(s.Tables, qeval.TableSchema{Name: table})
		}
		if !row[1].IsNull() {
			t := &s.Tables[len(s.Tables)-1]
			t.Columns = append(t.Columns, qeval.Column{Name: row[1].Str, Type: row[2].Str})
		}
	}
	return s, nil
}
