package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// Tables describes the copy's tables (sqlite_master's, not SQLite's own), by name:
// column types are their affinity, as SQLite treats them (INT and INTEGER are one).
func (s *Sandbox) Tables(ctx context.Context) ([]qeval.TableDefinition, error) {
	var out []qeval.TableDefinition
	err := s.raw(ctx, "", func(c *conn) error {
		c.trusted = true
		defer func() { c.trusted = false }()
		names, err := queryAll(ctx, c, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
		if err != nil {
			return err
		}
		for _, r := range names {
			name, _ := r[0].(string)
			t, err := describeTable(ctx, c, name)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	if err != nil {
		return nil, s.classify(ctx, err)
	}
	return out, nil
}

func describeTable(ctx context.Context, c *conn, name string) (qeval.TableDefinition, error) {
	t := qeval.TableDefinition{Name: name}
	cols, err := queryAll(ctx, c, "PRAGMA table_info("+quoteIdent(name)+")")
	if err != nil {
		return t, err
	}
	pk := map[int64]string{}
	for _, col := range cols {
		cname, _ := col[1].(string)
		typ, _ := col[2].(string)
		notNull, _ := col[3].(int64)
		t.Columns = append(t.Columns, qeval.ColumnState{Name: cname, Type: affinity(typ), NotNull: notNull != 0})
		if k, _ := col[5].(int64); k > 0 {
			pk[k] = cname
		}
	}
	for k := int64(1); k <= int64(len(pk)); k++ {
		t.PrimaryKey = append(t.PrimaryKey, pk[k])
	}
	idx, err := queryAll(ctx, c, "PRAGMA index_list("+quoteIdent(name)+")")
	if err != nil {
		return t, err
	}
	for _, ix := range idx {
		iname, _ := ix[1].(string)
		unique, _ := ix[2].(int64)
		origin, _ := ix[3].(string)
		if origin == "pk" {
			continue // the primary key, said above
		}
		info, err := queryAll(ctx, c, "PRAGMA index_info("+quoteIdent(iname)+")")
		if err != nil {
			return t, err
		}
		var on []string
		for _, col := range info {
			n, _ := col[2].(string)
			if n == "" {
				n = "<expression>"
			}
			on = append(on, n)
		}
		desc := "(" + strings.Join(on, ", ") + ")"
		if unique != 0 {
			desc = "unique " + desc
		}
		t.Indexes = append(t.Indexes, desc)
	}
	sort.Strings(t.Indexes)
	fks, err := queryAll(ctx, c, "PRAGMA foreign_key_list("+quoteIdent(name)+")")
	if err != nil {
		return t, err
	}
	byID := map[int64][3][]string{}
	var ids []int64
	for _, fk := range fks {
		id, _ := fk[0].(int64)
		ref, _ := fk[2].(string)
		from, _ := fk[3].(string)
		to, _ := fk[4].(string)
		e, seen := byID[id]
		if !seen {
			ids = append(ids, id)
			e[0] = []string{ref}
		}
		e[1], e[2] = append(e[1], from), append(e[2], to)
		byID[id] = e
	}
	for _, id := range ids {
		e := byID[id]
		t.ForeignKeys = append(t.ForeignKeys, fmt.Sprintf("(%s) references %s (%s)", strings.Join(e[1], ", "), e[0][0], strings.Join(e[2], ", ")))
	}
	sort.Strings(t.ForeignKeys)
	return t, nil
}

// affinity is the type affinity SQLite gives a declared column type (its rules, in
// order, from "Datatypes In SQLite", 3.1).
func affinity(declared string) string {
	d := strings.ToUpper(declared)
	switch {
	case strings.Contains(d, "INT"):
		return "INTEGER"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "TEXT"
	case d == "", strings.Contains(d, "BLOB"):
		return "BLOB"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// Rows returns a table's rows, in rowid order when ordered (a WITHOUT ROWID table in
// its primary key's, the order it is stored in).
func (s *Sandbox) Rows(ctx context.Context, table string, ordered bool) (*qeval.ResultSet, error) {
	q := "SELECT * FROM " + quoteIdent(table)
	if ordered {
		if rs, err := s.Query(ctx, q+" ORDER BY _rowid_"); err == nil {
			return rs, nil
		}
	}
	return s.Query(ctx, q)
}
