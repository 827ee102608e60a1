// Package mysql is the qeval.Executor for MySQL and MariaDB, built on the
// go-sql-driver/mysql driver (github.com/go-sql-driver/mysql) through database/sql.
//
// Open connects with a DSN and Limits; Query runs one generated (untrusted) statement
// and returns its rows as a qeval.ResultSet; Schema describes the tables of the current
// database.
//
// # Reading only
//
// Every query runs in its own START TRANSACTION READ ONLY, which is always rolled
// back, on a connection without multi-statement support, with the server's statement
// timeout set to what is left of the deadline. A lexical check runs first and refuses
// (CodeForbidden) statements that do not start as a read (INSERT, CREATE, DROP, SET,
// LOAD DATA, CALL, ...), a WITH or EXPLAIN whose main statement is a write, SELECT ...
// INTO (OUTFILE, DUMPFILE or variables), := assignments, and LOAD_FILE, GET_LOCK and
// the other functions in deniedFunctions. Executable comments (/*! ... */) are read as
// code.
//
// Unlike PostgreSQL's, the read-only transaction of MySQL and MariaDB is a weak guard:
// it refuses writes to tables (error 1792) and sequence changes, but DDL commits the
// transaction implicitly and runs (CREATE, DROP, ALTER, RENAME, TRUNCATE), SELECT ...
// INTO OUTFILE writes a server file, LOAD_FILE reads one, and GET_LOCK and user
// variables outlive the rollback. The lexical check is what stops those, so connect as
// a user that holds only SELECT on the database (no FILE, no SUPER, no DDL
// privileges).
//
// # Values
//
// The driver is asked for text (parseTime off) and every value is converted in one
// function (convert): integer types to ints, FLOAT and DOUBLE to floats, DECIMAL to an
// int when integral and small enough and to a float otherwise, binary strings and
// BLOBs to bytes, DATE/DATETIME/TIMESTAMP to UTC times (the session time zone is UTC),
// and everything else (text types, JSON, TIME, ENUM, SET) to text. Column types are
// the driver's names: INT, UNSIGNED BIGINT, DECIMAL, VARCHAR, BLOB.
//
// # Timeouts and cancellation
//
// When a query's context ends, the driver drops the connection and the executor sends
// KILL QUERY for it from another connection, so the statement stops on the server too;
// Query returns CodeTimeout or CodeCanceled at once.
package mysql
