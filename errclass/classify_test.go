package errclass_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/errclass"
)

var mismatch = &qeval.Verdict{Outcome: qeval.OutcomeMismatch}

func TestClassify_SQL(t *testing.T) {
	tests := []struct {
		name, gold, pred string
		// want are the subclasses in order; wantExp and wantGen the first one's fragments
		want             []string
		wantExp, wantGen string
	}{
		{"Literal", "SELECT name FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE country = 'french'",
			[]string{"value.literal"}, "'France'", "'french'"},
		{"LiteralCaseMatters", "SELECT name FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE country = 'FRANCE'",
			[]string{"value.literal"}, "'France'", "'FRANCE'"},
		{"Comparison", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE age >= 20",
			[]string{"operator.comparison"}, "singer.age > 20", "singer.age >= 20"},
		{"ComparisonAndLiteral", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE age < 30",
			[]string{"value.literal", "operator.comparison"}, "20", "30"},
		{"BetweenForRange", "SELECT name FROM t WHERE d >= '2024-08-01' AND d < '2024-09-01'", "SELECT name FROM t WHERE d BETWEEN '2024-08-01' AND '2024-08-31'",
			[]string{"operator.comparison", "condition.missing"}, "t.d >= '2024-08-01'", "t.d BETWEEN '2024-08-01' AND '2024-08-31'"},
		{"Logical", "SELECT name FROM t WHERE a = 1 AND b = 2", "SELECT name FROM t WHERE a = 1 OR b = 2",
			[]string{"operator.logical"}, "t.a = 1 AND t.b = 2", "t.a = 1 OR t.b = 2"},
		{"DroppedCondition", "SELECT name FROM t WHERE a = 1 AND b = 2", "SELECT name FROM t WHERE a = 1",
			[]string{"condition.missing"}, "t.b = 2", ""},
		{"DroppedWhere", "SELECT name FROM t WHERE a = 1", "SELECT name FROM t",
			[]string{"condition.missing"}, "t.a = 1", ""},
		{"ExtraCondition", "SELECT name FROM t", "SELECT name FROM t WHERE a IS NOT NULL",
			[]string{"condition.extra"}, "", "t.a IS NOT NULL"},
		{"ConditionOtherColumnSameTest", "SELECT name FROM t WHERE a = 1", "SELECT name FROM t WHERE b = 1",
			[]string{"attribute.mismatch"}, "t.a", "t.b"},
		{"Aggregate", "SELECT max(age) FROM singer", "SELECT avg(age) FROM singer",
			[]string{"function.aggregate"}, "max(singer.age)", "avg(singer.age)"},
		{"AggregateDropped", "SELECT count(name) FROM singer", "SELECT name FROM singer",
			[]string{"function.aggregate"}, "count(singer.name)", "singer.name"},
		{"HavingAggregate", "SELECT a FROM t GROUP BY a HAVING count(*) > 1", "SELECT a FROM t GROUP BY a HAVING sum(b) > 1",
			[]string{"function.aggregate"}, "count(*)", "sum(t.b)"},
		{"Scalar", "SELECT upper(name) FROM t", "SELECT lower(name) FROM t",
			[]string{"function.scalar"}, "upper(t.name)", "lower(t.name)"},
		{"ExtraColumn", "SELECT name FROM singer", "SELECT name, age FROM singer",
			[]string{"attribute.extra_column"}, "", "singer.age"},
		{"MissingColumn", "SELECT name, age FROM singer", "SELECT name FROM singer",
			[]string{"attribute.missing_column"}, "singer.age", ""},
		{"OtherColumn", "SELECT name FROM singer", "SELECT title FROM singer",
			[]string{"attribute.mismatch"}, "singer.name", "singer.title"},
		{"ColumnOrder", "SELECT name, age FROM singer", "SELECT age, name FROM singer",
			[]string{"attribute.column_order"}, "singer.name, singer.age", "singer.age, singer.name"},
		{"Distinct", "SELECT DISTINCT name FROM singer", "SELECT name FROM singer",
			[]string{"clause.distinct"}, "SELECT DISTINCT", "SELECT"},
		{"OrderDirection", "SELECT name FROM singer ORDER BY age DESC", "SELECT name FROM singer ORDER BY age",
			[]string{"clause.order_direction"}, "ORDER BY singer.age DESC", "ORDER BY singer.age ASC"},
		{"OrderDropped", "SELECT name FROM singer ORDER BY age", "SELECT name FROM singer",
			[]string{"clause.order_by"}, "ORDER BY singer.age ASC", ""},
		{"Limit", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT 3",
			[]string{"clause.limit"}, "LIMIT 1", "LIMIT 3"},
		{"LimitAndDirection", "SELECT name FROM singer ORDER BY age DESC LIMIT 1", "SELECT name FROM singer ORDER BY age",
			[]string{"clause.order_direction", "clause.limit"}, "ORDER BY singer.age DESC", "ORDER BY singer.age ASC"},
		{"GroupBy", "SELECT count(*) FROM t GROUP BY a", "SELECT count(*) FROM t GROUP BY b",
			[]string{"clause.group_by"}, "GROUP BY t.a", "GROUP BY t.b"},
		{"Table", "SELECT name FROM singer", "SELECT name FROM artist",
			[]string{"table.mismatch"}, "singer", "artist"},
		{"TableExtra", "SELECT T1.name FROM singer AS T1", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid",
			[]string{"table.extra"}, "", "concert"},
		{"JoinKind", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT a.name FROM singer AS a LEFT JOIN concert AS b ON b.sid = a.id",
			[]string{"table.join"}, "JOIN concert ON id = sid", "LEFT JOIN concert ON id = sid"},
		{"JoinCondition", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.id",
			[]string{"table.join"}, "JOIN concert ON id = sid", "JOIN concert ON id = id"},
		{"JoinOperator", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id != T2.sid",
			[]string{"operator.comparison"}, "singer.id = concert.sid", "singer.id != concert.sid"},
		{"SameNameOtherTable", "SELECT T1.abbr FROM airlines AS T1 JOIN flights AS T2 ON T1.uid = T2.airline GROUP BY T1.airline",
			"SELECT T1.abbr FROM AIRLINES AS T1 JOIN FLIGHTS AS T2 ON T1.uid = T2.airline GROUP BY T2.airline",
			[]string{"clause.group_by"}, "GROUP BY airlines.airline", "GROUP BY FLIGHTS.airline"},
		{"AliasesDoNotCount", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid WHERE T2.year = 2014",
			"SELECT s.name FROM singer s JOIN concert c ON s.id = c.sid WHERE c.year = 2015",
			[]string{"value.literal"}, "2014", "2015"},
		{"SubqueryLiteral", "SELECT name FROM a WHERE id IN (SELECT aid FROM b WHERE x = 1)", "SELECT name FROM a WHERE id IN (SELECT aid FROM b WHERE x = 2)",
			[]string{"value.literal"}, "1", "2"},
		{"SubqueryMissing", "SELECT name FROM t WHERE age > (SELECT avg(age) FROM t)", "SELECT name FROM t WHERE age > 30",
			[]string{"subquery.missing"}, "t.age > (SELECT ...)", "t.age > 30"},
		{"SetOperation", "SELECT a FROM t INTERSECT SELECT a FROM u", "SELECT a FROM t UNION SELECT a FROM u",
			[]string{"subquery.set_operation"}, "INTERSECT", "UNION"},
		{"NotIn", "SELECT name FROM t WHERE id NOT IN (SELECT id FROM u)", "SELECT name FROM t WHERE id IN (SELECT id FROM u)",
			[]string{"operator.comparison"}, "t.id NOT IN (SELECT ...)", "t.id IN (SELECT ...)"},
		{"Several", "SELECT DISTINCT name FROM singer WHERE age > 20 ORDER BY age DESC",
			"SELECT name, age FROM singer WHERE age > 21",
			[]string{"value.literal", "attribute.extra_column", "clause.distinct", "clause.order_by"}, "20", "21"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errclass.Classify(errclass.Pair{Expected: tt.gold, Generated: tt.pred, Verdict: mismatch})
			if subs := subclasses(got); strings.Join(subs, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("Classify=%v, want %v\n%+v", subs, tt.want, got)
			}
			if got[0].Class != qeval.ClassOfSubclass(tt.want[0]) {
				t.Errorf("class %q, want %q", got[0].Class, qeval.ClassOfSubclass(tt.want[0]))
			}
			if got[0].Expected != tt.wantExp || got[0].Generated != tt.wantGen {
				t.Errorf("fragments %q / %q, want %q / %q", got[0].Expected, got[0].Generated, tt.wantExp, tt.wantGen)
			}
		})
	}
}

func subclasses(list []qeval.ErrorClass) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.Subclass
	}
	return out
}

func TestClassify_Errors(t *testing.T) {
	tests := []struct {
		name    string
		outcome qeval.Outcome
		msg     string
		pred    string
		want    []string
		wantGen string
	}{
		{"SQLiteTable", qeval.OutcomePredError, "no such table: singers", "SELECT name FROM singers", []string{"table.unknown_table", "table.mismatch"}, "singers"},
		{"PostgresTable", qeval.OutcomePredError, `ERROR: relation "singers" does not exist (SQLSTATE 42P01)`, "SELECT name FROM singers", []string{"table.unknown_table", "table.mismatch"}, "singers"},
		{"MySQLColumn", qeval.OutcomePredError, "Error 1054 (42S22): Unknown column 'nam' in 'field list'", "SELECT nam FROM singer", []string{"attribute.unknown_column", "attribute.mismatch"}, "nam"},
		{"SQLiteColumn", qeval.OutcomePredError, "no such column: nam", "SELECT nam FROM singer", []string{"attribute.unknown_column", "attribute.mismatch"}, "nam"},
		{"DuckDBColumn", qeval.OutcomePredError, `Binder Error: Referenced column "nam" not found in FROM clause!`, "SELECT nam FROM singer", []string{"attribute.unknown_column", "attribute.mismatch"}, "nam"},
		{"Type", qeval.OutcomePredError, "ERROR: operator does not exist: integer = text", "SELECT name FROM singer WHERE age = 'x'", []string{"value.type", "condition.extra"}, ""},
		{"Function", qeval.OutcomePredError, "no such function: len", "SELECT len(name) FROM singer", []string{"function.unknown", "function.scalar"}, "len"},
		{"Timeout", qeval.OutcomeTimeout, "query timed out", "SELECT name FROM singer, singer AS b", []string{"table.extra", "other.timeout"}, "singer"},
		{"TooLarge", qeval.OutcomeTooLarge, "result has more than 1000000 rows", "SELECT name FROM singer, singer AS b", []string{"table.extra", "other.too_large"}, "singer"},
		{"Syntax", qeval.OutcomePredError, `near "FROM": syntax error`, "SELECT name FROM WHERE", []string{"other.syntax"}, ""},
		{"Forbidden", qeval.OutcomePredError, "forbidden statement: DELETE writes to the database", "DELETE FROM singer", []string{"other.forbidden"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &qeval.Verdict{Outcome: tt.outcome, Error: tt.msg}
			got := errclass.Classify(errclass.Pair{Expected: "SELECT name FROM singer", Generated: tt.pred, Verdict: v})
			if subs := subclasses(got); strings.Join(subs, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("Classify=%v, want %v\n%+v", subs, tt.want, got)
			}
			if tt.wantGen != "" && got[0].Generated != tt.wantGen {
				t.Errorf("generated fragment %q, want %q", got[0].Generated, tt.wantGen)
			}
			if last := got[len(got)-1]; strings.HasPrefix(last.Subclass, "other.") && last.Reason != tt.msg {
				t.Errorf("reason %q, want the engine's message %q", last.Reason, tt.msg)
			}
		})
	}
}

func TestClassify_Unparseable(t *testing.T) {
	got := errclass.Classify(errclass.Pair{Expected: "SELECT name FROM singer", Generated: "SELECT name FROM WHERE x", Verdict: mismatch})
	if len(got) != 1 || got[0].Subclass != "other.syntax" || !strings.Contains(got[0].Reason, "syntax error") {
		t.Fatalf("Classify=%+v, want other.syntax with the parse error", got)
	}
	if !strings.HasPrefix(got[0].Reason, "line 1, column ") {
		t.Errorf("reason %q has no position", got[0].Reason)
	}
	got = errclass.Classify(errclass.Pair{Expected: "SELEC name", Generated: "SELECT 1", Verdict: mismatch})
	if len(got) != 1 || got[0].Subclass != "other.unparsed" || !strings.Contains(got[0].Reason, "gold") {
		t.Fatalf("Classify=%+v, want other.unparsed naming the gold", got)
	}
}

func TestClassify_NotWrong(t *testing.T) {
	for _, o := range []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeGoldError, qeval.OutcomeCanceled, qeval.OutcomeSkipped, qeval.OutcomeUnscorable, qeval.OutcomeUnsupported} {
		v := &qeval.Verdict{Outcome: o, Match: o == qeval.OutcomeMatch}
		if got := errclass.Classify(errclass.Pair{Expected: "SELECT 1", Generated: "SELECT 2", Verdict: v}); got != nil {
			t.Errorf("Classify(%s)=%v, want nil", o, got)
		}
	}
}

func TestClassify_Fallback(t *testing.T) {
	v := &qeval.Verdict{Outcome: qeval.OutcomeMismatch, Explanation: &qeval.Explanation{GoldRows: 2, PredRows: 2, GoldCols: 1, PredCols: 1, SameRowsOtherOrder: true}}
	got := errclass.Classify(errclass.Pair{Expected: "SELECT name FROM t", Generated: "select NAME from T", Verdict: v})
	if len(got) != 1 || got[0].Subclass != "clause.order_by" {
		t.Fatalf("Classify=%+v, want clause.order_by from the explanation", got)
	}
	got = errclass.Classify(errclass.Pair{Expected: "SELECT name FROM t", Generated: "select NAME from T", Verdict: mismatch})
	if len(got) != 1 || got[0].Subclass != "other.same_structure" {
		t.Fatalf("Classify=%+v, want other.same_structure", got)
	}
}

func TestClassify_KQL(t *testing.T) {
	tests := []struct{ name, gold, pred, want string }{
		{"Literal", "T | where State == 'TEXAS' | count", "T | where State == 'OHIO' | count", "value.literal"},
		{"Operator", "T | where Damage > 100 | count", "T | where Damage >= 100 | count", "operator.comparison"},
		{"DroppedCondition", "T | where A > 1 and B == 'x' | count", "T | where A > 1 | count", "condition.missing"},
		{"Aggregate", "T | summarize max(Damage) by State", "T | summarize avg(Damage) by State", "function.aggregate"},
		{"GroupBy", "T | summarize count() by State", "T | summarize count() by EventType", "clause.group_by"},
		{"Order", "T | sort by Damage desc | take 5", "T | sort by Damage asc | take 5", "clause.order_direction"},
		{"Limit", "T | sort by Damage desc | take 5", "T | sort by Damage desc | take 10", "clause.limit"},
		{"Distinct", "T | distinct State", "T | project State", "clause.distinct"},
		{"ExtraColumn", "T | project State", "T | project State, Damage", "attribute.extra_column"},
		{"Table", "T | count", "U | count", "table.mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errclass.Classify(errclass.Pair{Dialect: "kql", Expected: tt.gold, Generated: tt.pred, Verdict: mismatch})
			if len(got) == 0 || got[0].Subclass != tt.want {
				t.Fatalf("Classify=%+v, want %s first", got, tt.want)
			}
		})
	}
}

func TestVocabulary(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range errclass.Vocabulary {
		if seen[s.Name] {
			t.Errorf("%s twice", s.Name)
		}
		seen[s.Name] = true
		found := false
		for _, c := range qeval.ErrorClassNames {
			found = found || c == s.Class()
		}
		if !found || s.Doc == "" || s.Expected == "" || s.Generated == "" {
			t.Errorf("%s: main class %q not in the vocabulary, or no doc or example", s.Name, s.Class())
		}
	}
	for _, c := range qeval.ErrorClassNames {
		found := false
		for _, s := range errclass.Vocabulary {
			found = found || s.Class() == c
		}
		if !found {
			t.Errorf("main class %s has no subclass", c)
		}
	}
}

func TestMessageClass(t *testing.T) {
	tests := []struct{ msg, want, name string }{
		{"no such table: singers", "table.unknown_table", "singers"},
		{`ERROR: relation "singers" does not exist (SQLSTATE 42P01)`, "table.unknown_table", "singers"},
		{"Error 1146 (42S02): Table 'bench.singers' doesn't exist", "table.unknown_table", "bench.singers"},
		{"Catalog Error: Table with name singers does not exist!", "table.unknown_table", "singers"},
		{"no such column: nam", "attribute.unknown_column", "nam"},
		{`ERROR: column "nam" does not exist (SQLSTATE 42703)`, "attribute.unknown_column", "nam"},
		{`unknown name "EventDuration": no such column, variable or function`, "attribute.unknown_column", "EventDuration"},
		{"ambiguous column name: id", "attribute.ambiguous_column", "id"},
		{"no such function: len", "function.unknown", "len"},
		{"misuse of aggregate: count()", "function.aggregate", "count"},
		{"ERROR: operator does not exist: integer = text", "value.type", ""},
		{`near "FROM": syntax error`, "other.syntax", ""},
		{"parse kql: unexpected 'CropDamage' after operator", "other.syntax", ""},
		{"DELETE is not allowed: the executor is read-only", "other.forbidden", ""},
		{"multiple statements: only one statement may run, found another at line 1", "other.forbidden", ""},
		{"division by zero", "other.error", ""},
	}
	for _, tt := range tests {
		got := errclass.MessageClass(tt.msg)
		if got.Subclass != tt.want || got.Generated != tt.name || got.Reason != tt.msg || got.Class != qeval.ClassOfSubclass(tt.want) {
			t.Errorf("MessageClass(%q)=%+v, want %s naming %q", tt.msg, got, tt.want, tt.name)
		}
	}
}
