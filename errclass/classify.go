package errclass

import (
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/sqlparse"
)

// Pair is what a case's error classes are computed from.
type Pair struct {
	// Dialect is the case's dialect: a SQL dialect ("" is SQLite) or "kql".
	Dialect   string
	Expected  string
	Generated string
	// Verdict is the execution's verdict (nil when execution did not run: the queries
	// are then compared as they are).
	Verdict *qeval.Verdict
	// Schema, when known, names unqualified columns by their table.
	Schema *qeval.Schema
}

// Classify returns the error classes of a wrong generated query, most specific first;
// nil when the verdict is a match or no verdict on the generated query (gold error,
// canceled, skipped, unscorable, unsupported). It never fails: a query the grammar
// cannot read is class other with the parse error as reason.
func Classify(p Pair) []qeval.ErrorClass {
	if strings.EqualFold(p.Dialect, "sql") {
		p.Dialect = "" // a run's SQL suite names no engine: SQLite's grammar
	}
	v := p.Verdict
	if v != nil && (v.Match || !v.Outcome.Judged() || v.Outcome == qeval.OutcomeSkipped) {
		return nil
	}
	var failure *qeval.ErrorClass
	if v != nil && v.Outcome != qeval.OutcomeMismatch {
		f := failureClass(v)
		failure = &f
	}
	d := &differ{}
	gold, pred, err := parsePair(p)
	switch {
	case err != nil:
		if failure == nil {
			// with the engine's own failure, that it says is more than a grammar here can
			d.out = append(d.out, *err)
		}
	case gold.Kind == pred.Kind:
		d.compare(gold, pred)
	case failure == nil:
		d.out = append(d.out, qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherError,
			Reason: "the generated query is a " + pred.Kind + " statement, the gold a " + gold.Kind + " statement"})
	}
	out := order(d.out)
	if failure != nil {
		if strings.HasPrefix(failure.Subclass, qeval.ClassOther+".") {
			out = append(out, *failure)
		} else {
			out = append([]qeval.ErrorClass{*failure}, out...)
		}
	}
	if len(out) == 0 {
		out = append(out, fallback(v))
	}
	return out
}

// parsePair reads both queries into outlines; a query that cannot be read is an
// error class (other.syntax for the generated one, other.unparsed for the gold).
func parsePair(p Pair) (*sqlparse.Outline, *sqlparse.Outline, *qeval.ErrorClass) {
	read := func(q string) (*sqlparse.Outline, error) {
		if strings.EqualFold(p.Dialect, "kql") {
			sh, err := kql.ParseShape(q)
			if err != nil {
				return nil, err
			}
			return kqlOutline(sh), nil
		}
		return sqlparse.ParseOutline(p.Dialect, q, p.Schema)
	}
	if strings.EqualFold(p.Dialect, "malloy") {
		return nil, nil, &qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherUnparsed, Reason: "Malloy queries are compared by their results only"}
	}
	gold, err := read(p.Expected)
	if err != nil {
		return nil, nil, &qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherUnparsed, Expected: clip(p.Expected),
			Reason: "the gold query cannot be parsed: " + qeval.ErrorMessage(err)}
	}
	pred, err := read(p.Generated)
	if err != nil {
		return nil, nil, &qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherSyntax, Generated: clip(p.Generated),
			Reason: positioned(err)}
	}
	return gold, pred, nil
}

func positioned(err error) string {
	var e *qeval.Error
	msg := qeval.ErrorMessage(err)
	if asError(err, &e) && e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Col) + ": " + msg
	}
	return msg
}

// order sorts the classes found by the vocabulary's order (stable: in a kind, the
// order the queries were read in) and drops repeats.
func order(list []qeval.ErrorClass) []qeval.ErrorClass {
	sort.SliceStable(list, func(i, j int) bool { return rank[list[i].Subclass] < rank[list[j].Subclass] })
	out := list[:0]
	seen := map[qeval.ErrorClass]bool{}
	for _, c := range list {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// fallback is the class of a wrong query whose text shows no difference the grammar
// can name: what the results say, else other.same_structure.
func fallback(v *qeval.Verdict) qeval.ErrorClass {
	c := qeval.ErrorClass{Class: qeval.ClassOther, Subclass: OtherSameStructure,
		Reason: "the queries read the same to the grammar"}
	if v == nil || v.Explanation == nil {
		return c
	}
	e := v.Explanation
	switch {
	case e.SameRowsOtherOrder:
		return qeval.ErrorClass{Class: qeval.ClassClause, Subclass: ClauseOrderBy, Reason: "same rows in another order"}
	case e.PredCols > e.GoldCols:
		return qeval.ErrorClass{Class: qeval.ClassAttribute, Subclass: AttributeExtra, Reason: e.String()}
	case e.PredCols < e.GoldCols:
		return qeval.ErrorClass{Class: qeval.ClassAttribute, Subclass: AttributeMissing, Reason: e.String()}
	}
	c.Reason += "; " + e.String()
	return c
}

const maxFragment = 200

func clip(s string) string { return qeval.ClipText(strings.TrimSpace(s), maxFragment) }
