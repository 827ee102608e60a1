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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil {
		return nil, errClosed
	}
	var out []qeval.TableDefinition
	pristine := false
	err := s.raw(ctx, "", func(c *conn) error {
		c.trusted = true
		defer func() { c.trusted = false }()
		if s.shape != nil {
			// a copy whose schema is still the pristine one (no change of it has added to
			// its schema_version) has the definitions read in another such copy
			v, err := pragmaInt(ctx, c.SQLiteConn, "schema_version")
			if err != nil {
				return err
			}
			if pristine = v == s.shape.version; pristine {
				if out = s.shape.cached(); out != nil {
					return nil
				}
			}
		}
		defs, err := readDefinitions(ctx, c)
		if err != nil {
			return err
		}
		out = defs
		for i := range out {
			sort.Strings(out[i].Indexes)
			sort.Strings(out[i].ForeignKeys)
		}
		if pristine {
			s.shape.keep(out)
		}
		return nil
	})
	if err != nil {
		return nil, s.classify(ctx, err)
	}
	return out, nil
}

// The catalog queries of Tables: each joins sqlite_master's tables (not SQLite's own)
// with one table-valued pragma.
const (
	catalogTables = "FROM sqlite_master m JOIN "
	catalogWhere  = " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
)

// readDefinitions reads the tables' columns, primary keys, indexes and foreign keys in
// three queries, whatever the number of tables.
func readDefinitions(ctx context.Context, c *conn) ([]qeval.TableDefinition, error) {
	out, at, err := readColumns(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := readIndexes(ctx, c, out, at); err != nil {
		return nil, err
	}
	return out, readForeignKeys(ctx, c, out, at)
}

// readColumns reads each table's columns and primary key; at is each table's index in
// the result, by name.
func readColumns(ctx context.Context, c *conn) ([]qeval.TableDefinition, map[string]int, error) {
	var out []qeval.TableDefinition
	cols, err := queryAll(ctx, c, `SELECT m.name, p.name, p.type, p."notnull", p.pk `+catalogTables+"pragma_table_info(m.name) p"+catalogWhere+" ORDER BY m.name, p.cid")
	if err != nil {
		return nil, nil, err
	}
	at := map[string]int{}
	pks := map[int]map[int64]string{}
	for _, r := range cols {
		name, _ := r[0].(string)
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, qeval.TableDefinition{Name: name})
			pks[i] = map[int64]string{}
		}
		cname, _ := r[1].(string)
		typ, _ := r[2].(string)
		notNull, _ := r[3].(int64)
		out[i].Columns = append(out[i].Columns, qeval.ColumnState{Name: cname, Type: affinity(typ), NotNull: notNull != 0})
		if k, _ := r[4].(int64); k > 0 {
			pks[i][k] = cname
		}
	}
	for i, pk := range pks {
		for k := int64(1); k <= int64(len(pk)); k++ {
			out[i].PrimaryKey = append(out[i].PrimaryKey, pk[k])
		}
	}
	return out, at, nil
}

// readIndexes adds each table's indexes (not its primary key's) to out.
func readIndexes(ctx context.Context, c *conn, out []qeval.TableDefinition, at map[string]int) error {
	idx, err := queryAll(ctx, c, `SELECT m.name, l.name, l."unique", l.origin, coalesce(i.name, '<expression>') `+catalogTables+
		"pragma_index_list(m.name) l JOIN pragma_index_info(l.name) i"+catalogWhere+" AND l.origin <> 'pk' ORDER BY m.name, l.name, i.seqno")
	if err != nil {
		return err
	}
	indexes := map[[2]string][]string{}
	unique := map[[2]string]bool{}
	var order [][2]string
	for _, r := range idx {
		k := [2]string{fmt.Sprint(r[0]), fmt.Sprint(r[1])}
		if _, seen := indexes[k]; !seen {
			order = append(order, k)
		}
		indexes[k] = append(indexes[k], fmt.Sprint(r[4]))
		u, _ := r[2].(int64)
		unique[k] = u != 0
	}
	for _, k := range order {
		desc := "(" + strings.Join(indexes[k], ", ") + ")"
		if unique[k] {
			desc = "unique " + desc
		}
		if i, ok := at[k[0]]; ok {
			out[i].Indexes = append(out[i].Indexes, desc)
		}
	}
	return nil
}

// readForeignKeys adds each table's foreign keys to out.
func readForeignKeys(ctx context.Context, c *conn, out []qeval.TableDefinition, at map[string]int) error {
	fks, err := queryAll(ctx, c, `SELECT m.name, f.id, f."table", f."from", f."to" `+catalogTables+"pragma_foreign_key_list(m.name) f"+catalogWhere+" ORDER BY m.name, f.id, f.seq")
	if err != nil {
		return err
	}
	type fk struct{ ref, from, to []string }
	byKey := map[string]*fk{}
	var order []string
	for _, r := range fks {
		k := fmt.Sprint(r[0], "\x00", r[1])
		f, ok := byKey[k]
		if !ok {
			f = &fk{ref: []string{fmt.Sprint(r[0]), fmt.Sprint(r[2])}}
			byKey[k] = f
			order = append(order, k)
		}
		f.from, f.to = append(f.from, fmt.Sprint(r[3])), append(f.to, fmt.Sprint(r[4]))
	}
	for _, k := range order {
		f := byKey[k]
		if i, ok := at[f.ref[0]]; ok {
			out[i].ForeignKeys = append(out[i].ForeignKeys, fmt.Sprintf("(%s) references %s (%s)", strings.Join(f.from, ", "), f.ref[1], strings.Join(f.to, ", ")))
		}
	}
	return nil
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil {
		return nil, errClosed
	}
	q := "SELECT * FROM " + quoteIdent(table)
	if ordered {
		if rs, err := s.Executor.Query(ctx, q+" ORDER BY _rowid_"); err == nil {
			return rs, nil
		}
	}
	return s.Executor.Query(ctx, q)
}
