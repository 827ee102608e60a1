package sqlite

import (
	"database/sql"
	"net/url"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, registered here alone
)

// OpenStore opens (creating when missing) a SQLite file that qeval itself writes: the
// judge cache, the server's run history. It is a plain read-write database in WAL mode
// with a busy timeout and foreign keys on; it is never given a generated query (those
// run on Executor, read-only and sandboxed). The driver is registered only in this
// package, since database/sql panics when two packages register the same name.
func OpenStore(path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_journal_mode=WAL&_busy_timeout=5000&_synchronous=NORMAL&_foreign_keys=on"
	return sql.Open("sqlite3", dsn)
}

// OpenScratch opens (creating when missing) a private SQLite file that qeval fills itself,
// such as the KQL engine's copy of a data folder: read-write, no journal, no fsync, one
// connection. Generated queries never run on it; they run on an Executor opened on the
// finished file.
func OpenScratch(path string) *sql.DB {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	u.RawQuery = "_journal_mode=OFF&_synchronous=OFF"
	db, _ := sql.Open("sqlite3", u.String()) // sql.Open fails only for an unknown driver
	db.SetMaxOpenConns(1)
	return db
}

// OpenReadOnly opens a user's SQLite file to read it (immutable, query-only), for loading
// its tables elsewhere. It is not sandboxed: give it only qeval's own statements.
func OpenReadOnly(path string) *sql.DB {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Set("_query_only", "1")
	u.RawQuery = q.Encode()
	db, _ := sql.Open("sqlite3", u.String())
	return db
}
