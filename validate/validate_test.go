package validate_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"
)

var singers = &qeval.Schema{Tables: []qeval.TableSchema{
	{Name: "singer", Columns: []qeval.Column{{Name: "Singer_ID"}, {Name: "Name"}, {Name: "Country"}, {Name: "Age"}}},
	{Name: "concert", Columns: []qeval.Column{{Name: "concert_ID"}, {Name: "concert_Name"}, {Name: "Year"}}},
	{Name: "singer_in_concert", Columns: []qeval.Column{{Name: "concert_ID"}, {Name: "Singer_ID"}}},
}}

// Each case reads: the query, then the category wanted ("" for valid) and a piece of
// the first problem's message.
func TestCheck(t *testing.T) {
	tests := []struct {
		dialect, sql, category, message string
		line, col                       int
	}{
		{"", "SELECT name FROM singer WHERE age > 20", "", "", 0, 0},
		{"", "select NAME from SINGER", "", "", 0, 0},
		{"", "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert T2 ON T1.singer_id = T2.singer_id", "", "", 0, 0},
		{"", "SELECT count(*) AS c, country FROM singer GROUP BY country ORDER BY c DESC", "", "", 0, 0},
		{"", "WITH x AS (SELECT name AS n FROM singer) SELECT n FROM x", "", "", 0, 0},
		{"", "SELECT name FROM singer s WHERE EXISTS (SELECT 1 FROM singer_in_concert c WHERE c.singer_id = s.singer_id)", "", "", 0, 0},
		{"", "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert)", "", "", 0, 0},
		{"", "SELECT sub.n FROM (SELECT name AS n FROM singer) AS sub", "", "", 0, 0},
		{"", "SELECT * FROM nonexistent", "schema", "Table 'nonexistent' does not exist", 1, 15},
		{"", "SELECT foo FROM singer", "schema", "Column 'foo' does not exist in table 'singer'", 1, 8},
		{"", "SELECT T1.foo FROM singer AS T1", "schema", "Column 'foo' does not exist in table 'singer'", 1, 8},
		{"", "SELECT year FROM singer JOIN concert ON 1 = 1 WHERE bar = 1", "schema", "Column 'bar' does not exist in tables 'singer', 'concert'", 1, 53},
		{"", "WITH x AS (SELECT name AS n FROM singer) SELECT m FROM x", "schema", "Column 'm' does not exist in table 'x'", 1, 49},
		{"", "SELECT T3.name FROM singer AS T1", "schema", "Table or alias 'T3' does not exist", 1, 8},
		{"", "SELECT singer_id FROM singer JOIN singer_in_concert ON 1", "schema", "Column 'singer_id' is ambiguous (in tables 'singer', 'singer_in_concert')", 1, 8},
		{"", "SELECT singer_id FROM singer JOIN singer_in_concert USING (singer_id)", "", "", 0, 0},
		{"", "SELECT singer_id FROM singer NATURAL JOIN singer_in_concert", "", "", 0, 0},
		{"", "SELECT name FROM singer WHERE", "syntax", "syntax error", 1, 30},
		{"", "SELECT name FROM singer WHERE (age > 1", "syntax", "never closed", 1, 31},
		{"", "DROP TABLE singer", "safety", "DROP statements are not allowed", 1, 1},
		{"", "DELETE FROM singer", "safety", "DELETE statements are not allowed", 1, 1},
		{"", "SELECT 1; SELECT 2", "safety", "2 statements in one query", 1, 11},
		{"", "SELECT name FROM singer; DROP TABLE singer", "safety", "2 statements in one query", 1, 26},
		{"", "ATTACH DATABASE '/tmp/x.db' AS x", "safety", "ATTACH statements are not allowed", 1, 1},
		{"", "PRAGMA table_info(singer)", "safety", "PRAGMA statements are not allowed", 1, 1},
		{"", "SELECT load_extension('/tmp/evil.so')", "safety", "function load_extension() is not allowed", 0, 0},
		{"", "  -- nothing\n", "other", "no statement", 0, 0},
		{"oracle", "SELECT 1", "other", "unknown dialect", 0, 0},
		{"postgres", "SELECT pg_sleep(10)", "safety", "function pg_sleep() is not allowed", 0, 0},
		{"postgres", "SELECT name FROM public.singer WHERE age > 20", "", "", 0, 0},
		{"postgres", "SELECT name FROM singer WHERE", "syntax", "syntax error", 1, 30},
		{"postgres", "SELECT nope FROM singer", "schema", "Column 'nope' does not exist in table 'singer'", 1, 8},
		{"mysql", "SELECT * FROM singer INTO OUTFILE '/tmp/x'", "safety", "SELECT INTO statements are not allowed", 1, 1},
		{"mysql", "SELECT `Name` FROM `singer` LIMIT 1", "", "", 0, 0},
		{"mysql", "SELECT * FROM nonexistent", "schema", "Table 'nonexistent' does not exist", 0, 0}, // TiDB keeps no position for table names
	}
	for _, tt := range tests {
		v := validate.Check(tt.sql, validate.Options{Dialect: tt.dialect, Schema: singers})
		if tt.category == "" {
			if !v.Valid || v.Category != "" || len(v.Problems) != 0 {
				t.Errorf("Check(%q)=%+v, want valid", tt.sql, v)
			}
			continue
		}
		if v.Valid || v.Category != tt.category || len(v.Problems) == 0 {
			t.Errorf("Check(%q)=%+v, want category %s", tt.sql, v, tt.category)
			continue
		}
		p := v.Problems[0]
		if !strings.Contains(p.Message, tt.message) || p.Line != tt.line || p.Col != tt.col {
			t.Errorf("Check(%q) first problem %q at %d:%d, want %q at %d:%d", tt.sql, p.Message, p.Line, p.Col, tt.message, tt.line, tt.col)
		}
	}
}

func TestCheck_Kind(t *testing.T) {
	for sql, kind := range map[string]string{"SELECT 1": "select", "INSERT INTO t VALUES (1)": "insert", "ATTACH 'a' AS b": "attach"} {
		if v := validate.Check(sql, validate.Options{}); v.Kind != kind {
			t.Errorf("Check(%q).Kind=%q, want %q", sql, v.Kind, kind)
		}
	}
}

func TestCheck_NoSchemaNoSchemaErrors(t *testing.T) {
	v := validate.Check("SELECT foo FROM nonexistent", validate.Options{})
	if !v.Valid {
		t.Errorf("Check without schema=%+v, want valid (schema checks need a schema)", v)
	}
}

func TestCheck_AllowTables(t *testing.T) {
	opt := validate.Options{AllowTables: []string{"SINGER", "main.concert"}}
	if v := validate.Check("SELECT * FROM singer JOIN concert ON 1", opt); !v.Valid {
		t.Errorf("allowed tables: %+v, want valid", v)
	}
	v := validate.Check("SELECT * FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert)", opt)
	if v.Valid || v.Category != "safety" || !strings.Contains(v.Problems[0].Message, "Table 'singer_in_concert' is not in the allowed tables") {
		t.Errorf("table outside the allow-list: %+v", v)
	}
}

// A misspelt statement is a syntax error, not a forbidden one (SELEC 1 and FOO BAR
// were once classed as safety errors).
func TestCheck_UnknownWordIsSyntax(t *testing.T) {
	for _, q := range []string{"SELEC 1", "FOO BAR"} {
		if v := validate.Check(q, validate.Options{}); v.Category != validate.Syntax {
			t.Errorf("Check(%q) category %q (%v), want syntax", q, v.Category, v.Problems)
		}
	}
	if v := validate.Check("PRAGMA writable_schema = 1", validate.Options{}); v.Category != validate.Safety {
		t.Errorf("PRAGMA: category %q, want safety", v.Category)
	}
}
