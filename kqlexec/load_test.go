package kqlexec_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func schemaText(t *testing.T, e interface {
	Schema(context.Context) (*qeval.Schema, error)
}) string {
	t.Helper()
	s, err := e.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, tb := range s.Tables {
		var cols []string
		for _, c := range tb.Columns {
			cols = append(cols, c.Name+":"+c.Type)
		}
		parts = append(parts, tb.Name+"("+strings.Join(cols, ",")+")")
	}
	return strings.Join(parts, " ")
}

func TestOpen_FolderInfersTypes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Logs.csv", "When,Level,Count,Ratio,Ok,Props\n2024-01-02 03:04:05,warn,3,0.5,true,\"{\"\"a\"\":1}\"\n2024-01-03T00:00:00Z,error,,1.25,false,[1]\n")
	write(t, dir, "Users.jsonl", `{"name":"ann","age":31,"tags":["x"]}`+"\n"+`{"name":"bob","age":null}`+"\n")
	write(t, dir, "notes.txt", "ignored")
	e := mustOpen(t, dir)
	want := "Logs(When:datetime,Level:string,Count:long,Ratio:real,Ok:bool,Props:dynamic) Users(age:long,name:string,tags:dynamic)"
	if got := schemaText(t, e); got != want {
		t.Errorf("schema = %s\nwant %s", got, want)
	}
	rs, err := e.Query(context.Background(), "Logs | where Ok | project When, Count, a = toint(Props.a)")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowsText(rs), ";"); got != "2024-01-02T03:04:05Z|3|1" {
		t.Errorf("rows = %s", got)
	}
	rs, err = e.Query(context.Background(), "Users | where isnull(age) | project name")
	if err != nil || strings.Join(rowsText(rs), ";") != "bob" {
		t.Errorf("rows = %v, %v", rs, err)
	}
}

func TestOpen_SchemaFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "T.csv", "Id,Code\n1,007\n")
	write(t, dir, "schema.kql", "// types\n.create table T (Id: int, Code: string)\n")
	e := mustOpen(t, dir)
	if got := schemaText(t, e); got != "T(Id:int,Code:string)" {
		t.Errorf("schema = %s", got)
	}
	rs, err := e.Query(context.Background(), "T | project Code")
	if err != nil || rowsText(rs)[0] != "007" {
		t.Errorf("rows = %v, %v", rs, err)
	}
}

func TestOpen_JSONArrayFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Events.json", `[{"t":"2024-01-01T00:00:00Z","n":1.5},{"t":"2024-01-02T00:00:00Z","n":2}]`)
	e := mustOpen(t, filepath.Join(dir, "Events.json"))
	rs, err := e.Query(context.Background(), "Events | summarize sum(n), max(t)")
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsText(rs)[0]; got != "3.5|2024-01-02T00:00:00Z" {
		t.Errorf("row = %s", got)
	}
}

func TestOpen_SQLiteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE Sales (Region TEXT, Amount REAL, Units INTEGER, Day datetime)",
		"INSERT INTO Sales VALUES ('north', 10.5, 2, '2024-01-01'), ('south', 4, 1, '2024-01-02 10:00:00')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	e := mustOpen(t, path)
	if got := schemaText(t, e); got != "Sales(Region:string,Amount:real,Units:long,Day:datetime)" {
		t.Errorf("schema = %s", got)
	}
	rs, err := e.Query(context.Background(), "Sales | where Day > datetime(2024-01-01) | project Region, Units")
	if err != nil || strings.Join(rowsText(rs), ";") != "south|1" {
		t.Errorf("rows = %v, %v", rs, err)
	}
}

func TestOpen_Errors(t *testing.T) {
	empty := t.TempDir()
	bad := t.TempDir()
	write(t, bad, "T.csv", "a,b\n1,2\n")
	write(t, bad, "schema.kql", "T(a: long, c: long)\n")
	ragged := t.TempDir()
	write(t, ragged, "R.csv", "a,b\n1\n")
	cases := []struct {
		name, source string
		code         qeval.Code
		msg          string
	}{
		{"Missing", filepath.Join(empty, "nope"), qeval.CodeNotFound, "no such file"},
		{"EmptyFolder", empty, qeval.CodeInvalid, "no tables"},
		{"SchemaMismatch", bad, qeval.CodeInvalid, `column 2 is "b" in the file and "c" in schema.kql`},
		{"RaggedCSV", ragged, qeval.CodeInvalid, "line 2: 1 fields, the header has 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openErr(t, c.source)
			if qeval.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Open(%s) = %v (code %q), want %q with %q", c.source, err, qeval.ErrorCode(err), c.code, c.msg)
			}
		})
	}
}
