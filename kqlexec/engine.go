package kqlexec

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net/url"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// The engine is SQLite through the mattn driver, the same engine the sqlite package
// runs SQL on. Each connection gets the Go functions (kf, kfv, ka) and an authorizer
// that allows only reads, as the sqlite package's does: the translated SQL is ours,
// but the data file may come from anywhere.

// connector opens engine connections on one database file.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

// openEngine opens path read-only with the KQL functions registered.
func openEngine(path string, maxConns int) *sql.DB {
	drv := &sqlite3.SQLiteDriver{ConnectHook: registerFunctions}
	db := sql.OpenDB(&connector{dsn: readOnlyDSN(path), drv: drv})
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	return db
}

// openWritable opens path for loading tables (no KQL functions, no authorizer).
func openWritable(path string) *sql.DB {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	u.RawQuery = "_journal_mode=OFF&_synchronous=OFF"
	db := sql.OpenDB(&connector{dsn: u.String(), drv: &sqlite3.SQLiteDriver{}})
	db.SetMaxOpenConns(1)
	return db
}

func readOnlyDSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Set("_query_only", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// FunctionsHook registers the KQL run-time functions on a SQLite connection: kf and kfv
// (scalar functions, deterministic and not) and ka (aggregates). It is exported so that
// the sqlite package's executor can install it (see the package doc).
func FunctionsHook(c *sqlite3.SQLiteConn) error {
	if err := c.RegisterFunc("kf", dispatch, true); err != nil {
		return err
	}
	if err := c.RegisterFunc("kfv", dispatch, false); err != nil {
		return err
	}
	return c.RegisterAggregator("ka", newGoAgg, true)
}

func registerFunctions(c *sqlite3.SQLiteConn) error {
	if err := FunctionsHook(c); err != nil {
		return err
	}
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	c.RegisterAuthorizer(authorize)
	return nil
}

// sqliteRecursive is SQLITE_RECURSIVE, which the driver does not export.
const sqliteRecursive = 33

var deniedFunctions = map[string]bool{
	"load_extension": true, "fts3_tokenizer": true, "readfile": true, "writefile": true, "edit": true,
}

// authorize allows reading, selecting, recursion and function calls, nothing else.
func authorize(op int, arg1, arg2, arg3 string) int {
	switch op {
	case sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqliteRecursive:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if deniedFunctions[strings.ToLower(arg2)] {
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	}
	return sqlite3.SQLITE_DENY
}
