// Package duckdb runs untrusted read-only queries on a DuckDB database file, through
// the official Go driver (github.com/duckdb/duckdb-go/v2, which links DuckDB itself).
//
// The sandbox is DuckDB's own configuration, fixed when the database is opened and
// locked against change: access_mode READ_ONLY (no write reaches the file),
// enable_external_access off (no reading or writing of other files, no COPY … TO, no
// ATTACH, no HTTP), extension install and autoload off, memory_limit from the executor's
// limits, a spill (temp_directory) bounded as memory is, in a private folder qeval
// removes (spill.go), one thread per query, and lock_configuration so that no query can
// SET them back.
// Before a statement runs, the engine's own parser prepares it: only a single SELECT
// (DuckDB's statement type) runs; anything else is refused without executing. The
// deadline interrupts the query in the engine (duckdb_interrupt, through the driver's
// context handling); the row and byte caps stop fetching.
//
// The engine runs in worker processes, not in the calling one: some of DuckDB's
// functions (repeat, lpad, printf building a gigabyte string) never look at the
// interrupt, and ran a minute past a 30 s deadline in-process. A worker whose query is
// not done a second after its deadline is ended, and the query is a timeout; a worker
// that crashes fails its one query. The workers are this program started again (the
// package's init serves them before main runs), at most max(2, GOMAXPROCS) at once,
// shared by every executor; each inherits the caller's resource limits.
//
// Each executor is its own DuckDB instance with its one file: attached beside others
// in one instance, a file's queries could read every other file (SELECT * FROM
// other.t, or query('…') with the name in a string), which no parse-time check stops.
//
// A target names a database as duckdb:PATH or as a path ending in .duckdb or .ddb.
package duckdb
