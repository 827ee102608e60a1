package testsuite

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

var quotedName = lazyregexp.New(`(?i)^(\s*CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?)'([^']*)'`)

// table is one table of a database as generation sees it.
type table struct {
	name         string
	cols         []*column
	pk           []int   // columns of the primary key
	uniques      [][]int // UNIQUE column sets (the primary key included)
	fks          []foreignKey
	withoutRowid bool
	rows         [][]qeval.Value // the original rows, in the order of cols
}

type column struct {
	name      string
	typ       string
	notNull   bool
	generated bool // GENERATED ALWAYS AS: SQLite computes it, generation leaves it out
	affinity  byte // 'i' integer, 'r' real, 't' text, 'n' numeric, 'b' blob
	sortKey   bool // a gold query orders by it and has a LIMIT
	pool      []qeval.Value
	literal   map[qeval.Value]bool // pool values that come from gold literals
	exact     []qeval.Value        // the gold literals themselves (not their neighbours)
}

// foreignKey links columns of a table to columns of a parent table.
type foreignKey struct {
	cols     []int
	parent   string
	pcols    []string
	declared bool  // in the SQLite schema (SQLite enforces it), else from tables.json
	pidx     []int // positions of pcols in the parent table, set by resolveKeys
}

// resolveKeys finds each foreign key's parent columns (the parent's primary key when
// the key names none) and drops, with a note, keys whose parent is unknown.
func resolveKeys(tables []*table) []string {
	var notes []string
	byName := map[string]*table{}
	for _, t := range tables {
		byName[strings.ToLower(t.name)] = t
	}
	for _, t := range tables {
		var keep []foreignKey
		for _, fk := range t.fks {
			p := byName[strings.ToLower(fk.parent)]
			ok := p != nil
			if ok {
				fk.pidx = nil
				if len(fk.pcols) == 0 {
					fk.pidx = append(fk.pidx, p.pk...)
				}
				for _, n := range fk.pcols {
					if j := p.col(n); j >= 0 {
						fk.pidx = append(fk.pidx, j)
					}
				}
				ok = len(fk.pidx) == len(fk.cols)
			}
			if !ok {
				notes = append(notes, fmt.Sprintf("table %s: foreign key to %s(%s): no such table or columns, values drawn freely", t.name, fk.parent, strings.Join(fk.pcols, ", ")))
				continue
			}
			keep = append(keep, fk)
		}
		t.fks = keep
	}
	return notes
}

func (t *table) col(name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// ForeignKey is one foreign key from Spider's tables.json.
type ForeignKey struct {
	Table, Column       string
	RefTable, RefColumn string
}

// LoadTables reads the foreign keys of each database from Spider's tables.json.
func LoadTables(path string) (map[string][]ForeignKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read tables " + path, Message: err.Error(), Err: err}
	}
	var dbs []struct {
		DBID        string          `json:"db_id"`
		Tables      []string        `json:"table_names_original"`
		Columns     [][2]any        `json:"column_names_original"`
		ForeignKeys [][2]int        `json:"foreign_keys"`
		Extra       json.RawMessage `json:"-"`
	}
	if err := json.Unmarshal(data, &dbs); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read tables " + path, Message: err.Error(), Err: err}
	}
	out := map[string][]ForeignKey{}
	for i, db := range dbs {
		name := func(c int) (string, string, error) {
			if c < 0 || c >= len(db.Columns) {
				return "", "", fmt.Errorf("column index %d out of range", c)
			}
			ti, _ := db.Columns[c][0].(float64)
			cn, _ := db.Columns[c][1].(string)
			if int(ti) < 0 || int(ti) >= len(db.Tables) {
				return "", "", fmt.Errorf("column %d has no table", c)
			}
			return db.Tables[int(ti)], cn, nil
		}
		for _, fk := range db.ForeignKeys {
			t, c, err1 := name(fk[0])
			rt, rc, err2 := name(fk[1])
			if err1 != nil || err2 != nil {
				return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read tables " + path,
					Message: fmt.Sprintf("database %d (%q): foreign key %v: bad column index", i, db.DBID, fk)}
			}
			out[db.DBID] = append(out[db.DBID], ForeignKey{Table: t, Column: c, RefTable: rt, RefColumn: rc})
		}
	}
	return out, nil
}

// parseTable builds a table from its CREATE TABLE statement, or from the column list
// alone (no constraints) when the statement does not parse; notes say what was odd.
func parseTable(ts qeval.TableSchema) (*table, []string) {
	t := &table{name: ts.Name}
	var notes []string
	// SQLite accepts a table name in single quotes, which the parser does not
	ddl := quotedName.ReplaceAllString(ts.DDL, `$1"$3"`)
	st, err := rq.NewParser(strings.NewReader(ddl)).ParseStatement()
	ct, ok := st.(*rq.CreateTableStatement)
	if err != nil || !ok || ct.Select != nil {
		if err == nil {
			err = fmt.Errorf("not a plain CREATE TABLE")
		}
		notes = append(notes, fmt.Sprintf("table %s: constraints not read (%v): only column types are kept", ts.Name, err))
		for _, c := range ts.Columns {
			t.cols = append(t.cols, &column{name: c.Name, typ: c.Type, affinity: affinity(c.Type)})
		}
		return t, notes
	}
	t.withoutRowid = ct.Without.IsValid()
	for _, cd := range ct.Columns {
		t.addColumn(cd)
	}
	for _, k := range ct.Constraints {
		t.addConstraint(k)
	}
	if len(t.pk) > 0 {
		t.uniques = append(t.uniques, t.pk)
		// SQLite lets a rowid table store NULL in a primary key column (a legacy
		// quirk); SQL does not, and neither does generation
		for _, i := range t.pk {
			t.cols[i].notNull = true
		}
	} else {
		notes = append(notes, fmt.Sprintf("table %s: no primary key: generated rows may repeat", ts.Name))
	}
	if t.withoutRowid {
		notes = append(notes, fmt.Sprintf("table %s: WITHOUT ROWID: primary key values are generated non-null and unique", ts.Name))
	}
	for _, c := range t.cols {
		if c.generated {
			notes = append(notes, fmt.Sprintf("table %s: column %s is generated: SQLite computes it", ts.Name, c.name))
		}
	}
	return t, notes
}

// addColumn adds a column definition with its column constraints.
func (t *table) addColumn(cd *rq.ColumnDefinition) {
	c := &column{name: cd.Name.Name}
	if cd.Type != nil && cd.Type.Name != nil {
		c.typ = cd.Type.Name.Name
	}
	c.affinity = affinity(c.typ)
	i := len(t.cols)
	t.cols = append(t.cols, c)
	for _, k := range cd.Constraints {
		switch k := k.(type) {
		case *rq.PrimaryKeyConstraint:
			t.pk = []int{i}
		case *rq.NotNullConstraint:
			c.notNull = true
		case *rq.UniqueConstraint:
			t.uniques = append(t.uniques, []int{i})
		case *rq.GeneratedConstraint:
			c.generated = true
		case *rq.ForeignKeyConstraint:
			fk := foreignKey{cols: []int{i}, parent: identName(k.ForeignTable), declared: true}
			for _, p := range k.ForeignColumns {
				fk.pcols = append(fk.pcols, p.Name)
			}
			t.fks = append(t.fks, fk)
		}
	}
}

// addConstraint adds a table constraint: a primary key, a UNIQUE set of plain columns,
// or a foreign key whose columns are all known.
func (t *table) addConstraint(k rq.Constraint) {
	switch k := k.(type) {
	case *rq.PrimaryKeyConstraint:
		t.pk = t.indexes(identNames(k.Columns))
	case *rq.UniqueConstraint:
		var names []string
		for _, ic := range k.Columns {
			if id, ok := ic.X.(*rq.Ident); ok {
				names = append(names, id.Name)
			}
		}
		if idx := t.indexes(names); len(idx) == len(k.Columns) {
			t.uniques = append(t.uniques, idx)
		}
	case *rq.ForeignKeyConstraint:
		fk := foreignKey{cols: t.indexes(identNames(k.Columns)), parent: identName(k.ForeignTable), declared: true}
		for _, p := range k.ForeignColumns {
			fk.pcols = append(fk.pcols, p.Name)
		}
		if len(fk.cols) == len(k.Columns) {
			t.fks = append(t.fks, fk)
		}
	}
}

func (t *table) indexes(names []string) []int {
	var out []int
	for _, n := range names {
		if i := t.col(n); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

func identName(id *rq.Ident) string {
	if id == nil {
		return ""
	}
	return id.Name
}

func identNames(ids []*rq.Ident) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Name
	}
	return out
}

// affinity is SQLite's type affinity rule for a declared type.
func affinity(typ string) byte {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"):
		return 'i'
	case strings.Contains(t, "CHAR") || strings.Contains(t, "CLOB") || strings.Contains(t, "TEXT"):
		return 't'
	case t == "" || strings.Contains(t, "BLOB"):
		return 'b'
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return 'r'
	}
	return 'n'
}

// addSpiderKeys adds the foreign keys of tables.json that the SQLite schema does not
// declare; notes name the ones that point at unknown tables or columns.
func addSpiderKeys(tables []*table, keys []ForeignKey) []string {
	var notes []string
	byName := map[string]*table{}
	for _, t := range tables {
		byName[strings.ToLower(t.name)] = t
	}
	for _, k := range keys {
		t, p := byName[strings.ToLower(k.Table)], byName[strings.ToLower(k.RefTable)]
		if t == nil || p == nil || t.col(k.Column) < 0 || p.col(k.RefColumn) < 0 {
			notes = append(notes, fmt.Sprintf("tables.json foreign key %s.%s -> %s.%s: no such table or column, ignored", k.Table, k.Column, k.RefTable, k.RefColumn))
			continue
		}
		ci := t.col(k.Column)
		dup := false
		for _, fk := range t.fks {
			if len(fk.cols) == 1 && fk.cols[0] == ci && strings.EqualFold(fk.parent, p.name) {
				dup = true
			}
		}
		if !dup {
			t.fks = append(t.fks, foreignKey{cols: []int{ci}, parent: p.name, pcols: []string{p.cols[p.col(k.RefColumn)].name}})
		}
	}
	return notes
}

// order sorts tables so that parents come before children (self references and cycles
// are broken by keeping the original order).
func order(tables []*table) []*table {
	byName := map[string]*table{}
	for _, t := range tables {
		byName[strings.ToLower(t.name)] = t
	}
	state := map[*table]int{}
	var out []*table
	var visit func(t *table)
	visit = func(t *table) {
		if state[t] != 0 {
			return
		}
		state[t] = 1
		for _, fk := range t.fks {
			if p := byName[strings.ToLower(fk.parent)]; p != nil && p != t {
				visit(p)
			}
		}
		state[t] = 2
		out = append(out, t)
	}
	for _, t := range tables {
		visit(t)
	}
	return out
}
