package errclass

import "github.com/qeval/qeval"

// Subclass is one entry of the vocabulary: its name (class.detail), what it means and
// one example pair (gold, then generated) that gets it.
type Subclass struct {
	Name      string
	Doc       string
	Expected  string
	Generated string
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

// Vocabulary is every subclass, in sort order, with one example each.
var Vocabulary = []Subclass{
	{ValueLiteral, "a constant differs", "WHERE country = 'France'", "WHERE country = 'french'"},
	{ValueType, "the engine rejected a value of the wrong type", "WHERE id = 3", "WHERE id = '3'::date"},
	{OperatorComparison, "a comparison differs", "WHERE age > 20", "WHERE age >= 20"},
	{OperatorLogical, "AND and OR differ", "WHERE a = 1 AND b = 2", "WHERE a = 1 OR b = 2"},
	{FunctionAggregate, "an aggregate function differs, is added or is dropped", "SELECT max(age)", "SELECT avg(age)"},
	{FunctionScalar, "another (non-aggregate) function differs", "SELECT upper(name)", "SELECT lower(name)"},
	{FunctionUnknown, "the engine does not know a function or its arguments", "SELECT length(name)", "SELECT len(name)"},
	{AttributeMismatch, "another column is read in the same place", "SELECT name", "SELECT title"},
	{AttributeExtra, "a result column the gold does not have", "SELECT name", "SELECT name, age"},
	{AttributeMissing, "a result column of the gold is missing", "SELECT name, age", "SELECT name"},
	{AttributeOrder, "the same result columns in another order", "SELECT name, age", "SELECT age, name"},
	{AttributeUnknown, "the engine does not know a column", "SELECT name", "SELECT nam"},
	{AttributeAmbiguous, "a column name several tables have, unqualified", "SELECT T1.id ... JOIN", "SELECT id ... JOIN"},
	{ConditionMissing, "a condition of the gold is missing", "WHERE a = 1 AND b = 2", "WHERE a = 1"},
	{ConditionExtra, "a condition the gold does not have", "WHERE a = 1", "WHERE a = 1 AND b = 2"},
	{ConditionMismatch, "a condition of another form on the same column, or wholly another", "WHERE a = b", "WHERE a = c"},
	{ClauseDistinct, "DISTINCT added or dropped", "SELECT DISTINCT name", "SELECT name"},
	{ClauseOrderDirection, "the same ORDER BY, ascending instead of descending or back", "ORDER BY age DESC", "ORDER BY age"},
	{ClauseOrderBy, "ORDER BY added, dropped or on another expression", "ORDER BY age", "ORDER BY name"},
	{ClauseLimit, "LIMIT or OFFSET added, dropped or changed", "LIMIT 1", "LIMIT 3"},
	{ClauseGroupBy, "GROUP BY added, dropped or on other columns", "GROUP BY country", "GROUP BY name"},
	{TableJoin, "the same tables joined on another condition or with another kind of join", "JOIN b ON a.id = b.aid", "LEFT JOIN b ON a.id = b.aid"},
	{TableMismatch, "another table is read in the place of one", "FROM singer", "FROM artist"},
	{TableMissing, "a table of the gold is not read", "FROM a JOIN b ON ...", "FROM a"},
	{TableExtra, "a table the gold does not read", "FROM a", "FROM a JOIN b ON ..."},
	{TableUnknown, "the engine does not know a table", "FROM singer", "FROM singers"},
	{SubqueryMissing, "a nested query of the gold written without one", "WHERE age > (SELECT avg(age) FROM t)", "WHERE age > 30"},
	{SubqueryExtra, "a nested query where the gold has none", "WHERE age > 30", "WHERE age > (SELECT avg(age) FROM t)"},
	{SubquerySetOperation, "UNION, INTERSECT or EXCEPT added, dropped or changed", "... INTERSECT SELECT ...", "... UNION SELECT ..."},
	{OtherSyntax, "the generated query cannot be parsed (the reason is the parse error)", "SELECT name FROM t", "SELECT name FROM WHERE"},
	{OtherUnparsed, "the gold cannot be parsed, or the dialect has no grammar here", "(a gold the grammar cannot read)", "SELECT 1"},
	{OtherTimeout, "the generated query ran past its deadline", "SELECT ... (fast)", "SELECT ... (a cross join of large tables)"},
	{OtherTooLarge, "the generated query's result or memory went past the caps", "SELECT ... (10 rows)", "SELECT ... (10^9 rows)"},
	{OtherForbidden, "the generated query was refused (a write, a forbidden statement)", "SELECT ...", "DELETE FROM t"},
	{OtherError, "the engine failed the generated query for another reason", "SELECT ...", "SELECT ... (a runtime error)"},
	{OtherSameStructure, "the grammar finds no difference; the results differ anyway (see the reason)", "SELECT name FROM t", "SELECT name FROM t WHERE 1"},
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
