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
