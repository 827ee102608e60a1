package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

const createSchema = `
CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT CHECK (score >= 0));
CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INT REFERENCES parent(id), note TEXT);
CREATE VIEW named AS SELECT name FROM parent;`

func TestCreate_KeepsOnlyRowsThatSatisfyConstraints(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.sqlite")
	w, err := sqlite.Create(orig, createSchema)
	if err != nil {
		t.Fatal(err)
	}
	I, T := qeval.Int, qeval.Text
	kept, err := w.Insert("parent", []string{"id", "name", "score"}, [][]qeval.Value{
		{I(1), T("a"), I(5)},
		{I(1), T("b"), I(5)},       // duplicate primary key
		{I(2), T("a"), I(5)},       // duplicate UNIQUE name
		{I(3), qeval.Null, I(5)},   // NOT NULL
		{I(4), T("d"), I(-1)},      // CHECK
		{I(5), T("e"), qeval.Null}, // fine
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, false, false, false, true}
	for i := range want {
		if kept[i] != want[i] {
			t.Errorf("parent row %d kept=%v, want %v", i, kept[i], want[i])
		}
	}
	kept, err = w.Insert("child", []string{"id", "parent_id", "note"}, [][]qeval.Value{
		{I(1), I(1), T("x")}, {I(2), I(9), T("dangling")}, {I(3), qeval.Null, T("no parent")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !kept[0] || kept[1] || !kept[2] {
		t.Errorf("child kept=%v, want [true false true] (the dangling foreign key is refused)", kept)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Check(orig); err != nil {
		t.Errorf("Check(orig)=%v, want nil", err)
	}

	// a copy of the schema, views included, with no rows
	like := filepath.Join(dir, "like.sqlite")
	w2, err := sqlite.CreateLike(like, orig)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	ex, err := sqlite.Open(like, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	rs, err := ex.Query(context.Background(), "SELECT count(*) FROM named")
	if err != nil || rs.Rows[0][0].Int != 0 {
		t.Errorf("view in the copy: %v, %v; want 0 rows counted", rs, err)
	}
	if _, err := sqlite.CreateLike(like, orig); err == nil {
		t.Error("CreateLike over an existing file succeeded, want an error")
	}
}

func TestCheck_ForeignKeyMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.sqlite")
	// the parent column is not a key, so SQLite cannot check the foreign key
	w, err := sqlite.Create(path, `CREATE TABLE p (code TEXT); CREATE TABLE c (code TEXT REFERENCES p(code));`)
	if err != nil {
		t.Fatal(err)
	}
	if w.Mismatch == "" {
		t.Error("Writer.Mismatch is empty, want the foreign key mismatch")
	}
	if _, err := w.Insert("c", []string{"code"}, [][]qeval.Value{{qeval.Text("x")}}); err != nil {
		t.Fatalf("insert with a mismatched foreign key: %v", err)
	}
	w.Close()
	err = sqlite.Check(path)
	if !errors.Is(err, sqlite.ErrForeignKeyMismatch) {
		t.Errorf("Check=%v, want ErrForeignKeyMismatch", err)
	}
}
