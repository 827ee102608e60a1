package resultcsv

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Write writes rs as CSV the way pandas writes a frame built from the same query
// result (read_sql_query, then to_csv without the index): a header, NULL as an empty
// cell, and a column of integers with a NULL written as floats (1.0), as pandas turns
// it into float64. Read of the output gives what pandas' read_csv gives.
func Write(w io.Writer, rs *qeval.ResultSet) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(rs.ColumnNames()); err != nil {
		return err
	}
	asFloat := make([]bool, len(rs.Columns))
	for j := range rs.Columns {
		asFloat[j] = numericWithFloat(rs, j)
	}
	rec := make([]string, len(rs.Columns))
	for _, row := range rs.Rows {
		for j, v := range row {
			switch {
			case v.IsNull():
				rec[j] = ""
			case asFloat[j] && v.Kind == qeval.KindInt:
				rec[j] = floatText(float64(v.Int))
			case v.Kind == qeval.KindFloat:
				rec[j] = floatText(v.Float)
			case v.Kind == qeval.KindBool:
				rec[j] = "False"
				if v.Int != 0 {
					rec[j] = "True"
				}
			default:
				rec[j] = v.String()
			}
		}
		if len(rec) == 1 && rec[0] == "" {
			// a lone empty cell is written quoted, as Python's csv module does, so that
			// the row is not a blank line (which readers skip)
			cw.Flush()
			if _, err := io.WriteString(w, "\"\"\n"); err != nil {
				return err
			}
			continue
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// numericWithFloat reports whether column j holds numbers only (NULLs aside) and a
// float or a NULL among them: pandas makes such a column float64.
func numericWithFloat(rs *qeval.ResultSet, j int) bool {
	float, null, num := false, false, false
	for _, row := range rs.Rows {
		switch row[j].Kind {
		case qeval.KindInt:
			num = true
		case qeval.KindFloat:
			num, float = true, true
		case qeval.KindNull:
			null = true
		default:
			return false
		}
	}
	return num && (float || null)
}

// floatText writes a float so that it reads back as a float: with a ".0" when it
// would otherwise look like an integer.
func floatText(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "NaN":
		return ""
	case "+Inf":
		return "inf"
	case "-Inf":
		return "-inf"
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
