package compare

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// Engines differ in how they hand back the same data, so when the gold runs on one
// engine and the prediction on another (qeval spider --pred-engine, a suite's
// prediction database), both results are brought to a portable form before the mode
// compares them:
//
//   - a date or timestamp, whether the engine returns a time value or SQLite's text
//     ("2018-03-22 13:50:25"), becomes the text YYYY-MM-DD, with " HH:MM:SS" (and a
//     fraction) only when the time of day is not midnight;
//   - a float is rounded to 12 significant digits (engines sum in different orders,
//     so an average can differ in its last bits); an integral float stays equal to the
//     integer, as every mode already treats it;
//   - a boolean becomes 1 or 0 (SQLite and MySQL have no boolean type).
//
// What this does not hide, because the queries then mean different things on the two
// engines (ExplainEngineDifference names each): integer division (SQLite and
// PostgreSQL truncate 7/2, DuckDB and MySQL return 3.5), LIKE's case sensitivity (SQLite
// and MySQL ignore ASCII case, DuckDB and PostgreSQL do not), where NULLs sort (first in
// SQLite and MySQL ascending, last in DuckDB and PostgreSQL), the order of rows that tie
// on ORDER BY, and text-to-number conversion (SQLite compares and sums text as numbers;
// the others refuse without a cast).

// Portable returns rs with its values in the portable form above (rs itself when
// nothing changes).
func Portable(rs *qeval.ResultSet) *qeval.ResultSet {
	if rs == nil {
		return nil
	}
	out := &qeval.ResultSet{Columns: rs.Columns, Rows: make([][]qeval.Value, len(rs.Rows))}
	for i, row := range rs.Rows {
		nr := make([]qeval.Value, len(row))
		for j, v := range row {
			nr[j] = portableValue(v)
		}
		out.Rows[i] = nr
	}
	return out
}

func portableValue(v qeval.Value) qeval.Value {
	switch v.Kind {
	case qeval.KindTime:
		return qeval.Text(timeText(v.AsTime()))
	case qeval.KindText:
		if t, ok := parseDateText(v.Str); ok {
			return qeval.Text(timeText(t))
		}
	case qeval.KindFloat:
		f, err := strconv.ParseFloat(strconv.FormatFloat(v.Float, 'g', 12, 64), 64)
		if err == nil {
			return qeval.Float(f)
		}
	case qeval.KindBool:
		return qeval.Int(v.Int)
	}
	return v
}

func timeText(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05.999999999")
}

// parseDateText reads the date and time texts SQL engines print: 2018-03-22,
// 2018-03-22 13:50:25, with a T and a fraction too.
func parseDateText(s string) (time.Time, bool) {
	if len(s) < 10 || len(s) > 32 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02T15:04:05Z07:00"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// EngineRule is one way two SQL engines answer the same query differently.
type EngineRule struct {
	ID          string
	Description string
}

// EngineRules lists the rules ExplainEngineDifference names, in the order it tries them.
var EngineRules = []EngineRule{
	{"bare-column", "SQLite lets a grouped query select a column that is neither grouped nor aggregated (it takes one row's value); DuckDB and PostgreSQL refuse the query"},
	{"double-quoted-string", `SQLite reads "text" as a string when no column has that name; DuckDB, PostgreSQL and standard SQL read it as a column name`},
	{"text-as-number", "SQLite compares, sums and averages text (and dates stored as text) as the numbers they start with; the other engines need an explicit cast or compute on the real type"},
	{"keyword-as-name", "SQLite accepts some keywords (SHOW, …) as table or column names; DuckDB and PostgreSQL need them quoted"},
	{"join-without-on", "SQLite accepts JOIN without ON as a cross join; DuckDB and PostgreSQL require a join condition"},
	{"case-sensitive-names", "table names and aliases are case-sensitive in ClickHouse and in MySQL on Linux (lower_case_table_names=0); SQLite, DuckDB and PostgreSQL (unquoted) match them in any case"},
	{"not-implemented", "the engine does not implement this construct (ClickHouse 18 runs one JOIN per SELECT)"},
	{"like-case", "LIKE ignores ASCII case in SQLite and MySQL, not in DuckDB or PostgreSQL"},
	{"tie-at-limit", "rows that tie on the ORDER BY keys are cut by LIMIT in whatever order each engine meets them"},
	{"tie-order", "rows that tie on the ORDER BY keys come back in whatever order each engine meets them"},
	{"integer-division", "SQLite and PostgreSQL truncate integer division (7/2 = 3); DuckDB and MySQL return 3.5"},
	{"aggregate-over-text", "an aggregate over a text or date column: SQLite reads the text as a number, the other engines aggregate the typed value"},
	{"subquery-alias", "SQLite accepts a subquery in FROM without an alias; PostgreSQL (before 16) and MySQL require one"},
	{"space-before-paren", "MySQL reads a function name followed by a space (COUNT (*)) as a name, not a call, unless sql_mode has IGNORE_SPACE; SQLite allows the space"},
	{"unexplained", "no known engine rule explains the difference"},
}

var (
	reLike             = lazyregexp.New(`(?i)\bLIKE\b`)
	reOrderLimit       = lazyregexp.New(`(?is)\bORDER\s+BY\b.*\bLIMIT\b`)
	reOrder            = lazyregexp.New(`(?i)\bORDER\s+BY\b`)
	reDivision         = lazyregexp.New(`[\w)]\s*/\s*[\w(]`)
	reAggregate        = lazyregexp.New(`(?i)\b(avg|sum)\s*\(`)
	reSyntaxNear       = lazyregexp.New(`syntax error at or near "(\w+)"`)
	reJoinNoOn         = lazyregexp.New(`(?is)\bJOIN\s+\w+(?:\s+(?:AS\s+)?\w+)?\s+(?:WHERE|GROUP|ORDER|JOIN|LIMIT|$)`)
	reAggText          = lazyregexp.New(`function (avg|sum)\((text|character varying|timestamp[^)]*|date)\) does not exist`)
	reFromSubquery     = lazyregexp.New(`(?is)\bFROM\s*\(.*\)\s*;?\s*$`)
	reSpaceParen       = lazyregexp.New(`(?i)\b(count|sum|avg|min|max)\s+\(`)
	reUnknownQualified = lazyregexp.New(`Unknown column '(\w+)\.`)
	reMyNear           = lazyregexp.New(`near '(\w+)`)
	reSelectList       = lazyregexp.New(`(?is)^\s*SELECT\s+(?:DISTINCT\s+)?(.*?)\s+FROM\s`)
	reAggCall          = lazyregexp.New(`(?i)^(count|sum|avg|min|max)\s*\(`)
	reBareName         = lazyregexp.New(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$`)
	reGroupBy          = lazyregexp.New(`(?is)\bGROUP\s+BY\s+(.*?)(?:\bHAVING\b|\bORDER\b|\bLIMIT\b|$)`)
	reNotFound         = lazyregexp.New(`(?i)(?:column|identifier) "([^"]+)" (?:not found|does not exist)`)
)

// ExplainEngineDifference names the rule that most likely explains why query, which
// gave the verdict v when the gold ran on one engine and the same text on another, did
// not match: from the engine's error when it failed, else from the query's shape. It
// returns the rule's ID and description (EngineRules); "unexplained" when none fits.
func ExplainEngineDifference(query string, v qeval.Verdict) EngineRule {
	rule := func(id string) EngineRule {
		for _, r := range EngineRules {
			if r.ID == id {
				return r
			}
		}
		return EngineRules[len(EngineRules)-1]
	}
	msg := v.Error
	switch {
	case strings.Contains(msg, "must appear in the GROUP BY clause") || strings.Contains(msg, "must be part of an aggregate function"):
		return rule("bare-column")
	case reNotFound.MatchString(msg) && strings.Contains(query, `"`+reNotFound.FindStringSubmatch(msg)[1]+`"`):
		return rule("double-quoted-string")
	case strings.Contains(msg, "VARCHAR") && (strings.Contains(msg, "No function matches") || strings.Contains(msg, "Cannot compare") || strings.Contains(msg, "explicit cast")),
		strings.Contains(msg, "Could not convert string"),
		strings.Contains(msg, "operator does not exist") && strings.Contains(msg, "text"),
		strings.Contains(msg, "invalid input syntax for type"):
		return rule("text-as-number")
	case reAggText.MatchString(msg):
		return rule("aggregate-over-text")
	case strings.Contains(msg, "subquery in FROM must have an alias"),
		strings.Contains(msg, "Every derived table must have its own alias"),
		strings.Contains(msg, "near '' at line") && reFromSubquery.MatchString(query):
		return rule("subquery-alias")
	case strings.Contains(msg, "near '*)") && reSpaceParen.MatchString(query):
		return rule("space-before-paren")
	case reUnknownQualified.MatchString(msg) && aliasCaseDiffers(query, reUnknownQualified.FindStringSubmatch(msg)[1]):
		return rule("case-sensitive-names")
	case reMyNear.MatchString(msg) && regexp.MustCompile(`(?i)\b(FROM|JOIN)\s+`+reMyNear.FindStringSubmatch(msg)[1]+`\b`).MatchString(query):
		return rule("keyword-as-name")
	case reSyntaxNear.MatchString(msg) && reJoinNoOn.MatchString(query):
		return rule("join-without-on")
	case reSyntaxNear.MatchString(msg) && regexp.MustCompile(`(?i)\b(FROM|JOIN)\s+`+reSyntaxNear.FindStringSubmatch(msg)[1]+`\b`).MatchString(query):
		return rule("keyword-as-name")
	case strings.Contains(msg, "doesn't exist") || strings.HasPrefix(msg, "Unknown identifier"):
		return rule("case-sensitive-names")
	case strings.Contains(msg, "is not implemented") || strings.Contains(msg, "not supported"):
		return rule("not-implemented")
	case v.Outcome != qeval.OutcomeMismatch:
		return rule("unexplained")
	case bareColumn(query):
		return rule("bare-column")
	case reLike.MatchString(query):
		return rule("like-case")
	case reOrderLimit.MatchString(query):
		return rule("tie-at-limit")
	case reOrder.MatchString(query):
		return rule("tie-order")
	case reDivision.MatchString(query):
		return rule("integer-division")
	case reAggregate.MatchString(query):
		return rule("aggregate-over-text")
	}
	return rule("unexplained")
}

// aliasCaseDiffers reports whether query declares the alias q in another case only
// (AS t2, then T2.x): MySQL on Linux tells them apart.
func aliasCaseDiffers(query, q string) bool {
	m := regexp.MustCompile(`(?i)\bAS\s+(`+regexp.QuoteMeta(q)+`)\b`).FindAllStringSubmatch(query, -1)
	for _, x := range m {
		if x[1] != q {
			return true
		}
	}
	return false
}

// bareColumn reports whether the outer SELECT mixes an aggregate with a plain column
// that its GROUP BY does not list (or has no GROUP BY): each engine then picks the
// plain column's value from a row of its choosing.
func bareColumn(query string) bool {
	m := reSelectList.FindStringSubmatch(query)
	if m == nil {
		return false
	}
	var items []string
	depth, start := 0, 0
	for i, c := range m[1] {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(m[1][start:i]))
				start = i + 1
			}
		}
	}
	items = append(items, strings.TrimSpace(m[1][start:]))
	grouped := map[string]bool{}
	if g := reGroupBy.FindStringSubmatch(query); g != nil {
		for _, x := range strings.Split(g[1], ",") {
			grouped[strings.ToLower(strings.TrimSpace(x))] = true
		}
	}
	agg, bare := false, false
	for _, it := range items {
		switch {
		case reAggCall.MatchString(it):
			agg = true
		case reBareName.MatchString(it) && !grouped[strings.ToLower(it)]:
			bare = true
		}
	}
	return agg && bare
}
