package qeval

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Explanation says, in a few facts, how a predicted result differs from the gold one:
// what a person needs to see why a query was judged wrong.
type Explanation struct {
	Equal    bool `json:"equal"`
	GoldRows int  `json:"gold_rows"`
	PredRows int  `json:"pred_rows"`
	GoldCols int  `json:"gold_columns"`
	PredCols int  `json:"pred_columns"`
	Ordered  bool `json:"ordered"`
	// Mapping gives, for each gold column, a predicted column holding the same set of
	// distinct values (nil when no such assignment exists); Unmatched lists gold columns that no
	// predicted column matches.
	Mapping   []int `json:"mapping,omitempty"`
	Unmatched []int `json:"unmatched_gold_columns,omitempty"`
	// Compared is the assignment the rows below were compared through: Mapping, or else
	// each gold column paired with the predicted column sharing the most values.
	Compared []int `json:"compared_columns,omitempty"`
	// Missing are gold rows the prediction lacks, Extra predicted rows the gold lacks
	// (at most compare.MaxExplainRows each; MissingCount and ExtraCount count them all).
	Missing      [][]Value `json:"missing,omitempty"`
	Extra        [][]Value `json:"extra,omitempty"`
	MissingCount int       `json:"missing_count"`
	ExtraCount   int       `json:"extra_count"`
	// SameRowsOtherOrder is set when the rows are equal as bags but not in order.
	SameRowsOtherOrder bool `json:"same_rows_other_order,omitempty"`
	// First is the first differing value, when one can be pointed at.
	First *Difference `json:"first_difference,omitempty"`
	// Database is the database that told the results apart (set by the caller, e.g.
	// from Verdict.Database on a test suite).
	Database string `json:"database,omitempty"`
}

// Difference is one differing cell: row and column are 0-based, in the gold result.
type Difference struct {
	Row    int    `json:"row"`
	Column string `json:"column"`
	Gold   Value  `json:"gold"`
	Pred   Value  `json:"pred"`
}

// String renders the explanation in one or a few short lines.
func (e Explanation) String() string {
	if e.Equal {
		return "the results are equal"
	}
	var parts []string
	if e.Database != "" {
		parts = append(parts, "told apart by "+e.Database)
	}
	parts = append(parts, fmt.Sprintf("gold %d rows × %d columns, prediction %d rows × %d columns", e.GoldRows, e.GoldCols, e.PredRows, e.PredCols))
	switch {
	case e.GoldRows == 0 || e.PredRows == 0 || e.GoldCols == 1 && e.PredCols == 1:
	case e.Mapping != nil:
		parts = append(parts, "every gold column has a predicted column with the same set of values"+orderNote(e))
	case len(e.Unmatched) > 0:
		parts = append(parts, fmt.Sprintf("no column mapping: %d gold column(s) match no predicted column (first: column %d)%s", len(e.Unmatched), e.Unmatched[0]+1, comparedNote(e)))
	default:
		parts = append(parts, "no column mapping: the gold columns cannot all be matched at once")
	}
	if e.SameRowsOtherOrder {
		parts = append(parts, "same rows in another order")
	}
	if e.MissingCount > 0 {
		parts = append(parts, fmt.Sprintf("missing %d row(s), e.g. %s", e.MissingCount, rowsText(e.Missing)))
	}
	if e.ExtraCount > 0 {
		parts = append(parts, fmt.Sprintf("extra %d row(s), e.g. %s", e.ExtraCount, rowsText(e.Extra)))
	}
	if e.First != nil {
		col := e.First.Column
		if col == "" {
			col = "?"
		}
		parts = append(parts, fmt.Sprintf("first difference: row %d, column %s: gold %s, prediction %s", e.First.Row+1, col, valueText(e.First.Gold), valueText(e.First.Pred)))
	}
	return strings.Join(parts, "; ")
}

func comparedNote(e Explanation) string {
	for i, c := range e.Compared {
		if c != i {
			return "; rows compared with the columns paired by shared values"
		}
	}
	return ""
}

func orderNote(e Explanation) string {
	for i, c := range e.Mapping {
		if c != i {
			return " (in another column order)"
		}
	}
	return ""
}

func rowsText(rows [][]Value) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, v := range r {
			vals[j] = valueText(v)
		}
		out[i] = "(" + strings.Join(vals, ", ") + ")"
	}
	return strings.Join(out, " ")
}

func valueText(v Value) string {
	if v.Kind == KindText {
		return fmt.Sprintf("%q", v.Str)
	}
	return v.String()
}

// MaxShownValue bounds, in bytes, each value an explanation shows: a 100 MB blob that
// differs is named by its start and its length, not copied into every report.
const MaxShownValue = 256

// ClipText cuts s to at most n bytes (at a rune boundary), saying how long it was.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// Shown is v as an explanation shows it: text and bytes longer than MaxShownValue
// become text of their start and their length; other values are kept as they are.
func (v Value) Shown() Value {
	if !v.tooLongToShow() {
		return v
	}
	if v.Kind == KindBytes {
		return Text("x'" + hexString(v.Str[:MaxShownValue/2]) + fmt.Sprintf("…' (%d bytes in all)", len(v.Str)))
	}
	return Text(ClipText(v.Str, MaxShownValue))
}

func (v Value) tooLongToShow() bool {
	return v.Kind == KindText && len(v.Str) > MaxShownValue || v.Kind == KindBytes && len(v.Str) > MaxShownValue/2
}

// ShownRow is row with every value Shown (row itself when none is cut).
func ShownRow(row []Value) []Value {
	if !slices.ContainsFunc(row, Value.tooLongToShow) {
		return row
	}
	out := make([]Value, len(row))
	for i, v := range row {
		out[i] = v.Shown()
	}
	return out
}
