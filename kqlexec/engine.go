package kqlexec

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net/url"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Translated queries run on the sqlite package's executor (sqlite.OpenWith), in its
// sandbox (read-only file, authorizer allow-list, deadline and caps), with the KQL
// run-time functions (kf, kfv, ka) installed on each connection by FunctionsHook. The
// connector below only loads tables into the engine's private database file.

// connector opens engine connections on one database file.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

// openWritable opens path for loading tables (no KQL functions, no authorizer).
func openWritable(path string) *sql.DB {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	u.RawQuery = "_journal_mode=OFF&_synchronous=OFF"
	db := sql.OpenDB(&connector{dsn: u.String(), drv: &sqlite3.SQLiteDriver{}})
	db.SetMaxOpenConns(1)
	return db
}

// FunctionsHook registers the KQL run-time functions on a SQLite connection: kf and kfv
// (scalar functions, deterministic and not) and ka (aggregates).
func FunctionsHook(c *sqlite3.SQLiteConn) error {
	if err := c.RegisterFunc("kf", dispatch, true); err != nil {
		return err
	}
	if err := c.RegisterFunc("kfv", dispatch, false); err != nil {
		return err
	}
	return c.RegisterAggregator("ka", newGoAgg, true)
}

// readOnlyDSN opens a user's SQLite source for loading, read-only.
func readOnlyDSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Set("_query_only", "1")
	u.RawQuery = q.Encode()
	return u.String()
}
