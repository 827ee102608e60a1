package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

func TestValidate_WithDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "singers.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE singer (singer_id INTEGER, name TEXT, age INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	in := strings.Join([]string{
		"SELECT name FROM singer WHERE age > 30",
		"SELECT * FROM nonexistent",
		"SELECT foo FROM singer",
		"DROP TABLE singer",
		"SELECT name FROM singer WHERE",
	}, "\n")
	code, out, stderr := runCLI(t, in, "validate", "--db", path)
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	want := []struct {
		valid    bool
		category string
		message  string
	}{
		{true, "", ""},
		{false, "schema", "Table 'nonexistent' does not exist"},
		{false, "schema", "Column 'foo' does not exist in table 'singer'"},
		{false, "safety", "DROP statements are not allowed"},
		{false, "syntax", "syntax error"},
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		var v struct {
			Index    int    `json:"index"`
			Valid    bool   `json:"valid"`
			Category string `json:"category"`
			Problems []struct {
				Message string `json:"message"`
			} `json:"problems"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, lines[i])
		}
		if v.Index != i || v.Valid != w.valid || v.Category != w.category || (w.message != "" && (len(v.Problems) == 0 || !strings.Contains(v.Problems[0].Message, w.message))) {
			t.Errorf("line %d = %s, want valid=%v category=%q message %q", i+1, lines[i], w.valid, w.category, w.message)
		}
	}
}

func TestValidate_AllowTables(t *testing.T) {
	code, out, _ := runCLI(t, "SELECT * FROM a JOIN b ON 1\nSELECT * FROM a", "validate", "--allow-tables", "a")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 || !strings.Contains(lines[0], "Table 'b' is not in the allowed tables") || !strings.Contains(lines[1], `"valid":true`) {
		t.Errorf("code %d, out %q", code, out)
	}
}

func TestValidate_ErrMissingDB(t *testing.T) {
	code, _, stderr := runCLI(t, "SELECT 1", "validate", "--db", filepath.Join(t.TempDir(), "nope.sqlite"))
	if code == exitOK || !strings.Contains(stderr, "error:") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}
