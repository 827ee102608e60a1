package exactmatch

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// Schema is what the official parser knows of a database: its tables and their columns,
// lower-cased, and the ids it gives them ("__table__", "__table.column__", "__all__").
type Schema struct {
	tables []schemaTable
	cols   map[string]map[string]bool
	ids    map[string]string
}

type schemaTable struct {
	name string
	cols []string
}

// NewSchema builds the parser's schema from a database's tables. Like the official
// get_schema it takes tables only (views are left out) and lower-cases every name.
func NewSchema(s *qeval.Schema) *Schema {
	out := &Schema{cols: map[string]map[string]bool{}, ids: map[string]string{"*": "__all__"}}
	for _, t := range s.Tables {
		if isView(t.DDL) {
			continue
		}
		st := schemaTable{name: strings.ToLower(t.Name)}
		set := map[string]bool{}
		for _, c := range t.Columns {
			name := strings.ToLower(c.Name)
			st.cols = append(st.cols, name)
			set[name] = true
			out.ids[st.name+"."+name] = "__" + st.name + "." + name + "__"
		}
		out.tables = append(out.tables, st)
		out.cols[st.name] = set
	}
	for _, t := range out.tables {
		out.ids[t.name] = "__" + t.name + "__"
	}
	return out
}

func isView(ddl string) bool {
	f := strings.Fields(strings.ToUpper(ddl))
	for i, w := range f {
		if w == "VIEW" {
			return true
		}
		if w == "TABLE" || i > 3 {
			return false
		}
	}
	return false
}

func (s *Schema) hasColumn(table, col string) bool { return s.cols[table][col] }

// ForeignKeys maps a column id to the id that stands for all the columns it is linked to
// by foreign keys, per database, as build_foreign_key_map does: key pairs are grouped
// into sets (a pair joins the first set that holds either of its columns) and each set
// is named by its column with the lowest index in tables.json.
type ForeignKeys map[string]map[string]string

// LoadForeignKeys reads Spider's tables.json: the databases named in dbIDs, or all of
// them when there are none.
func LoadForeignKeys(path string, dbIDs ...string) (ForeignKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --table " + path, Message: "no such file", Err: err}
	}
	var dbs []tablesEntry
	if err := json.Unmarshal(data, &dbs); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --table " + path, Message: err.Error(), Err: err,
			Hint: "the file must be Spider's tables.json: a list of databases with column_names_original and foreign_keys"}
	}
	want := map[string]bool{}
	for _, id := range dbIDs {
		want[id] = true
	}
	out := ForeignKeys{}
	for n, db := range dbs {
		if len(want) > 0 && !want[db.DBID] {
			continue
		}
		m, err := db.foreignKeys()
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --table " + path,
				Message: fmt.Sprintf("database %d (%q): ", n, db.DBID) + err.Error()}
		}
		out[db.DBID] = m
	}
	return out, nil
}

// tablesEntry is one database of tables.json; the details are decoded only for the
// databases asked for.
type tablesEntry struct {
	DBID        string          `json:"db_id"`
	Tables      json.RawMessage `json:"table_names_original"`
	Columns     json.RawMessage `json:"column_names_original"`
	ForeignKeys json.RawMessage `json:"foreign_keys"`
}

// foreignKeys is the database's map of ForeignKeys.
func (db *tablesEntry) foreignKeys() (map[string]string, error) {
	var tables []string
	var columns []json.RawMessage
	var keys [][2]int
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		into any
	}{{"table_names_original", db.Tables, &tables}, {"column_names_original", db.Columns, &columns}, {"foreign_keys", db.ForeignKeys, &keys}} {
		if len(f.raw) == 0 {
			continue
		}
		if err := json.Unmarshal(f.raw, f.into); err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
	}
	cols, err := columnIDs(tables, columns)
	if err != nil {
		return nil, err
	}
	sets, err := keySets(keys, len(cols))
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, s := range sets {
		idx := make([]int, 0, len(s))
		for i := range s {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			m[cols[i]] = cols[idx[0]]
		}
	}
	return m, nil
}

// columnIDs gives each entry of column_names_original ([table index, name]) the
// parser's id: "__table.column__", or "__all__" for the * entry (table index -1).
func columnIDs(tables []string, columns []json.RawMessage) ([]string, error) {
	cols := make([]string, len(columns))
	for i, raw := range columns {
		var pair [2]any
		if err := json.Unmarshal(raw, &pair); err != nil {
			return nil, fmt.Errorf("column_names_original[%d]: %v", i, err)
		}
		ti, ok1 := pair[0].(float64)
		cn, ok2 := pair[1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("column_names_original[%d] is not [table index, name]", i)
		}
		if ti < 0 {
			cols[i] = "__all__"
			continue
		}
		if int(ti) >= len(tables) {
			return nil, fmt.Errorf("column_names_original[%d] names table %d of %d", i, int(ti), len(tables))
		}
		cols[i] = "__" + strings.ToLower(tables[int(ti)]) + "." + strings.ToLower(cn) + "__"
	}
	return cols, nil
}

// keySets groups the foreign key pairs (column indexes below ncols) into sets: a pair
// joins the first set that holds either of its columns.
func keySets(keys [][2]int, ncols int) ([]map[int]bool, error) {
	var sets []map[int]bool
	for _, fk := range keys {
		for _, c := range fk {
			if c < 0 || c >= ncols {
				return nil, fmt.Errorf("foreign key %v: column index out of range", fk)
			}
		}
		var set map[int]bool
		for _, s := range sets {
			if s[fk[0]] || s[fk[1]] {
				set = s
				break
			}
		}
		if set == nil {
			set = map[int]bool{}
			sets = append(sets, set)
		}
		set[fk[0]], set[fk[1]] = true, true
	}
	return sets, nil
}
