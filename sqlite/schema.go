package sqlite

import (
	"context"
	"database/sql/driver"
	"io"
	"strings"

	"github.com/qeval/qeval"
)

// Schema returns the tables and views of the database with their columns.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	s := &qeval.Schema{}
	err := e.raw(ctx, "", func(c *conn) error {
		rows, err := queryAll(ctx, c, "SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
		if err != nil {
			return err
		}
		c.trusted = true
		defer func() { c.trusted = false }()
		for _, r := range rows {
			t := qeval.TableSchema{Name: r[0].(string), DDL: r[1].(string)}
			cols, err := queryAll(ctx, c, "PRAGMA table_info("+quoteIdent(t.Name)+")")
			if err != nil {
				return err
			}
			for _, col := range cols {
				name, _ := col[1].(string)
				typ, _ := col[2].(string)
				t.Columns = append(t.Columns, qeval.Column{Name: name, Type: strings.ToUpper(typ)})
			}
			s.Tables = append(s.Tables, t)
		}
		return nil
	})
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "read schema of " + e.path, Message: err.Error(), Err: err}
	}
	return s, nil
}

// queryAll runs a trusted internal query and returns its raw driver rows.
func queryAll(ctx context.Context, c *conn, q string) ([][]driver.Value, error) {
	rows, err := c.QueryContext(ctx, q, nil)
	if err != nil {
		return nil, c.explain(err)
	}
	defer rows.Close()
	var out [][]driver.Value
	for {
		dest := make([]driver.Value, len(rows.Columns()))
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		out = append(out, dest)
	}
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
