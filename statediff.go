package qeval

import (
	"fmt"
	"strconv"
	"strings"
)

// StateVerdict is what a stateful case compared after the gold and after the
// generated answer, each in its own copy of the database: the checks' results, the
// tables left behind, their definitions and the answers' costs. Verdict.State holds it.
type StateVerdict struct {
	// GoldStatements and PredStatements count the statements of each answer.
	GoldStatements int `json:"gold_statements"`
	PredStatements int `json:"pred_statements"`
	// Checks are the case's checks, in order.
	Checks []CheckOutcome `json:"checks,omitempty"`
	// Tables are the tables compared (compare_state), in name order.
	Tables []TableDiff `json:"tables,omitempty"`
	// Schema lists how the tables' definitions differ (compare_schema), "" when equal.
	Schema []string `json:"schema_differences,omitempty"`
	// SchemaCompared is set when the definitions were compared.
	SchemaCompared bool `json:"schema_compared,omitempty"`
	// Result, when set, is the comparison of the answers' last results: what a case
	// with neither checks nor a state or schema comparison is judged on.
	Result *Explanation `json:"result,omitempty"`
	// Cost is the efficiency comparison, when the case has one.
	Cost *CostComparison `json:"cost,omitempty"`
}

// CheckOutcome is one check of a stateful case: its query run after each answer.
type CheckOutcome struct {
	// Index counts the checks from 1.
	Index int    `json:"index"`
	Query string `json:"query"`
	Equal bool   `json:"equal"`
	// Error is the check's failure after the generated answer (it ran on the gold).
	Error string `json:"error,omitempty"`
	// Explanation says how its results differ.
	Explanation *Explanation `json:"explanation,omitempty"`
}

// TableDiff is one table compared after both answers.
type TableDiff struct {
	Table string `json:"table"`
	Equal bool   `json:"equal"`
	// Note says what is wrong with the table as a whole: missing after one answer,
	// other columns.
	Note     string `json:"note,omitempty"`
	GoldRows int    `json:"gold_rows"`
	PredRows int    `json:"pred_rows"`
	Ordered  bool   `json:"ordered,omitempty"`
	// Columns are the table's columns (the gold's).
	Columns []string `json:"columns,omitempty"`
	// Added are rows the generated answer left that the gold did not, Removed rows the
	// gold left that the generated answer did not, Changed rows of the same primary key
	// with other values; a few of each are kept, the counts count them all. An ordered
	// table whose rows are the same in another order has OtherOrder set.
	Added        [][]Value    `json:"added,omitempty"`
	Removed      [][]Value    `json:"removed,omitempty"`
	Changed      []ChangedRow `json:"changed,omitempty"`
	AddedCount   int          `json:"added_count"`
	RemovedCount int          `json:"removed_count"`
	ChangedCount int          `json:"changed_count"`
	OtherOrder   bool         `json:"other_order,omitempty"`
}

// ChangedRow is a row of the same primary key left with other values: as the gold
// left it and as the generated answer did.
type ChangedRow struct {
	Gold []Value `json:"gold"`
	Pred []Value `json:"pred"`
}

// CostComparison is an efficiency check: each answer's cost in Unit, and whether the
// generated one is within MaxRatio of the gold's.
type CostComparison struct {
	Unit     string  `json:"unit"`
	Gold     float64 `json:"gold"`
	Pred     float64 `json:"pred"`
	MaxRatio float64 `json:"max_ratio"`
	Within   bool    `json:"within"`
}

// Equal reports whether everything compared agreed (the cost aside).
func (s *StateVerdict) Equal() bool {
	if s == nil {
		return true
	}
	for _, c := range s.Checks {
		if !c.Equal {
			return false
		}
	}
	for _, t := range s.Tables {
		if !t.Equal {
			return false
		}
	}
	return len(s.Schema) == 0 && (s.Result == nil || s.Result.Equal)
}

// String says in a few short phrases what differed: each check and table that did,
// with rows added, removed and changed, the definitions and the cost.
func (s *StateVerdict) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, c := range s.Checks {
		switch {
		case c.Equal:
		case c.Error != "":
			parts = append(parts, fmt.Sprintf("check %d (%s) fails after the generated answer: %s", c.Index, ClipText(c.Query, 80), c.Error))
		case c.Explanation != nil:
			parts = append(parts, fmt.Sprintf("check %d (%s) differs: %s", c.Index, ClipText(c.Query, 80), c.Explanation.String()))
		default:
			parts = append(parts, fmt.Sprintf("check %d (%s) differs", c.Index, ClipText(c.Query, 80)))
		}
	}
	for _, t := range s.Tables {
		if !t.Equal {
			parts = append(parts, t.String())
		}
	}
	if len(s.Schema) > 0 {
		parts = append(parts, "the definitions differ: "+strings.Join(s.Schema, "; "))
	}
	if s.Result != nil && !s.Result.Equal {
		parts = append(parts, "the last results differ: "+s.Result.String())
	}
	if c := s.Cost; c != nil && !c.Within {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, "; ")
}

// String says how a table differs.
func (t TableDiff) String() string {
	if t.Equal {
		return "table " + t.Table + " is the same"
	}
	out := "table " + t.Table
	if t.Note != "" {
		return out + ": " + t.Note
	}
	var parts []string
	if t.AddedCount > 0 {
		parts = append(parts, fmt.Sprintf("%d row(s) added, e.g. %s", t.AddedCount, rowsText(t.Added)))
	}
	if t.RemovedCount > 0 {
		parts = append(parts, fmt.Sprintf("%d row(s) removed, e.g. %s", t.RemovedCount, rowsText(t.Removed)))
	}
	if t.ChangedCount > 0 {
		c := t.Changed[0]
		parts = append(parts, fmt.Sprintf("%d row(s) changed, e.g. gold %s, generated %s", t.ChangedCount, rowsText([][]Value{c.Gold}), rowsText([][]Value{c.Pred})))
	}
	if t.OtherOrder {
		parts = append(parts, "the same rows in another order")
	}
	return fmt.Sprintf("%s (gold %d rows, generated %d): %s", out, t.GoldRows, t.PredRows, strings.Join(parts, ", "))
}

// String says how the costs compare.
func (c CostComparison) String() string {
	ratio := "∞"
	if c.Gold > 0 {
		ratio = strconv.FormatFloat(c.Pred/c.Gold, 'f', 2, 64)
	}
	verdict := "within"
	if !c.Within {
		verdict = "more than"
	}
	return fmt.Sprintf("the generated answer costs %s %s, %s× the gold's %s (%s max_ratio %g)",
		strconv.FormatFloat(c.Pred, 'f', -1, 64), c.Unit, ratio, strconv.FormatFloat(c.Gold, 'f', -1, 64), verdict, c.MaxRatio)
}
