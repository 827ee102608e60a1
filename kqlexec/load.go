package kqlexec

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// A table source is loaded into a fresh SQLite file in the storage the translator
// expects (see value.go): c0..cN-1 and _o, the row order.

// table is a loaded table: its KQL name and columns, and the SQL table holding it.
type table struct {
	name string
	sql  string
	cols []column
}

// rawTable is a table read from a file before it is stored.
type rawTable struct {
	name string
	cols []column // Type "" where it is to be inferred
	rows [][]any  // strings from CSV, JSON values from JSON, SQLite values from SQLite
}

// readSource reads every table of a source: a folder of CSV/JSON files, one such file,
// or a SQLite database.
func readSource(path string) ([]*rawTable, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open data " + path, Message: "no such file or folder", Err: err}
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + path, Message: err.Error(), Err: err}
	}
	if !st.IsDir() {
		if isSQLiteFile(path) {
			return readSQLite(path)
		}
		t, err := readFile(path, nil)
		if err != nil {
			return nil, err
		}
		return []*rawTable{t}, nil
	}
	schemas, err := readSchemaFile(path)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + path, Message: err.Error(), Err: err}
	}
	var out []*rawTable
	for _, e := range entries {
		if e.IsDir() || tableName(e.Name()) == "" {
			continue
		}
		t, err := readFile(filepath.Join(path, e.Name()), schemas)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + path, Message: "no tables: the folder has no .csv, .json or .jsonl files",
			Hint: "name each file after its table: StormEvents.csv (or .csv.gz, .json, .jsonl)"}
	}
	return out, nil
}

var dataExts = []string{".csv.gz", ".json.gz", ".jsonl.gz", ".ndjson.gz", ".csv", ".json", ".jsonl", ".ndjson", ".tsv"}

// tableName is the table a data file holds (its name without the extension), or "".
func tableName(file string) string {
	low := strings.ToLower(file)
	for _, ext := range dataExts {
		if strings.HasSuffix(low, ext) {
			return file[:len(file)-len(ext)]
		}
	}
	return ""
}

func isSQLiteFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [16]byte
	n, _ := io.ReadFull(f, head[:])
	return n == 16 && string(head[:]) == "SQLite format 3\x00"
}

var schemaLine = lazyregexp.New(`(?m)^\s*(?:\.create(?:-merge)?\s+table\s+)?\[?'?([A-Za-z_][\w]*)'?\]?\s*\(([^)]*)\)`)

// readSchemaFile reads schema.kql in a data folder: one table a line, written as
// Name(Col: type, ...) or .create table Name (Col: type, ...).
func readSchemaFile(dir string) (map[string][]column, error) {
	b, err := os.ReadFile(filepath.Join(dir, "schema.kql"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read schema.kql", Message: err.Error(), Err: err}
	}
	out := map[string][]column{}
	for _, m := range schemaLine.FindAllStringSubmatch(string(b), -1) {
		cols, err := parseColumnList(m[2])
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + filepath.Join(dir, "schema.kql"), Message: "table " + m[1] + ": " + err.Error()}
		}
		out[m[1]] = cols
	}
	return out, nil
}

func parseColumnList(s string) ([]column, error) {
	var cols []column
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, ty, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("column %q has no type (write Name: type)", part)
		}
		t, ok := ParseType(ty)
		if !ok {
			return nil, fmt.Errorf("column %s: unknown type %q", strings.TrimSpace(name), strings.TrimSpace(ty))
		}
		cols = append(cols, column{strings.Trim(strings.TrimSpace(name), "[]'\""), t})
	}
	return cols, nil
}

func openData(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

func readFile(path string, schemas map[string][]column) (*rawTable, error) {
	name := tableName(filepath.Base(path))
	if name == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + path, Message: "not a .csv, .json or .jsonl file"}
	}
	r, err := openData(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + path, Message: err.Error(), Err: err}
	}
	defer r.Close()
	low := strings.ToLower(path)
	var t *rawTable
	switch {
	case strings.Contains(low, ".csv") || strings.Contains(low, ".tsv"):
		t, err = readCSV(r, strings.Contains(low, ".tsv"))
	default:
		t, err = readJSON(r)
	}
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + path, Message: err.Error(), Err: err}
	}
	t.name = name
	if s, ok := schemas[name]; ok {
		if err := applySchema(t, s); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + path, Message: err.Error()}
		}
	}
	return t, nil
}

// applySchema sets the declared types of a table read from a file.
func applySchema(t *rawTable, s []column) error {
	if len(s) != len(t.cols) {
		return fmt.Errorf("schema.kql declares %d columns, the file has %d", len(s), len(t.cols))
	}
	for i := range s {
		if s[i].Name != t.cols[i].Name {
			return fmt.Errorf("column %d is %q in the file and %q in schema.kql", i+1, t.cols[i].Name, s[i].Name)
		}
		t.cols[i].Type = s[i].Type
	}
	return nil
}

// inferType picks the narrowest KQL type that reads every non-empty value of a column.
func inferType(rows [][]any, i int) Type {
	cands := []Type{TBool, TLong, TReal, TDatetime, TDynamic}
	ok := map[Type]bool{}
	for _, c := range cands {
		ok[c] = true
	}
	seen := false
	for _, r := range rows {
		v := r[i]
		switch x := v.(type) {
		case nil:
			continue
		case string:
			s := strings.TrimSpace(x)
			if s == "" {
				continue
			}
			seen = true
			if ls := strings.ToLower(s); ls != "true" && ls != "false" {
				ok[TBool] = false
			}
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				ok[TLong] = false
			}
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				ok[TReal] = false
			}
			if !strings.ContainsAny(s, "-/:") {
				ok[TDatetime] = false
			} else if _, e := parseDatetime(s); !e {
				ok[TDatetime] = false
			}
			if !(strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) || !json.Valid([]byte(s)) {
				ok[TDynamic] = false
			}
		case json.Number:
			seen = true
			ok[TBool], ok[TDatetime], ok[TDynamic] = false, false, false
			if _, err := x.Int64(); err != nil {
				ok[TLong] = false
			}
		case int64:
			seen = true
			ok[TBool], ok[TDatetime], ok[TDynamic] = false, false, false
		case float64:
			seen = true
			ok[TBool], ok[TLong], ok[TDatetime], ok[TDynamic] = false, false, false, false
		case bool:
			seen = true
			ok[TLong], ok[TReal], ok[TDatetime], ok[TDynamic] = false, false, false, false
		case []any, map[string]any:
			seen = true
			ok[TBool], ok[TLong], ok[TReal], ok[TDatetime] = false, false, false, false
		default:
			seen = true
			for _, c := range cands {
				ok[c] = false
			}
		}
	}
	if !seen {
		return TString
	}
	for _, c := range cands {
		if ok[c] {
			return c
		}
	}
	return TString
}

// storeValue converts a value read from a file to the storage of type t.
func storeValue(v any, t Type) any {
	switch x := v.(type) {
	case nil:
		return encode(nil, t)
	case string:
		if t == TString {
			return x
		}
		if strings.TrimSpace(x) == "" {
			return encode(nil, t)
		}
		if t == TDynamic {
			return encode(Dyn{parseJSON(x)}, t)
		}
		if t == TBool {
			if b, ok := toBool(x); ok {
				return encode(b, t)
			}
			return nil
		}
		return encode(x, t)
	case []byte:
		return storeValue(string(x), t)
	case json.Number, []any, map[string]any:
		return encode(Dyn{x}, t)
	case time.Time:
		return encode(datetimeOf(x), t)
	case bool, int64, float64:
		if t == TDynamic {
			return encode(Dyn{toJSONValue(x)}, t)
		}
		return encode(x, t)
	}
	return encode(fmt.Sprint(v), t)
}
