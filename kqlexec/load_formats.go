package kqlexec

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// Readers of CSV, JSON and SQLite sources.

func readCSV(r io.Reader, tsv bool) (*rawTable, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	if tsv {
		cr.Comma = '\t'
	}
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("no header row: %v", err)
	}
	t := &rawTable{}
	for _, h := range head {
		name, ty, _ := strings.Cut(strings.TrimPrefix(h, "\ufeff"), ":")
		c := column{Name: strings.TrimSpace(name)}
		if ty != "" {
			if c.Type, _ = ParseType(ty); c.Type == "" {
				return nil, fmt.Errorf("header %q: unknown type %q", h, ty)
			}
		}
		t.cols = append(t.cols, c)
	}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, err
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("line %d: %d fields, the header has %d", line, len(rec), len(head))
		}
		row := make([]any, len(rec))
		for i, v := range rec {
			row[i] = v
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

// readJSON reads a JSON array of objects, or JSON lines (one object a line).
func readJSON(r io.Reader) (*rawTable, error) {
	d := json.NewDecoder(bufio.NewReader(r))
	d.UseNumber()
	var objs []map[string]any
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if delim, ok := tok.(json.Delim); ok && delim == '[' {
		for d.More() {
			var o map[string]any
			if err := d.Decode(&o); err != nil {
				return nil, err
			}
			objs = append(objs, o)
		}
	} else if ok && delim == '{' {
		// JSON lines: read the first object's members by hand, then the rest.
		o, err := decodeObjectBody(d)
		if err != nil {
			return nil, err
		}
		objs = append(objs, o)
		for d.More() {
			var o map[string]any
			if err := d.Decode(&o); err != nil {
				return nil, err
			}
			objs = append(objs, o)
		}
	} else {
		return nil, errors.New("expected a JSON array of objects or JSON lines")
	}
	t := &rawTable{}
	index := map[string]int{}
	for _, o := range objs {
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := index[k]; !ok {
				index[k] = len(t.cols)
				t.cols = append(t.cols, column{Name: k})
			}
		}
	}
	for _, o := range objs {
		row := make([]any, len(t.cols))
		for k, v := range o {
			row[index[k]] = v
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

func decodeObjectBody(d *json.Decoder) (map[string]any, error) {
	o := map[string]any{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, errors.New("bad JSON object key")
		}
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		o[key] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// readSQLite reads every table of a SQLite file, with KQL types from the declared
// column types (a KQL type name, or the SQL affinity).
func readSQLite(path string) ([]*rawTable, error) {
	db := sqlite.OpenReadOnly(path)
	defer db.Close()
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open database " + path, Message: err.Error(), Err: err}
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	var out []*rawTable
	for _, n := range names {
		t, err := readSQLiteTable(ctx, db, n)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read table " + n + " of " + path, Message: err.Error(), Err: err}
		}
		out = append(out, t)
	}
	return out, nil
}

func readSQLiteTable(ctx context.Context, db *sql.DB, name string) (*rawTable, error) {
	q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	t := &rawTable{name: name}
	for _, ct := range cts {
		t.cols = append(t.cols, column{Name: ct.Name(), Type: sqlDeclType(ct.DatabaseTypeName())})
	}
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		t.rows = append(t.rows, vals)
	}
	return t, rows.Err()
}

// sqlDeclType maps a declared SQLite column type to a KQL type ("" to infer).
func sqlDeclType(decl string) Type {
	d := strings.ToLower(strings.TrimSpace(decl))
	if t, ok := ParseType(d); ok {
		return t
	}
	switch {
	case strings.Contains(d, "int"):
		return TLong
	case strings.Contains(d, "char"), strings.Contains(d, "clob"), strings.Contains(d, "text"):
		return TString
	case strings.Contains(d, "real"), strings.Contains(d, "floa"), strings.Contains(d, "doub"), strings.Contains(d, "numeric"):
		return TReal
	case strings.Contains(d, "timestamp"):
		return TDatetime
	}
	return ""
}
