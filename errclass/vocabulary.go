package errclass

import "github.com/qeval/qeval"

// Subclass is one entry of the vocabulary: its name (class.detail), what it means and
// one example pair (gold, then generated) that gets it.
type Subclass struct {
	Name      string
	Doc       string
	Expected  string
	Generated string
	// Message is, for the kinds read from the engine's failure, what the engine said.
	Message string
}

// Class is the main class of the subclass.
func (s Subclass) Class() string { return qeval.ClassOfSubclass(s.Name) }

// The subclasses, in the order a case's list is sorted when its differences are of
// several kinds: the main classes from the most specific difference to the least
// (a literal before an operator before a function, an attribute, a condition, a
// clause, a table, a subquery), the engine's and the harness's failures last.
const (
	ValueLiteral         = "value.literal"
	ValueType            = "value.type"
	OperatorComparison   = "operator.comparison"
	OperatorLogical      = "operator.logical"
	FunctionAggregate    = "function.aggregate"
	FunctionScalar       = "function.scalar"
	FunctionUnknown      = "function.unknown"
	AttributeMismatch    = "attribute.mismatch"
	AttributeExtra       = "attribute.extra_column"
	AttributeMissing     = "attribute.missing_column"
	AttributeOrder       = "attribute.column_order"
	AttributeUnknown     = "attribute.unknown_column"
	AttributeAmbiguous   = "attribute.ambiguous_column"
	ConditionMissing     = "condition.missing"
	ConditionExtra       = "condition.extra"
	ConditionMismatch    = "condition.mismatch"
	ClauseDistinct       = "clause.distinct"
	ClauseOrderDirection = "clause.order_direction"
	ClauseOrderBy        = "clause.order_by"
	ClauseLimit          = "clause.limit"
	ClauseGroupBy        = "clause.group_by"
	TableJoin            = "table.join"
	TableMismatch        = "table.mismatch"
	TableMissing         = "table.missing"
	TableExtra           = "table.extra"
	TableUnknown         = "table.unknown_table"
	SubqueryMissing      = "subquery.missing"
	SubqueryExtra        = "subquery.extra"
	SubquerySetOperation = "subquery.set_operation"
	OtherSyntax          = "other.syntax"
	OtherUnparsed        = "other.unparsed"
	OtherTimeout         = "other.timeout"
	OtherTooLarge        = "other.too_large"
	OtherForbidden       = "other.forbidden"
	OtherError           = "other.error"
	OtherSameStructure   = "other.same_structure"
)

// Vocabulary is every subclass, in sort order, with one example each: a gold query
// and a generated one that get it (first), with the engine's message for the kinds
// read from a failure. The examples are tested (vocabulary_test.go) and shown in
// docs/error-classes.md.
var Vocabulary = []Subclass{
	{ValueLiteral, "a constant differs", "SELECT name FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE country = 'french'", ""},
	{ValueType, "the engine rejected a value of the wrong type", "SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 'thirty'", "ERROR: invalid input syntax for type integer: \"thirty\""},
	{OperatorComparison, "a comparison differs", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE age >= 20", ""},
	{OperatorLogical, "AND and OR differ", "SELECT name FROM singer WHERE age > 20 AND country = 'France'", "SELECT name FROM singer WHERE age > 20 OR country = 'France'", ""},
	{FunctionAggregate, "an aggregate function differs, is added or is dropped", "SELECT max(age) FROM singer", "SELECT avg(age) FROM singer", ""},
	{FunctionScalar, "another (non-aggregate) function differs", "SELECT upper(name) FROM singer", "SELECT lower(name) FROM singer", ""},
	{FunctionUnknown, "the engine does not know a function or its arguments", "SELECT length(name) FROM singer", "SELECT len(name) FROM singer", "no such function: len"},
	{AttributeMismatch, "another column is read in the same place", "SELECT name FROM singer", "SELECT country FROM singer", ""},
	{AttributeExtra, "a result column the gold does not have", "SELECT name FROM singer", "SELECT name, age FROM singer", ""},
	{AttributeMissing, "a result column of the gold is missing", "SELECT name, age FROM singer", "SELECT name FROM singer", ""},
	{AttributeOrder, "the same result columns in another order", "SELECT name, age FROM singer", "SELECT age, name FROM singer", ""},
	{AttributeUnknown, "the engine does not know a column", "SELECT name FROM singer", "SELECT singer_name FROM singer", "no such column: singer_name"},
	{AttributeAmbiguous, "an unqualified column that several tables have", "SELECT T1.id FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT id FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "ambiguous column name: id"},
	{ConditionMissing, "a condition of the gold is missing", "SELECT name FROM singer WHERE age > 20 AND country = 'France'", "SELECT name FROM singer WHERE age > 20", ""},
	{ConditionExtra, "a condition the gold does not have", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE age > 20 AND name IS NOT NULL", ""},
	{ConditionMismatch, "a condition of another form on the same column, or wholly another", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE country = 'France'", ""},
	{ClauseDistinct, "DISTINCT added or dropped", "SELECT DISTINCT country FROM singer", "SELECT country FROM singer", ""},
	{ClauseOrderDirection, "the same ORDER BY, ascending instead of descending or back", "SELECT name FROM singer ORDER BY age DESC", "SELECT name FROM singer ORDER BY age", ""},
	{ClauseOrderBy, "ORDER BY added, dropped or on another expression", "SELECT name FROM singer ORDER BY age", "SELECT name FROM singer ORDER BY name", ""},
	{ClauseLimit, "LIMIT or OFFSET added, dropped or changed", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT 3", ""},
	{ClauseGroupBy, "GROUP BY added, dropped or on other columns", "SELECT count(*) FROM singer GROUP BY country", "SELECT count(*) FROM singer GROUP BY age", ""},
	{TableJoin, "the same tables joined on another condition or with another kind of join", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT T1.name FROM singer AS T1 LEFT JOIN concert AS T2 ON T1.id = T2.sid", ""},
	{TableMismatch, "another table is read in the place of one", "SELECT name FROM singer", "SELECT name FROM artist", ""},
	{TableMissing, "a table of the gold is not read", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", "SELECT T1.name FROM singer AS T1", ""},
	{TableExtra, "a table the gold does not read", "SELECT T1.name FROM singer AS T1", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid", ""},
	{TableUnknown, "the engine does not know a table", "SELECT name FROM singer", "SELECT name FROM singers", "no such table: singers"},
	{SubqueryMissing, "a nested query of the gold written without one", "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)", "SELECT name FROM singer WHERE age > 30", ""},
	{SubqueryExtra, "a nested query where the gold has none", "SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)", ""},
	{SubquerySetOperation, "UNION, INTERSECT or EXCEPT added, dropped or changed", "SELECT name FROM singer INTERSECT SELECT name FROM artist", "SELECT name FROM singer UNION SELECT name FROM artist", ""},
	{OtherSyntax, "the generated query cannot be parsed (the reason is the parse error)", "SELECT name FROM singer", "SELECT name FORM singer", ""},
	{OtherUnparsed, "the gold cannot be parsed, or the dialect has no grammar here", "SELECT name FROM singer WHERE", "SELECT name FROM singer", ""},
	{OtherTimeout, "the generated query ran past its deadline", "SELECT count(*) FROM concert", "SELECT count(*) FROM concert, concert AS b, concert AS c", "query timed out"},
	{OtherTooLarge, "the generated query's result or memory went past the caps", "SELECT name FROM singer", "SELECT a.name FROM singer AS a, singer AS b, singer AS c", "result has more than 1000000 rows"},
	{OtherForbidden, "the generated query was refused (a write, several statements)", "SELECT name FROM singer", "DELETE FROM singer", "DELETE is not allowed: the executor is read-only"},
	{OtherError, "the engine failed the generated query for another reason", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer WHERE abs(-9223372036854775808) > 0", "integer overflow"},
	{OtherSameStructure, "the grammar finds no difference; the results differ anyway (the reason says how)", "SELECT name FROM singer", "select NAME from SINGER", ""},
}

var rank = func() map[string]int {
	m := make(map[string]int, len(Vocabulary))
	for i, s := range Vocabulary {
		m[s.Name] = i
	}
	return m
}()

// Lookup returns the vocabulary's entry for a subclass name.
func Lookup(name string) (Subclass, bool) {
	i, ok := rank[name]
	if !ok {
		return Subclass{}, false
	}
	return Vocabulary[i], true
}
