package sqlparse

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/qeval/qeval"
)

// Dialect names. The empty string means SQLite.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
	MySQL    = "mysql"
)

// Dialects lists the known dialect names in the order the CLI shows them.
var Dialects = []string{SQLite, Postgres, MySQL}

// Statement is one statement of a text: its shape and what a validator needs beyond it.
type Statement struct {
	Shape *qeval.Shape
	// Line and Col are where the statement starts (1-based; 0 when unknown).
	Line, Col int
	// Funcs are the functions the statement calls, in lower case, deduplicated.
	Funcs []string
	// Unresolved are the names the schema given to ParseStatements does not hold (empty
	// without a schema).
	Unresolved []Unresolved
}

// Unresolved is a table or column a statement names that the schema does not hold.
type Unresolved struct {
	// Table is the table named (base name as written). For a column written with an
	// unknown qualifier it is that qualifier; for an unqualified column it is "".
	Table string
	// Column is "" when the table itself is unknown.
	Column string
	// Scope are the tables an unqualified column was looked for in.
	Scope []string
	// Qualifier is set when Table is a qualifier (alias) matching no table in scope.
	Qualifier bool
	// Ambiguous is set for an unqualified column that several sources have; Scope
	// lists them.
	Ambiguous bool
	Line, Col int
}

// Parse extracts the Shape of one SQL statement. A syntax error is a *qeval.Error with
// Code qeval.CodeQuery, Line, Col (1-based) and Message; an unknown dialect is
// CodeInvalid listing the known ones. A text with no statement, or with more than one,
// is a CodeQuery error too.
func Parse(dialect, sql string) (*qeval.Shape, error) {
	stmts, err := ParseStatements(dialect, sql, nil)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "no statement in the text"}
	case 1:
		return stmts[0].Shape, nil
	}
	return nil, &qeval.Error{Code: qeval.CodeQuery, Line: stmts[1].Line, Col: stmts[1].Col,
		Message: fmt.Sprintf("expected one statement, found %d", len(stmts))}
}

// ParseStatements parses every statement of sql. With a schema, columns are resolved
// against it (unqualified ones to the table in scope that has them) and the names it
// does not hold are listed in each Statement's Unresolved. Errors are as for Parse.
func ParseStatements(dialect, sql string, schema *qeval.Schema) ([]*Statement, error) {
	return ParseStatementsWithin(dialect, sql, schema, Limits{})
}

// Limits bound what reaches the recursive parsers and walkers; zero fields are the
// defaults (qeval.DefaultMaxQueryBytes, …Depth, …Operators).
type Limits = qeval.QueryBounds

// ParseStatementsWithin is ParseStatements with other bounds on the query's size and
// nesting; a query past them is a qeval.CodeTooLarge error and is not parsed.
func ParseStatementsWithin(dialect, sql string, schema *qeval.Schema, lim Limits) ([]*Statement, error) {
	d, err := normDialect(dialect)
	if err != nil {
		return nil, err
	}
	// every parser and walker below recurses: bound what reaches them
	if err := lim.Check(sql); err != nil {
		return nil, err
	}
	tree, err := parseTree(d, sql)
	if err != nil {
		return nil, err
	}
	starts := splitStatements(d, sql)
	out := make([]*Statement, 0, len(tree))
	for i, t := range tree {
		st := extract(d, t, schema)
		if len(starts) == len(tree) {
			st.Line, st.Col = starts[i].line, starts[i].col
		} else if t.line > 0 {
			st.Line, st.Col = t.line, t.col
		}
		out = append(out, st)
	}
	return out, nil
}

// Grammar returns the grammar a dialect's queries are read with: SQLite, Postgres or
// MySQL (DuckDB's queries are read as PostgreSQL's, ClickHouse's as MySQL's). An
// unknown dialect is an error naming the known ones. The registry's engines declare
// their grammar, and a registry test checks it against this.
func Grammar(dialect string) (string, error) { return normDialect(dialect) }

func normDialect(d string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(d)) {
	case "", SQLite, "sqlite3":
		return SQLite, nil
	case Postgres, "postgresql", "pg", "duckdb":
		// DuckDB's SQL descends from PostgreSQL's, and its own parser is PostgreSQL's
		// grammar extended: the shapes of its queries are read with that grammar.
		return Postgres, nil
	case MySQL, "mariadb", "clickhouse":
		// ClickHouse quotes names with backticks as MySQL does; its queries' shapes are
		// read with the MySQL grammar (its own extensions, ARRAY JOIN or FORMAT, are not)
		return MySQL, nil
	}
	return "", &qeval.Error{Code: qeval.CodeInvalid,
		Message: fmt.Sprintf("unknown dialect %q (known: %s)", d, strings.Join([]string{MySQL, Postgres, SQLite}, ", "))}
}

// parseTree runs the dialect's parser. A panic inside the parser library is a bug of
// that library, not of the query's author; it comes back as a CodeQuery error so that
// untrusted input never takes the caller down.
func parseTree(dialect, sql string) (stmts []*statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmts = nil
			err = &qeval.Error{Code: qeval.CodeQuery, Message: fmt.Sprintf("the %s parser failed on this text: %v", dialect, r),
				Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	switch dialect {
	case Postgres:
		return parsePostgres(sql)
	case MySQL:
		return parseMySQL(sql)
	}
	return parseSQLite(sql)
}

func syntaxError(msg string, line, col int) error {
	msg = strings.TrimSpace(msg)
	if !strings.HasPrefix(msg, "syntax error") {
		msg = "syntax error: " + msg
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: msg, Line: line, Col: col}
}
