// Package clickhouse runs untrusted read-only queries on a ClickHouse database, through
// the official Go client (github.com/ClickHouse/clickhouse-go/v2) over the native
// protocol, which also speaks to old servers (Debian's ClickHouse 18.16).
//
// The sandbox is the server's own: every query carries the settings readonly=1 (no
// write, no DDL, no SET, no table functions such as file(), url() or remote()),
// max_execution_time from the deadline, max_memory_usage from the byte cap and
// max_result_rows above the row cap; the server refuses several statements in one
// query. Each query carries an id of its own; when its context ends or a cap is
// passed, the executor kills it on the server (KILL QUERY WHERE query_id = … SYNC, from
// another connection) before Query returns: 18.16 ignores the client's cancel.
//
// The user is the real sandbox. Open refuses one that may read every database or write
// (checkUser: SHOW GRANTS where the server has SQL users, else the readonly profile and
// allow_databases of users.xml), unless Options.AllowPrivileged; SetupReader makes one
// that may not (the SQL, or the users.xml entry for an older server). The statement
// check refuses system tables other than the number generators, which every user of
// 18.16 may read (system.processes holds other sessions' queries).
//
// A target is clickhouse://user:password@host:9000/database.
package clickhouse
