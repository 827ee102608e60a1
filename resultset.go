package qeval

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

// Column describes one result column: its name and the type the database declared
// for it ("" when the column is an expression).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ResultSet is what a query returned: its columns and its rows, in the order the
// database produced them.
type ResultSet struct {
	Columns []Column  `json:"columns"`
	Rows    [][]Value `json:"rows"`
}

// NumRows returns the number of rows, 0 for a nil result set.
func (r *ResultSet) NumRows() int {
	if r == nil {
		return 0
	}
	return len(r.Rows)
}

// ColumnNames returns the names of the columns.
func (r *ResultSet) ColumnNames() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return names
}

// Head returns r limited to its first n rows (r itself when it has no more than n
// rows, or n < 0). A shorter result gets its own list of rows: a slice of r's would
// keep every row of r alive as long as the head is kept (a report's preview of a
// 64 MB result held the whole result).
func (r *ResultSet) Head(n int) *ResultSet {
	if r == nil {
		return nil
	}
	if n < 0 || n >= len(r.Rows) {
		return r
	}
	return &ResultSet{Columns: r.Columns, Rows: slices.Clone(r.Rows[:n])}
}

// Preview returns a copy of r limited to its first n rows, with every text or bytes
// value longer than maxBytes cut to that length (on a UTF-8 boundary) and marked with
// the length it had. Reports store previews: the full result is not needed to report a
// verdict, and a result of a few huge values must not fill memory or a report.
func (r *ResultSet) Preview(n, maxBytes int) *ResultSet {
	h := r.Head(n)
	if h == nil {
		return nil
	}
	var out *ResultSet
	for i, row := range h.Rows {
		for j, v := range row {
			if (v.Kind != KindText && v.Kind != KindBytes) || len(v.Str) <= maxBytes {
				continue
			}
			if out == nil {
				out = &ResultSet{Columns: h.Columns, Rows: make([][]Value, len(h.Rows))}
				copy(out.Rows, h.Rows)
			}
			if &out.Rows[i][0] == &h.Rows[i][0] {
				out.Rows[i] = append([]Value(nil), row...)
			}
			cut := maxBytes
			for cut > 0 && cut < len(v.Str) && v.Str[cut]&0xC0 == 0x80 {
				cut--
			}
			out.Rows[i][j] = Value{Kind: v.Kind, Str: v.Str[:cut] + "…(" + strconv.Itoa(len(v.Str)) + " bytes)"}
		}
	}
	if out == nil {
		return h
	}
	return out
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// MarshalJSON writes the result set with "rows": [] (never null) when it has no rows.
func (r ResultSet) MarshalJSON() ([]byte, error) {
	type plain ResultSet
	if r.Rows == nil {
		r.Rows = [][]Value{}
	}
	if r.Columns == nil {
		r.Columns = []Column{}
	}
	return json.Marshal(plain(r))
}
