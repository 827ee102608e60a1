package qeval

import "strings"

// ErrorClass is one way a wrong generated query differs from its gold: a main class
// from a fixed vocabulary (ErrorClassNames), a subclass that says exactly what
// differs ("value.literal", "clause.limit"), and the fragment of each query that
// differs. It is computed from the two queries' syntax trees and the execution's
// outcome, never by an LLM (package errclass).
type ErrorClass struct {
	Class    string `json:"class"`
	Subclass string `json:"subclass"`
	// Expected and Generated are the differing fragments of the gold and the generated
	// query ("" for a part one of them lacks).
	Expected  string `json:"expected,omitempty"`
	Generated string `json:"generated,omitempty"`
	// Reason says more when the fragments cannot: the engine's error, the parse error
	// of a query the grammar cannot read.
	Reason string `json:"reason,omitempty"`
}

// The main error classes (NL2SQL-BUGs' nine categories).
const (
	ClassValue     = "value"
	ClassOperator  = "operator"
	ClassCondition = "condition"
	ClassFunction  = "function"
	ClassAttribute = "attribute"
	ClassTable     = "table"
	ClassClause    = "clause"
	ClassSubquery  = "subquery"
	ClassOther     = "other"
)

// ErrorClassNames lists the main classes in report order.
var ErrorClassNames = []string{ClassValue, ClassOperator, ClassCondition, ClassFunction,
	ClassAttribute, ClassTable, ClassClause, ClassSubquery, ClassOther}

// MainErrorClass is the main class of a case's error classes: that of the first (the
// most specific), "" when there is none.
func MainErrorClass(classes []ErrorClass) string {
	if len(classes) == 0 {
		return ""
	}
	return classes[0].Class
}

// SubclassOf builds a subclass name: class "." detail.
func SubclassOf(class, detail string) string { return class + "." + detail }

// ClassOfSubclass is the main class of a subclass name ("value.literal" → "value").
func ClassOfSubclass(sub string) string {
	c, _, _ := strings.Cut(sub, ".")
	return c
}
