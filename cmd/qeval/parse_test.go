package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse_Lines(t *testing.T) {
	in := "SELECT T1.name FROM singer AS T1 WHERE T1.age > 30\nSELECT * FROM\n\nSELECT count(*) FROM concert"
	code, out, stderr := runCLI(t, in, "parse")
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d output lines, want 4 (one per input line):\n%s", len(lines), out)
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["ok"] != true || first["kind"] != "select" || first["error"] != nil || first["index"] != 0.0 {
		t.Errorf("line 1 = %s", lines[0])
	}
	if tables, _ := first["tables"].([]any); len(tables) != 1 || tables[0] != "singer" {
		t.Errorf("line 1 tables = %v", first["tables"])
	}
	if f, _ := first["filters"].([]any); len(f) != 1 || f[0].(map[string]any)["column"] != "singer.age" {
		t.Errorf("line 1 filters = %v", first["filters"])
	}
	e, _ := second["error"].(map[string]any)
	if second["ok"] != false || e == nil || e["line"] != 1.0 || e["col"] != 14.0 || !strings.Contains(e["message"].(string), "syntax error") {
		t.Errorf("line 2 = %s", lines[1])
	}
	if !strings.Contains(lines[2], `"ok":false`) || !strings.Contains(lines[3], `"aggregates":[{"func":"count","arg":"*"}]`) {
		t.Errorf("lines 3-4 = %s\n%s", lines[2], lines[3])
	}
}

func TestParse_JSONLField(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "preds.jsonl", `{"sql": "SELECT a FROM t1 JOIN t2 USING (id)"}`+"\n"+`{"other": 1}`+"\n")
	code, out, _ := runCLI(t, "", "parse", "--dialect", "postgres", "--field", "sql", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("code %d, out %q", code, out)
	}
	if !strings.Contains(lines[0], `"tables":["t1","t2"]`) {
		t.Errorf("line 1 = %s", lines[0])
	}
	if !strings.Contains(lines[1], `preds.jsonl:2: no string field \"sql\"`) {
		t.Errorf("line 2 = %s", lines[1])
	}
}

func TestParse_ErrUnknownDialect(t *testing.T) {
	code, _, stderr := runCLI(t, "SELECT 1", "parse", "--dialect", "oracle")
	if code != exitUsage || !strings.Contains(stderr, "known: mysql, postgres, sqlite") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestParse_ErrMissingFile(t *testing.T) {
	code, _, stderr := runCLI(t, "", "parse", t.TempDir()+"/nope.txt")
	if code != exitFailed || !strings.Contains(stderr, "no such file") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

// qeval parse and validate take one query with --query, as qeval exec does (issue 46).
func TestParse_Query(t *testing.T) {
	code, out, stderr := runCLI(t, "", "parse", "--query", "SELECT name FROM singer WHERE age > 30")
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"tables":["singer"]`) {
		t.Errorf("parse --query: code %d, %s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", "parse", "--dialect", "kql", "--query", "StormEvents | take 3")
	if code != exitOK || !strings.Contains(out, `"tables":["StormEvents"]`) {
		t.Errorf("parse --dialect kql --query: code %d, %s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", "validate", "--query", "DROP TABLE singer")
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"category":"safety"`) {
		t.Errorf("validate --query: code %d, %s%s", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", "parse", "--query", "SELECT 1", "queries.sql")
	if code != exitUsage || !strings.Contains(stderr, "give --query or a FILE, not both") {
		t.Errorf("--query and a FILE: code %d, %s", code, stderr)
	}
}
