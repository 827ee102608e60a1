// Package sqlparse extracts the structure of SQL text: the statement kind and a
// qeval.Shape (tables read, aliases, columns, filters, aggregates, GROUP BY, ORDER BY,
// LIMIT), per dialect, and the Spider difficulty of a gold query.
//
// Each dialect wraps one maintained parser library and converts its tree to a small
// shared tree (tree.go), which one extractor turns into a Shape:
//
//   - sqlite (the default): github.com/rqlite/sql, a pure-Go SQLite grammar
//     (sqlite.go);
//   - postgres: github.com/pganalyze/pg_query_go, the PostgreSQL server's own parser
//     (postgres.go);
//   - mysql: github.com/pingcap/tidb/pkg/parser, TiDB's MySQL grammar (mysql.go).
//
// A new dialect is one file converting its parser's tree, and one case in parseTree.
//
// Names keep the spelling of the query and compare case-insensitively. Tables are the
// base tables a statement names: CTE names and subqueries are resolved, never listed;
// the schema a connection starts in (main, public) is dropped, any other is kept as
// schema.table. For INSERT, UPDATE, DELETE, CREATE and the like the table written is
// listed too. The shape's Source is "parser"; the exact path, asking the engine what a
// statement reads, lives with the engine (package sqlite).
package sqlparse
