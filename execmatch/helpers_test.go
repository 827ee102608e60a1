package execmatch_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
)

// singerSchema is a small database in the shape of Spider's concert_singer.
var singerSchema = []string{
	`CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, net_worth REAL)`,
	`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer(singer_id), year INTEGER, theme TEXT)`,
}

// singerRows is the data of the main test database.
var singerRows = []string{
	`INSERT INTO singer VALUES
		(1, 'Joe Sharp', 'Netherlands', 52, 30.0),
		(2, 'Timbaland', 'United States', 32, 20.5),
		(3, 'Justin Brown', 'France', 29, 12.0),
		(4, 'Rose White', 'France', 41, 12.0),
		(5, 'John Nizinik', 'France', 43, 8.25),
		(6, 'Tribal King', 'France', 25, NULL)`,
	`INSERT INTO concert VALUES
		(1, 1, 2014, 'Free choice'),
		(2, 2, 2014, 'Wide Awake'),
		(3, 2, 2015, 'Happy Tonight'),
		(4, 4, 2015, 'Party All Night')`,
}

// mustBuildDB writes a SQLite file at dir/name with the standard driver (the executor
// under test is read-only) and returns its path.
func mustBuildDB(tb testing.TB, dir, name string, stmts ...string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("build %s: %q: %v", name, s, err)
		}
	}
	return path
}

// mustSingerDB builds the main test database in a fresh temporary folder.
func mustSingerDB(tb testing.TB) string {
	tb.Helper()
	return mustBuildDB(tb, tb.TempDir(), "singer.sqlite", append(append([]string(nil), singerSchema...), singerRows...)...)
}

// spiderOpts fills what the tests of this package assume: databases resolved by path
// (a file or a test-suite folder) and, unless a test names another, the official
// Spider rules.
func spiderOpts(o execmatch.Options) execmatch.Options {
	if o.Catalog == nil {
		o.Catalog = &registry.Catalog{}
	}
	if o.Mode == "" {
		o.Mode = "spider-ts"
	}
	return o
}
