// Package resultcsv reads a query result saved as CSV (a stored result: a team that ran
// its queries on Snowflake or BigQuery scores the saved files offline) into a
// qeval.ResultSet, typing the columns as pandas.read_csv does with its defaults, since
// that is how Spider 2.0's evaluator reads them:
//
//   - the first record is the header; a repeated name gets ".1", ".2", … as in pandas;
//   - a cell in NAValues is NULL; blank lines are skipped; a short record is padded
//     with NULLs and a long one is an error naming its line;
//   - a column whose cells (NULLs aside) are all integers is int64 ("int64"), or
//     float64 when it has a NULL; all numbers is float64; all True/False (any case
//     pandas accepts) is bool; anything else is text ("object"), numbers included;
//   - integers past int64 (none negative, no NULL) make a uint64 column, its values
//     held as decimal text since a Value has no unsigned integer; past uint64 they
//     stay text, as in pandas;
//   - Column.Type records that dtype: int64, uint64, float64, bool or object.
//
// Write does the reverse, as pandas' DataFrame.to_csv writes a frame.
package resultcsv

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// The column types Read records, as pandas names its dtypes.
const (
	Int64   = "int64"
	Uint64  = "uint64" // integers past int64, held as decimal text
	Float64 = "float64"
	Bool    = "bool"
	Object  = "object"
)

// NAValues are the cells read as NULL: pandas' default na_values (pandas 2), among
// them the empty cell.
var NAValues = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true, "-NaN": true,
	"-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true, "NA": true, "NULL": true,
	"NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

// ReadFile reads the CSV file at path.
func ReadFile(path string) (*qeval.ResultSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a CSV result; name labels errors. A file with no header is an error, as
// it is for pandas ("no columns to parse").
func Read(r io.Reader, name string) (*qeval.ResultSet, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: no columns to parse from file", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(header))}
	// a repeated name becomes name.1, name.2, … as pandas mangles it
	counts, used := map[string]int{}, map[string]bool{}
	for i, h := range header {
		n := h
		for used[n] {
			counts[h]++
			n = h + "." + strconv.Itoa(counts[h])
		}
		used[n] = true
		rs.Columns[i].Name = n
	}
	var cells [][]string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) > len(header) {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("%s:%d: expected %d fields, saw %d", name, line, len(header), len(rec))
		}
		cells = append(cells, rec)
	}
	rs.Rows = make([][]qeval.Value, len(cells))
	for i := range rs.Rows {
		rs.Rows[i] = make([]qeval.Value, len(header))
	}
	col := make([]string, len(cells))
	for j := range header {
		for i, rec := range cells {
			col[i] = ""
			if j < len(rec) {
				col[i] = rec[j]
			} else {
				col[i] = "\x00na" // a missing field, NULL whatever NAValues says
			}
		}
		typ, vals := typeColumn(col)
		rs.Columns[j].Type = typ
		for i, v := range vals {
			rs.Rows[i][j] = v
		}
	}
	return rs, nil
}

// typeColumn types one column's cells as pandas' C parser does.
func typeColumn(col []string) (string, []qeval.Value) {
	vals := make([]qeval.Value, len(col))
	isNA := func(s string) bool { return s == "\x00na" || NAValues[s] }
	nulls, n := 0, len(col)
	for _, s := range col {
		if isNA(s) {
			nulls++
		}
	}
	if n == 0 {
		return Object, vals
	}
	if nulls == n {
		for i := range vals {
			vals[i] = qeval.Null
		}
		return Float64, vals
	}
	// integers
	ints, big := true, false
	for i, s := range col {
		if isNA(s) {
			continue
		}
		v, ok := parseInt(s)
		if !ok {
			ints = false
			big = isIntSyntax(s)
			break
		}
		vals[i] = qeval.Int(v)
	}
	if !ints && big {
		return bigIntColumn(col, vals, isNA)
	}
	if ints {
		if nulls == 0 {
			return Int64, vals
		}
		for i, s := range col {
			if isNA(s) {
				vals[i] = qeval.Null
			} else {
				vals[i] = qeval.Float(float64(vals[i].Int))
			}
		}
		return Float64, vals
	}
	floats := true
	for i, s := range col {
		if isNA(s) {
			vals[i] = qeval.Null
			continue
		}
		f, ok := parseFloat(s)
		if !ok {
			floats = false
			break
		}
		vals[i] = qeval.Float(f)
	}
	if floats {
		return Float64, vals
	}
	bools := true
	for i, s := range col {
		if isNA(s) {
			vals[i] = qeval.Null
			continue
		}
		switch s {
		case "True", "TRUE", "true":
			vals[i] = qeval.Bool(true)
		case "False", "FALSE", "false":
			vals[i] = qeval.Bool(false)
		default:
			bools = false
		}
		if !bools {
			break
		}
	}
	if bools {
		if nulls == 0 {
			return Bool, vals
		}
		return Object, vals
	}
	for i, s := range col {
		if isNA(s) {
			vals[i] = qeval.Null
		} else {
			vals[i] = qeval.Text(s)
		}
	}
	return Object, vals
}

// parseInt reads a decimal integer that fits int64, with optional sign and
// surrounding spaces, as pandas' parser accepts it.
func parseInt(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t, "_xXoObB") {
		return 0, false
	}
	v, err := strconv.ParseInt(t, 10, 64)
	return v, err == nil
}

// isIntSyntax reports whether s is an optionally signed run of digits (with
// surrounding spaces), whatever its size.
func isIntSyntax(s string) bool {
	t := strings.TrimLeft(strings.TrimSpace(s), "+-")
	if t == "" {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// bigIntColumn types a column of integers one of which does not fit int64: uint64
// (held as decimal text, Column.Type "uint64") when all fit it, none is negative and
// none is NULL; float64 when they fit but one is NULL; else text, as pandas keeps them.
func bigIntColumn(col []string, vals []qeval.Value, isNA func(string) bool) (string, []qeval.Value) {
	fits, nulls := true, false
	for _, s := range col {
		if isNA(s) {
			nulls = true
			continue
		}
		if !isIntSyntax(s) {
			fits = false
			break
		}
		if _, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "+"), 10, 64); err != nil {
			fits = false
		}
	}
	for i, s := range col {
		switch {
		case isNA(s):
			vals[i] = qeval.Null
		case fits && nulls:
			f, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
			vals[i] = qeval.Float(f)
		case fits:
			u, _ := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "+"), 10, 64)
			vals[i] = qeval.Text(strconv.FormatUint(u, 10))
		default:
			vals[i] = qeval.Text(s)
		}
	}
	switch {
	case fits && nulls:
		return Float64, vals
	case fits:
		return Uint64, vals
	}
	return Object, vals
}

// parseFloat reads a decimal number (1, 1., .5, 1e5, inf, Infinity), not Go's hex or
// underscore forms.
func parseFloat(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t, "_xXpP") {
		return 0, false
	}
	low := strings.ToLower(strings.TrimLeft(t, "+-"))
	if strings.HasPrefix(low, "n") { // nan is NA, never a number here
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	if math.IsInf(f, 0) && low != "inf" && low != "infinity" {
		return 0, false // overflow: pandas keeps the text
	}
	return f, true
}
