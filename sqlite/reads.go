package sqlite

import (
	"context"
	"database/sql/driver"
	"strings"

	"github.com/qeval/qeval"
)

// Reads asks the engine which tables and columns a statement reads, without running
// it: the authorizer reports every column read while the statement is prepared
// (views, CTEs and aliases resolved), and EXPLAIN's OpenRead instructions add the
// tables read without naming a column (count(*)). The shape has Kind, Tables and
// Columns, with Source "engine". A statement the engine rejects is a CodeQuery or
// CodeForbidden error, as for Query.
func (e *Executor) Reads(ctx context.Context, query string) (*qeval.Shape, error) {
	// bounded as a query to run is: preparing a 10 MB IN list costs SQLite 400 MB
	if err := qeval.CheckQuerySize(query, 0, 0); err != nil {
		return nil, err
	}
	stmt, err := single(query)
	if err != nil {
		return nil, err
	}
	sh := &qeval.Shape{Dialect: "sqlite", Kind: strings.ToLower(leadingKeywords(stmt)), Source: "engine"}
	if sh.Kind == "with" || sh.Kind == "values" {
		sh.Kind = "select"
	}
	err = e.raw(ctx, stmt, func(c *conn) error {
		c.stmt = stmt
		c.reads = [][2]string{}
		s, err := c.Prepare(stmt)
		reads := c.reads
		c.reads = nil
		if err != nil {
			return c.explain(err)
		}
		s.Close()
		seenT, seenC := map[string]bool{}, map[string]bool{}
		addTable := func(t string) {
			if t != "" && !strings.HasPrefix(t, "sqlite_") && !seenT[strings.ToLower(t)] {
				seenT[strings.ToLower(t)] = true
				sh.Tables = append(sh.Tables, t)
			}
		}
		for _, r := range reads {
			addTable(r[0])
			key := strings.ToLower(r[0] + "." + r[1])
			if r[1] != "" && !seenC[key] {
				seenC[key] = true
				sh.Columns = append(sh.Columns, qeval.ColumnRef{Table: r[0], Name: r[1]})
			}
		}
		pages, err := rootPages(ctx, c)
		if err != nil {
			return err
		}
		rows, err := queryAll(ctx, c, "EXPLAIN "+stmt)
		if err != nil {
			return err
		}
		for _, r := range rows {
			// addr, opcode, p1, p2, p3, ...: OpenRead p2 is the root page, p3 the schema
			if len(r) < 5 || asString(r[1]) != "OpenRead" || asInt(r[4]) != 0 {
				continue
			}
			addTable(pages[asInt(r[3])])
		}
		return nil
	})
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	return sh, nil
}

// rootPages maps the root page of every table and index to its table's name.
func rootPages(ctx context.Context, c *conn) (map[int64]string, error) {
	rows, err := queryAll(ctx, c, "SELECT rootpage, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') AND rootpage > 0")
	if err != nil {
		return nil, err
	}
	m := make(map[int64]string, len(rows))
	for _, r := range rows {
		m[asInt(r[0])] = asString(r[1])
	}
	return m, nil
}

func asInt(v driver.Value) int64 {
	switch t := v.(type) {
	case int64:
		return t
	case float64:
		return int64(t)
	}
	return -1
}

func asString(v driver.Value) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	}
	return ""
}
