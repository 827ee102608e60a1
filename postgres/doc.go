// Package postgres is the qeval.Executor for PostgreSQL, built on pgx
// (github.com/jackc/pgx/v5): its connection pool, and its low-level pgconn API for the
// queries themselves.
//
// Open connects with a DSN and Limits; Query runs one generated (untrusted) statement
// and returns its rows as a qeval.ResultSet; Schema describes the tables of the current
// schema.
//
// # Reading only
//
// Every query runs in its own READ ONLY transaction, which is always rolled back, with
// SET LOCAL statement_timeout at what is left of the query's deadline. It is sent with
// the extended protocol, which refuses a string holding several statements. Before it
// reaches the server, a lexical check refuses (CodeForbidden) statements that do not
// start as a read, such as INSERT, DROP, SET, COPY or DO, a WITH or EXPLAIN whose main
// statement is a write, a WITH query that is a write (WITH x AS (DELETE …)), and calls
// of functions that act outside the database.
//
// The read-only transaction blocks writes to tables, DDL, nextval, SELECT ... FOR
// UPDATE and data-modifying CTEs; set_config and large-object writes are undone by the
// rollback. It does NOT block what a superuser's functions do outside the transaction:
// reading server files (pg_read_file, pg_ls_dir, lo_import), writing them (lo_export),
// running programs (COPY ... TO PROGRAM, only as a statement), signalling other
// sessions (pg_terminate_backend), reloading the configuration, switching WAL, resetting
// statistics, session-level advisory locks, SQL passed as text (query_to_xml, dblink).
// The check refuses the functions it knows by name (see deniedFunctions), but a name
// list cannot be complete: connect as a role that is not a superuser and holds only
// SELECT on the tables (or pg_read_all_data), without pg_read_server_files,
// pg_write_server_files, pg_execute_server_program or pg_signal_backend.
//
// # Values
//
// Results are read in text format and converted in one function (convert): integers
// to ints, float4/float8 to floats, numeric to an int when integral and small enough
// and to a float otherwise, bool, bytea to bytes, date/timestamp/timestamptz to UTC
// times, and everything else (json, jsonb, uuid, interval, arrays, enums, ...) to the
// text the server prints. Column types are pg_type names: int4, numeric, text, _int4.
//
// # Timeouts and cancellation
//
// When a query's context ends, the executor sends the server a cancel request, so the
// statement stops on the server too, and drops the connection; Query returns
// CodeTimeout or CodeCanceled within about half a second.
package postgres
