package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

func mustOpen(tb testing.TB, setup ...string) *sqlite.Executor {
	tb.Helper()
	path := buildDB(tb, tb.TempDir(), setup...)
	e, err := sqlite.Open(path, qeval.Limits{Timeout: 2 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func TestExecutor_Values(t *testing.T) {
	e := mustOpen(t,
		"CREATE TABLE v (i INTEGER, f REAL, s TEXT, b BLOB, n TEXT)",
		"INSERT INTO v VALUES (42, 2.5, 'héllo', x'00ff', NULL)",
	)
	rs, err := e.Query(context.Background(), "SELECT i, f, s, b, n, 1.0, 'x' || 'y' AS xy FROM v")
	if err != nil {
		t.Fatal(err)
	}
	want := []qeval.Value{qeval.Int(42), qeval.Float(2.5), qeval.Text("héllo"), qeval.Bytes([]byte{0, 0xff}), qeval.Null, qeval.Float(1), qeval.Text("xy")}
	if !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("row = %v, want %v", rs.Rows[0], want)
	}
	names := rs.ColumnNames()
	if strings.Join(names, ",") != "i,f,s,b,n,1.0,xy" {
		t.Errorf("columns = %v", names)
	}
	if rs.Columns[0].Type != "INTEGER" || rs.Columns[6].Type != "" {
		t.Errorf("declared types = %v", rs.Columns)
	}
}

// The driver turns values of DATE/DATETIME/TIMESTAMP/BOOLEAN columns into Go times and
// booleans (a text it cannot parse becomes the zero time). The executor must return the
// stored values, as Python's sqlite3 does, in the query's row order.
func TestExecutor_DeclaredTypesKeepStoredValues(t *testing.T) {
	e := mustOpen(t,
		"CREATE TABLE d (id INTEGER, at DATETIME, day DATE, flag BOOLEAN, ts TIMESTAMP)",
		"INSERT INTO d VALUES (1, '2018-03-17 07:13:53', 'not a date', 2, 1500000000)",
		"INSERT INTO d VALUES (2, '1999-01-01', '2020-02-02', 0, 'x')",
	)
	rs, err := e.Query(context.Background(), "SELECT at, day, flag, ts FROM d ORDER BY id DESC")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]qeval.Value{
		{qeval.Text("1999-01-01"), qeval.Text("2020-02-02"), qeval.Int(0), qeval.Text("x")},
		{qeval.Text("2018-03-17 07:13:53"), qeval.Text("not a date"), qeval.Int(2), qeval.Int(1500000000)},
	}
	if !reflect.DeepEqual(rs.Rows, want) {
		t.Errorf("rows = %v, want %v", rs.Rows, want)
	}
	if rs.Columns[0].Name != "at" || rs.Columns[0].Type != "DATETIME" {
		t.Errorf("columns = %v", rs.Columns)
	}
	// a trailing comment and semicolon do not break the rewrite
	rs, err = e.Query(context.Background(), "SELECT at FROM d WHERE id = 1; -- done")
	if err != nil || rs.Rows[0][0] != qeval.Text("2018-03-17 07:13:53") {
		t.Errorf("with trailing comment: %v %v", rs, err)
	}
	rs, err = e.Query(context.Background(), "SELECT at FROM d WHERE id = 1 -- done")
	if err != nil || rs.Rows[0][0] != qeval.Text("2018-03-17 07:13:53") {
		t.Errorf("with trailing line comment: %v %v", rs, err)
	}
}

// Blobs are taken over from the driver without a copy (qeval.OwnedBytes): that holds only
// while the driver gives every value a buffer of its own. Rows of different blobs,
// read in one result, keep their own bytes.
func TestQuery_BlobsKeepTheirBytes(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE b (id INTEGER, v BLOB)",
		"INSERT INTO b VALUES (1, x'0102030405'), (2, x'a1a2a3a4a5'), (3, x'ff'), (4, zeroblob(3))")
	rs, err := e.Query(context.Background(), "SELECT v FROM b ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"\x01\x02\x03\x04\x05", "\xa1\xa2\xa3\xa4\xa5", "\xff", "\x00\x00\x00"}
	for i, w := range want {
		if got := rs.Rows[i][0]; got != qeval.Bytes([]byte(w)) {
			t.Errorf("row %d = %q, want %q", i, got.Str, w)
		}
	}
}

func TestExecutor_InvalidUTF8Dropped(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE u (s TEXT)", "INSERT INTO u VALUES (CAST(x'61ff62e4bd' AS TEXT))")
	rs, err := e.Query(context.Background(), "SELECT s FROM u")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rows[0][0]; got != qeval.Text("ab") {
		t.Errorf("value = %q, want %q (invalid bytes dropped)", got.Str, "ab")
	}
}

func TestExecutor_Errors(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE t (a)")
	for _, c := range []struct {
		sql  string
		code qeval.Code
		msg  string
	}{
		{"SELEC 1", qeval.CodeQuery, `near "SELEC": syntax error`},
		{"SELECT nope FROM t", qeval.CodeQuery, "no such column: nope"},
		{"SELECT * FROM missing", qeval.CodeQuery, "no such table: missing"},
		{"", qeval.CodeQuery, "empty query"},
		{"  -- only a comment\n", qeval.CodeQuery, "empty query"},
		{"SELECT * FROM t WHERE a = ?", qeval.CodeQuery, "the query has parameters"},
		{"SELECT :name", qeval.CodeQuery, "the query has parameters"},
	} {
		_, err := e.Query(context.Background(), c.sql)
		if qeval.ErrorCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Query(%q) = %v (code %s), want code %s and %q", c.sql, err, qeval.ErrorCode(err), c.code, c.msg)
		}
	}
	// a semicolon inside a string or comment is not a second statement
	for _, q := range []string{"SELECT ';DROP TABLE t'", "SELECT 1 -- ; DROP TABLE t", "SELECT 1; -- trailing comment", "SELECT 1 /* ; */"} {
		if _, err := e.Query(context.Background(), q); err != nil {
			t.Errorf("Query(%q) = %v, want success", q, err)
		}
	}
}

// A cancel stops a statement that is running: the query calls running() on every row,
// and the first call lets the test cancel. A cancel that does not reach the statement
// leaves it to the 30s timeout, a timeout error.
func TestExecutor_Canceled(t *testing.T) {
	path := buildDB(t, t.TempDir(), "CREATE TABLE t (a)")
	running := make(chan struct{})
	var once sync.Once
	e, err := sqlite.OpenWith(path, qeval.Limits{Timeout: 30 * time.Second}, 1, sqlite.Options{Funcs: []sqlite.Func{
		{Name: "running", Impl: func(x int64) int64 { once.Do(func() { close(running) }); return x }},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-running
		cancel()
	}()
	_, err = e.Query(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT running(x) + 1 FROM c) SELECT count(*) FROM c")
	if qeval.ErrorCode(err) != qeval.CodeCanceled {
		t.Errorf("code = %s (%v), want canceled", qeval.ErrorCode(err), err)
	}
}

func TestOpen_Errors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, []byte("hello, this is not a database file"), 0o644)
	for _, c := range []struct {
		path string
		code qeval.Code
		msg  string
	}{
		{filepath.Join(dir, "missing.sqlite"), qeval.CodeNotFound, "no such file"},
		{notDB, qeval.CodeInvalid, "not a SQLite database"},
		{dir, qeval.CodeInvalid, "is a directory"},
	} {
		_, err := sqlite.Open(c.path, qeval.Limits{})
		if qeval.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("Open(%q) = %v, want code %s naming the path and %q", c.path, err, c.code, c.msg)
		}
	}
}

func TestExecutor_Schema(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT)", "CREATE VIEW young AS SELECT name FROM singer")
	s, err := e.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 2 || s.Table("SINGER") == nil || len(s.Table("singer").Columns) != 2 || s.Table("young").Columns[0].Name != "name" {
		t.Errorf("schema = %+v", s)
	}
	if s.Table("singer").Columns[0].Type != "INTEGER" || !strings.Contains(s.Table("singer").DDL, "CREATE TABLE singer") {
		t.Errorf("singer = %+v", s.Table("singer"))
	}
}
