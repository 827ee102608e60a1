package qeval

import "context"

// Source is a database resolved once for a run: what engine answers its queries, in
// which dialect they are parsed, and the database files a query must match on (one, or
// every file of a test suite). A Catalog builds it; the runner, the evaluator and the
// metrics read it and never interpret a database name themselves.
type Source struct {
	// Name is the database as the suite or the caller named it.
	Name string
	// Display is how reports show it (a DSN with its password masked, a path).
	Display string
	// Engine is the registry name of the engine (sqlite, postgres, mysql, kql, …).
	Engine string
	// Dialect is the query language its queries are parsed in: sqlite, postgres, mysql,
	// duckdb, clickhouse or kql.
	Dialect string
	// Files are the databases a generated query must match on: one target, or the
	// files of a test suite. Each is opened with Open.
	Files []string
	// Open opens one of Files with the given limits.
	Open Opener
	// Local, when set, says Files are on this machine: it returns the file or folder
	// one of them names (after a prefix such as duckdb:). The gold-result cache keys
	// those by their content; other databases (servers) by their target.
	Local func(target string) string
	// Sandbox, when set, makes a disposable writable copy of one of Files, for the
	// stateful cases; nil when the engine cannot.
	Sandbox SandboxMaker
}

// Catalog resolves the database names of a suite or a request into Sources. It alone
// reads the file system and DSNs; a name it does not know is an error that says which
// names it knows. Implementations are safe for concurrent use.
type Catalog interface {
	// Resolve returns the source a name stands for. dialect is the query language of
	// the suite ("sql" or "kql"): a folder is a test suite of SQLite files for SQL and a
	// folder of data files for the local KQL engine.
	Resolve(ctx context.Context, name, dialect string) (*Source, error)
}
