// Package resultcsv reads a query result saved as CSV (a stored result: a team that ran
// its queries on Snowflake or BigQuery scores the saved files offline) into a
// qeval.ResultSet, typing the columns as pandas.read_csv does with its defaults, since
// that is how Spider 2.0's evaluator reads them:
//
//   - the first record is the header; a repeated name gets ".1", ".2", … as in pandas;
//   - a cell in NAValues is NULL; blank lines, and lines of spaces and tabs alone,
//     are skipped; a short record is padded with NULLs and a long one is an error
//     naming its line;
//   - a column whose cells (NULLs aside) are all integers is int64 ("int64"), or
//     float64 when it has a NULL; all numbers is float64; all true/false (in any
//     case) is bool; anything else is text ("object"), numbers included. A number
//     may have ASCII white space around it; an infinity or a boolean may not;
//   - integers past int64 (none negative, no NULL) make a uint64 column, its values
//     held as decimal text since a Value has no unsigned integer; beside a negative
//     or a NULL, or past uint64, they stay text, as in pandas (which then keeps even
//     the NULL spellings as text when a value past int64 meets a NULL);
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

// NAValues are the cells read as NULL: pandas' default na_values, among them the empty
// cell, as pandas 1.5.3 has them. That is Debian 12's pandas, with which the official
// scores qeval is checked against were made (as its SQLite 3.40 and NLTK 3.8 are the
// other evaluators'); pandas 2 adds "None", which stays text here.
var NAValues = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true, "-NaN": true,
	"-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true, "NA": true, "NULL": true,
	"NaN": true, "n/a": true, "nan": true, "null": true,
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
	header, err := readRecord(cr, data)
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
		rec, err := readRecord(cr, data)
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
				col[i] = missing // a missing field: NULL, or "" where NULLs are kept as text
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

// readRecord reads the next record, skipping lines of spaces and tabs alone, which
// pandas skips as it skips empty lines (encoding/csv skips only the empty ones); a
// quoted blank (" ") is a value: a quote among the bytes the record was read from.
func readRecord(cr *csv.Reader, data []byte) ([]string, error) {
	for {
		from := cr.InputOffset()
		rec, err := cr.Read()
		if err != nil || len(rec) != 1 || rec[0] == "" || strings.Trim(rec[0], " \t") != "" ||
			bytes.IndexByte(data[from:cr.InputOffset()], '"') >= 0 {
			return rec, err
		}
	}
}

// typeColumn types one column's cells as pandas' C parser does: integers, else
// floats, else booleans, else text.
func typeColumn(col []string) (string, []qeval.Value) {
	vals := make([]qeval.Value, len(col))
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
	if typ, ints, ok := intColumn(col, vals, nulls); ok {
		return typ, ints
	}
	if floatColumn(col, vals) {
		return Float64, vals
	}
	if boolColumn(col, vals) {
		if nulls == 0 {
			return Bool, vals
		}
		return Object, vals
	}
	return Object, textColumn(col, vals, isNA)
}

// isNA says whether a cell is NULL: a missing field or one of NAValues.
func isNA(s string) bool { return s == missing || NAValues[s] }

// intColumn types a column of integers (NULLs aside) as pandas' int64 parser, where the
// first cell that is not one decides how: int64, or float64 when it has a NULL; past
// int64, as bigIntColumn says. It reports false when the column is no integers.
func intColumn(col []string, vals []qeval.Value, nulls int) (string, []qeval.Value, bool) {
	ints := intOK
	for i, s := range col {
		if isNA(s) {
			continue
		}
		var v int64
		if v, ints = parseInt(s); ints != intOK {
			break
		}
		vals[i] = qeval.Int(v)
	}
	if ints == intOverflow {
		return bigIntColumn(col, vals, isNA)
	}
	if ints != intOK {
		return "", nil, false
	}
	if nulls == 0 {
		return Int64, vals, true
	}
	for i, s := range col {
		// pandas marks the NULLs of an integer column with -2^63, makes the column
		// floats and then the floats equal to -2^63 NULL: so do the cells whose
		// value rounds to it
		if isNA(s) || float64(vals[i].Int) == -(1<<63) {
			vals[i] = qeval.Null
		} else {
			vals[i] = qeval.Float(float64(vals[i].Int))
		}
	}
	return Float64, vals, true
}

// floatColumn reads every cell as a number or NULL into vals, and reports false at
// the first that is neither.
func floatColumn(col []string, vals []qeval.Value) bool {
	for i, s := range col {
		if isNA(s) {
			vals[i] = qeval.Null
			continue
		}
		f, ok := parseFloat(s)
		if !ok {
			return false
		}
		vals[i] = qeval.Float(f)
	}
	return true
}

// boolColumn reads every cell as true, false (in any case, as pandas compares them) or
// NULL into vals, and reports false at the first that is none of these.
func boolColumn(col []string, vals []qeval.Value) bool {
	for i, s := range col {
		switch {
		case isNA(s):
			vals[i] = qeval.Null
		case strings.EqualFold(s, "true"):
			vals[i] = qeval.Bool(true)
		case strings.EqualFold(s, "false"):
			vals[i] = qeval.Bool(false)
		default:
			return false
		}
	}
	return true
}

// intStatus is what pandas' integer parsers make of a cell.
type intStatus int

const (
	intOK       intStatus = iota
	intOverflow           // digits past the limit, whatever follows them
	intInvalid            // not an integer
)

// parseInt reads s as pandas' int64 parser does: ASCII white space around, an
// optional sign, decimal digits.
func parseInt(s string) (int64, intStatus) {
	t := strings.TrimLeft(s, asciiSpace)
	neg := strings.HasPrefix(t, "-")
	if neg || strings.HasPrefix(t, "+") {
		t = t[1:]
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	v, st := parseDigits(t, limit)
	if neg {
		return -int64(v), st // -2^63 wraps to itself
	}
	return int64(v), st
}

// parseDigits reads a run of decimal digits no greater than limit followed by ASCII
// white space alone. A run that passes limit is an overflow even when something else
// follows it: pandas checks the limit digit by digit.
func parseDigits(t string, limit uint64) (uint64, intStatus) {
	if t == "" || t[0] < '0' || t[0] > '9' {
		return 0, intInvalid
	}
	var v uint64
	i := 0
	for ; i < len(t) && '0' <= t[i] && t[i] <= '9'; i++ {
		d := uint64(t[i] - '0')
		if v > (limit-d)/10 {
			return 0, intOverflow
		}
		v = v*10 + d
	}
	if strings.TrimLeft(t[i:], asciiSpace) != "" {
		return 0, intInvalid
	}
	return v, intOK
}

// bigIntColumn types a column whose int64 reading overflowed, as pandas' uint64
// parser and the fallbacks around it do. It reports false when a cell is no integer
// at all (the column may then be floats). Otherwise: all of 0…2^64-1 with none
// negative and none NULL is uint64 (held as decimal text, Column.Type "uint64"); a
// cell past 2^64-1, or a negative one, leaves the column text with its NULLs; a
// value past int64 beside a negative or a NULL leaves it text with even its NULL
// spellings as text ("" included), as pandas does.
func bigIntColumn(col []string, vals []qeval.Value, isNA func(string) bool) (string, []qeval.Value, bool) {
	var seenNull, seenNeg, seenBig bool
	for i, s := range col {
		if isNA(s) {
			seenNull = true
			continue
		}
		t := strings.TrimLeft(s, asciiSpace)
		if strings.HasPrefix(t, "-") { // pandas looks no further than the sign
			seenNeg = true
			continue
		}
		v, st := parseDigits(strings.TrimPrefix(t, "+"), math.MaxUint64)
		switch st {
		case intInvalid:
			return "", nil, false
		case intOverflow:
			return Object, textColumn(col, vals, isNA), true
		}
		seenBig = seenBig || v > math.MaxInt64
		vals[i] = qeval.Text(strconv.FormatUint(v, 10))
	}
	switch {
	case seenBig && (seenNeg || seenNull):
		return Object, textColumn(col, vals, func(s string) bool { return false }), true
	case seenNeg:
		return Object, textColumn(col, vals, isNA), true
	}
	return Uint64, vals, true
}

// textColumn makes every cell text, or NULL where isNA says so.
func textColumn(col []string, vals []qeval.Value, isNA func(string) bool) []qeval.Value {
	for i, s := range col {
		switch {
		case isNA(s):
			vals[i] = qeval.Null
		case s == missing:
			vals[i] = qeval.Text("")
		default:
			vals[i] = qeval.Text(s)
		}
	}
	return vals
}

// missing stands for a field a short record lacks.
const missing = "\x00na"

// asciiSpace is the white space pandas' number parsers skip.
const asciiSpace = " \t\n\v\f\r"

// trimASCII drops the ASCII white space around s, which pandas' number parsers skip.
func trimASCII(s string) string { return strings.Trim(s, asciiSpace) }

// parseFloat reads a decimal number (1, 1., .5, 1e5, inf, Infinity), not Go's hex or
// underscore forms.
func parseFloat(s string) (float64, bool) {
	t := trimASCII(s)
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
	if math.IsInf(f, 0) && (low != "inf" && low != "infinity" || t != s) {
		return 0, false // overflow, or an infinity with spaces: pandas keeps the text
	}
	return f, true
}
