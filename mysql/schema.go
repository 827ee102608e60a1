package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
)

// schemaQuery lists the columns of the tables and views of the current database in
// declaration order.
const schemaQuery = `SELECT TABLE_NAME, COLUMN_NAME, UPPER(DATA_TYPE)
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE()
ORDER BY TABLE_NAME, ORDINAL_POSITION`

// Schema returns the tables and views of the current database, their columns and the
// statements that create them (SHOW CREATE TABLE); it implements qeval.SchemaReader.
// It runs like queries, read-only and within the executor's limits. Type names are
// upper-case, as in query results: INT, VARCHAR, DOUBLE.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	rs, err := e.run(ctx, schemaQuery)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", e.dsn, err)
	}
	s := &qeval.Schema{}
	for _, row := range rs.Rows {
		table := row[0].String()
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != table {
			s.Tables = append(s.Tables, qeval.TableSchema{Name: table})
		}
		t := &s.Tables[len(s.Tables)-1]
		t.Columns = append(t.Columns, qeval.Column{Name: row[1].String(), Type: row[2].String()})
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		ddl, err := e.run(ctx, "SHOW CREATE TABLE `"+strings.ReplaceAll(t.Name, "`", "``")+"`")
		if err != nil {
			return nil, fmt.Errorf("read schema of %s: table %s: %w", e.dsn, t.Name, err)
		}
		// Tables answer (Table, Create Table), views (View, Create View, ...).
		if ddl.NumRows() == 1 && len(ddl.Rows[0]) >= 2 {
			t.DDL = ddl.Rows[0][1].String()
		}
	}
	return s, nil
}
