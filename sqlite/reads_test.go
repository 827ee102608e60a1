package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

func TestExecutor_Reads(t *testing.T) {
	e := mustOpen(t,
		"CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, age INT)",
		"CREATE TABLE concert (id INTEGER PRIMARY KEY, singer_id INT, year INT)",
		"CREATE INDEX concert_year ON concert(year)",
		"CREATE VIEW old AS SELECT name FROM singer WHERE age > 60",
	)
	for _, c := range []struct {
		sql    string
		tables string
		cols   string
	}{
		{"SELECT count(*) FROM concert", "concert", ""},
		{"SELECT s.name FROM singer AS s JOIN concert c ON s.id = c.singer_id WHERE c.year = 2014", "singer,concert", "singer.name,singer.id,concert.singer_id,concert.year"},
		{"WITH t AS (SELECT name FROM singer) SELECT count(*) FROM t", "singer", "singer.name"},
		// a view is reported with the base tables it reads
		{"SELECT * FROM old", "old,singer", "old.name,singer.name,singer.age"},
		{"SELECT count(*) FROM concert WHERE year > 2000", "concert", "concert.year"},
	} {
		sh, err := e.Reads(context.Background(), c.sql)
		if err != nil {
			t.Errorf("Reads(%q): %v", c.sql, err)
			continue
		}
		var cols []string
		for _, col := range sh.Columns {
			cols = append(cols, col.Table+"."+col.Name)
		}
		if got := strings.Join(sh.Tables, ","); !sameSet(got, c.tables) {
			t.Errorf("Reads(%q) tables = %s, want %s", c.sql, got, c.tables)
		}
		if got := strings.Join(cols, ","); !sameSet(got, c.cols) {
			t.Errorf("Reads(%q) columns = %s, want %s", c.sql, got, c.cols)
		}
		if sh.Source != "engine" || sh.Kind != "select" {
			t.Errorf("Reads(%q) source %q kind %q", c.sql, sh.Source, sh.Kind)
		}
	}
	if _, err := e.Reads(context.Background(), "DELETE FROM singer"); qeval.ErrorCode(err) != qeval.CodeForbidden {
		t.Errorf("Reads(DELETE) = %v, want forbidden", err)
	}
	if _, err := e.Reads(context.Background(), "SELECT nope FROM singer"); qeval.ErrorCode(err) != qeval.CodeQuery {
		t.Errorf("Reads(bad column) = %v, want a query error", err)
	}
}

func sameSet(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, x := range strings.Split(s, ",") {
			if x != "" {
				m[x] = true
			}
		}
		return m
	}
	x, y := set(a), set(b)
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if !y[k] {
			return false
		}
	}
	return true
}

// TestExecutor_ReadsBounded checks that Reads refuses a query over the size bound before
// SQLite prepares it (a 10 MB IN list costs the parser hundreds of MB).
func TestExecutor_ReadsBounded(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE t (a INT)")
	_, err := e.Reads(context.Background(), "SELECT a FROM t WHERE a IN ("+strings.Repeat("1,", 1<<20)+"1)")
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("Reads of a 2 MB query: %v", err)
	}
}
