package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

var stormData = filepath.Join("..", "..", "examples", "kql", "stormevents")

func TestExec_KQLTable(t *testing.T) {
	code, out, stderr := runCLI(t, "", "exec", "--dialect", "kql", "--data", stormData,
		"--query", `StormEvents | where State == "TEXAS" | summarize n=count() by State`)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "State") || !strings.HasPrefix(lines[1], "TEXAS") || lines[2] != "(1 rows)" {
		t.Errorf("output:\n%s", out)
	}
}

func TestExec_KQLJSON(t *testing.T) {
	q := `print d=datetime(2007-01-02 03:04:05), s=1d + 2h + 3.5s, j=dynamic({"a":[1,2]}), n=long(null) | extend ago=ago(1d)`
	code, out, stderr := runCLI(t, "", "exec", "--dialect", "kql", "--now", "2007-12-31", "--json", "--query", q)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var got struct {
		Columns []struct{ Name, Type string }
		Rows    [][]json.RawMessage
		Error   json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Columns) != 5 || got.Columns[0].Type != "datetime" || got.Columns[1].Type != "timespan" || got.Columns[2].Type != "dynamic" || got.Columns[3].Type != "long" {
		t.Errorf("columns = %+v", got.Columns)
	}
	want := []string{`"2007-01-02T03:04:05Z"`, `"1.02:00:03.5000000"`, `{"a":[1,2]}`, `null`, `"2007-12-30T00:00:00Z"`}
	for i, w := range want {
		if string(got.Rows[0][i]) != w {
			t.Errorf("cell %d = %s, want %s", i, got.Rows[0][i], w)
		}
	}
	if string(got.Error) != "null" {
		t.Errorf("error = %s, want null", got.Error)
	}
}

func TestExec_Errors(t *testing.T) {
	t.Run("UnknownColumnText", func(t *testing.T) {
		code, _, stderr := runCLI(t, "", "exec", "--dialect", "kql", "--data", stormData, "--query", "StormEvents\n| where Foo > 1")
		if code != exitFailed || !strings.Contains(stderr, `error: 2:9: unknown name "Foo"`) || !strings.Contains(stderr, "        ^") {
			t.Errorf("code %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("UnsupportedJSON", func(t *testing.T) {
		code, out, _ := runCLI(t, "", "exec", "--json", "--query", "print x=1 | evaluate autocluster()")
		if code != exitFailed || !strings.Contains(out, `"code":"unsupported"`) || !strings.Contains(out, `"message":"unsupported: evaluate autocluster"`) || !strings.Contains(out, `"rows":[]`) {
			t.Errorf("code %d, out %s", code, out)
		}
	})
	t.Run("SQLiteNeedsDB", func(t *testing.T) {
		code, _, stderr := runCLI(t, "", "exec", "--dialect", "sqlite", "--query", "select 1")
		if code != exitUsage || !strings.Contains(stderr, "needs --db") {
			t.Errorf("code %d, stderr %s", code, stderr)
		}
	})
	t.Run("BadNow", func(t *testing.T) {
		code, _, stderr := runCLI(t, "", "exec", "--now", "yesterday", "--query", "print 1")
		if code != exitUsage || !strings.Contains(stderr, `--now "yesterday" is not a time`) {
			t.Errorf("code %d, stderr %s", code, stderr)
		}
	})
	t.Run("NoQuery", func(t *testing.T) {
		code, _, stderr := runCLI(t, "", "exec")
		if code != exitUsage || !strings.Contains(stderr, "no query") {
			t.Errorf("code %d, stderr %s", code, stderr)
		}
	})
}

func TestExec_SQLite(t *testing.T) {
	db := filepath.Join("..", "..", "examples", "chinook", "chinook.sqlite")
	code, out, stderr := runCLI(t, "", "exec", "--dialect", "sqlite", "--db", db, "--json", "--query", "SELECT count(*) AS n FROM Genre")
	if code != exitOK || !strings.Contains(out, `"rows":[[25]]`) {
		t.Errorf("code %d, out %s, stderr %s", code, out, stderr)
	}
}

func TestExec_QueryFileStdin(t *testing.T) {
	code, out, stderr := runCLI(t, "StormEvents | count", "exec", "--data", stormData, "--query-file", "-")
	if code != exitOK || !strings.Contains(out, "5000") {
		t.Errorf("code %d, out %s, stderr %s", code, out, stderr)
	}
}
