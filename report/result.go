package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/qeval/qeval"
)

type resultColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type resultError struct {
	Code    qeval.Code `json:"code"`
	Message string     `json:"message"`
	Line    int        `json:"line,omitempty"`
	Col     int        `json:"col,omitempty"`
	Hint    string     `json:"hint,omitempty"`
}

// ResultJSON is a query's result as `qeval exec --json` prints it.
type ResultJSON struct {
	Columns []resultColumn      `json:"columns"`
	Rows    [][]json.RawMessage `json:"rows"`
	Error   *resultError        `json:"error"`
	// SQL is what ran, when it is not the query given: a Malloy query's compiled SQL.
	SQL string `json:"sql,omitempty"`
}

// WriteResultJSON prints a query's result (or its error) as one JSON object. Values are as qeval.Value writes
// them (times in RFC 3339 UTC); cells of dynamic columns are the JSON they hold. sql,
// when not empty, is the SQL that ran for the query (a Malloy query's compiled SQL).
func WriteResultJSON(w io.Writer, rs *qeval.ResultSet, qerr error, sql string) error {
	out := ResultJSON{Columns: []resultColumn{}, Rows: [][]json.RawMessage{}, SQL: sql}
	if qerr != nil {
		ee := &resultError{Code: qeval.ErrorCode(qerr), Message: qeval.ErrorMessage(qerr), Hint: qeval.ErrorHint(qerr)}
		if x, ok := qerr.(*qeval.Error); ok {
			ee.Line, ee.Col = x.Line, x.Col
		}
		out.Error = ee
	} else {
		for _, c := range rs.Columns {
			out.Columns = append(out.Columns, resultColumn{c.Name, c.Type})
		}
		for _, r := range rs.Rows {
			row := make([]json.RawMessage, len(r))
			for i, v := range r {
				if rs.Columns[i].Type == "dynamic" && v.Kind == qeval.KindText && json.Valid([]byte(v.Str)) {
					row[i] = json.RawMessage(v.Str)
					continue
				}
				b, err := v.MarshalJSON()
				if err != nil {
					return err
				}
				row[i] = b
			}
			out.Rows = append(out.Rows, row)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteResultTable prints a result as aligned columns with a header line.
func WriteResultTable(w io.Writer, rs *qeval.ResultSet) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(rs.ColumnNames(), "\t"))
	for _, r := range rs.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			if v.IsNull() {
				cells[i] = ""
			} else {
				cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(v.String())
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintf(w, "(%d rows)\n", len(rs.Rows))
}

// WriteQueryError prints a failed query as "error: line:col: message", the query line
// and a caret under the column when the position is known.
func WriteQueryError(w io.Writer, text string, err error) {
	msg := strings.TrimSpace(qeval.ErrorMessage(err))
	x, ok := err.(*qeval.Error)
	if ok && x.Line > 0 && !strings.Contains(msg, "\n") {
		msg = fmt.Sprintf("%d:%d: %s", x.Line, x.Col, msg)
	}
	fmt.Fprintf(w, "error: %s\n", msg)
	if ok && x.Line > 0 && !strings.Contains(msg, "\n") {
		lines := strings.Split(text, "\n")
		if x.Line <= len(lines) {
			fmt.Fprintf(w, "    %s\n    %s^\n", lines[x.Line-1], strings.Repeat(" ", max(0, x.Col-1)))
		}
	}
	if h := qeval.ErrorHint(err); h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}
