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
// another connection) before Query returns: 18.16 ignores the client's cancel. Connect as a user whose
// profile is read-only too (readonly=1 in users.xml): settings sent with a query are
// the first line, the user's profile the second.
//
// A target is clickhouse://user:password@host:9000/database.
package clickhouse
