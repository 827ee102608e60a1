package qeval

// Shape is what the SQL and KQL parsers extract from a query: only what the metrics
// read. Names keep the spelling of the query; compare them case-insensitively.
type Shape struct {
	Dialect string `json:"dialect"`
	// Kind is the statement kind in lower case: "select", "insert", "update", "delete",
	// "create", "drop", "alter", "pragma", "attach", ... ; "query" for a KQL query.
	Kind string `json:"kind"`
	// Tables are the base tables read, deduplicated case-insensitively, in first-seen
	// order. CTE and let names are resolved, never listed as tables.
	Tables []string `json:"tables"`
	// Aliases maps each alias (as written) to the base table it names.
	Aliases map[string]string `json:"aliases,omitempty"`
	// Columns are the columns referenced anywhere, qualified with the base table where
	// it is known.
	Columns []ColumnRef `json:"columns"`
	// Filters are the comparisons of WHERE/HAVING (SQL) or where (KQL).
	Filters []Filter `json:"filters"`
	// Aggregates are the aggregate calls, e.g. count(*), avg(price).
	Aggregates []Aggregate `json:"aggregates"`
	GroupBy    []string    `json:"group_by,omitempty"`
	OrderBy    []OrderTerm `json:"order_by,omitempty"`
	// Limit is the LIMIT / take / top count as written, "" when absent.
	Limit string `json:"limit,omitempty"`
	// Output are the names of the result columns where they can be told from the text.
	Output []string `json:"output,omitempty"`
	// Operators are the KQL tabular operators in pipeline order (empty for SQL).
	Operators []string `json:"operators,omitempty"`
	// Source says how the shape was obtained: "parser" (from the text), "engine"
	// (asked of the database engine) or "compiler" (a Malloy query, as its compiler
	// describes it).
	Source string `json:"source,omitempty"`
	// Malloy is the Malloy part of a compiled Malloy query's shape.
	Malloy *MalloyShape `json:"malloy,omitempty"`
}

// ColumnRef is a column, with its base table when known.
type ColumnRef struct {
	Table string `json:"table,omitempty"`
	Name  string `json:"name"`
}

// Filter is one comparison of a filter clause: column, operator and the literal it is
// compared with ("" when the other side is not a literal).
type Filter struct {
	Clause   string `json:"clause"` // "where", "having", "join" (SQL) or "where" (KQL)
	Column   string `json:"column"`
	Operator string `json:"op"`
	Value    string `json:"value,omitempty"`
}

// Aggregate is an aggregate function call and its argument text ("*" for count(*)).
type Aggregate struct {
	Func string `json:"func"`
	Arg  string `json:"arg"`
}

// OrderTerm is one ORDER BY / sort by term.
type OrderTerm struct {
	Expr string `json:"expr"`
	Desc bool   `json:"desc,omitempty"`
}
