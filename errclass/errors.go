package errclass

import (
	"errors"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// engineErrors maps the messages engines give for a failed query to a subclass, one
// row per kind of failure, the name the message holds (when there is one) in the
// pattern's first group. SQLite, PostgreSQL (and DuckDB), MySQL (and ClickHouse) and
// the KQL engine word them differently; the first row that matches wins.
var engineErrors = []struct {
	sub string
	re  *lazyregexp.Regexp
}{
	{TableUnknown, lazyregexp.New(`(?i)no such table:\s*([^\s,;]+)|relation "([^"]+)" does not exist|table '([^']+)' doesn't exist|table with name ([^\s]+) does not exist|unknown table "?([^"\s]+)"?|table ([^\s]+) (?:doesn't|does not) exist`)},
	{AttributeAmbiguous, lazyregexp.New(`(?i)ambiguous column(?: name)?:?\s*"?([^"\s]+)"?|column (?:reference )?"([^"]+)" is ambiguous|column '([^']+)' in [a-z ]+ is ambiguous`)},
	{AttributeUnknown, lazyregexp.New(`(?i)no such column:\s*([^\s,;]+)|column "([^"]+)" does not exist|unknown column '([^']+)'|referenced column "([^"]+)" not found|unknown column "?([^"\s]+)"?|missing from-clause entry for table "([^"]+)"|unknown name "([^"]+)": no such column`)},
	{FunctionUnknown, lazyregexp.New(`(?i)no such function:\s*([^\s,;]+)|function ([^\s]+) does not exist|unknown function "?([^"\s(]+)|wrong number of arguments to function ([^\s(]+)|function ([^\s]+)\([^)]*\) does not exist`)},
	{FunctionAggregate, lazyregexp.New(`(?i)misuse of (?:aggregate|window function)(?: function)?:?\s*([^\s(]*)|aggregate functions are not allowed|must appear in the group by clause|invalid use of group function`)},
	{ValueType, lazyregexp.New(`(?i)datatype mismatch|operator does not exist|invalid input syntax for type|conversion error|type mismatch|cannot compare|cannot be applied to|incompatible types|could not convert`)},
	{OtherSyntax, lazyregexp.New(`(?i)syntax error|incomplete input|unrecognized token|you have an error in your sql syntax|parser error|parse error|unterminated|parse kql|unexpected '`)},
}

// forbidden matches the messages of a statement the harness refused to run: a write,
// several statements where one may run.
var forbidden = lazyregexp.New(`(?i)forbidden|read-only|(is|are) not allowed|multiple statements`)

// failureClass is the class of a generated query that did not run to a result: the
// outcome (timeout, too_large), else what the engine's message names.
func failureClass(v *qeval.Verdict) qeval.ErrorClass {
	switch v.Outcome {
	case qeval.OutcomeTimeout:
		return qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherTimeout, Reason: v.Error}
	case qeval.OutcomeTooLarge:
		return qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherTooLarge, Reason: v.Error}
	}
	return MessageClass(v.Error)
}

// MessageClass is the class of an engine's message for a failed generated query:
// an unknown table or column (with its name as the generated fragment), a type
// mismatch, a syntax error, an unknown function, a forbidden statement; other.error
// when the message names none of them.
func MessageClass(msg string) qeval.ErrorClass {
	if forbidden.MatchString(msg) {
		return qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherForbidden, Reason: msg}
	}
	for _, row := range engineErrors {
		m := row.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		name := ""
		for _, g := range m[1:] {
			if g != "" {
				name = g
				break
			}
		}
		return qeval.ErrorClass{Class: qeval.ClassOfSubclass(row.sub), Subclass: row.sub, Generated: name, Reason: msg}
	}
	return qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherError, Reason: msg}
}

func asError(err error, target **qeval.Error) bool { return errors.As(err, target) }
