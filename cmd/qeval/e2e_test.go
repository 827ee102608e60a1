package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The end-to-end golden cases live in testdata/e2e/<case>/, one folder each:
//
//	args             the command line, one argument per line; {case} is this folder,
//	                 {out} a fresh temporary folder, {postgres} and {mysql} the DSNs of
//	                 a reader on the test servers
//	requires         optional: "postgres" or "mysql", the server the case runs on
//	setup.sql        optional: statements run first on that server, as its administrator
//	want/exit        the exit code (0 when absent)
//	want/report.json the report the run writes to {out}/report.json, when present
//	want/stdout.txt  what the run prints, when present
//	want/stderr.txt  what the run prints on stderr, when present
//
// The clock is pinned, so started, finished and every duration are the same on every run;
// only the stack traces of failed metrics (code positions) are left out of the comparison.
// go test -run TestE2E -update rewrites the want files.

// e2eClock is the pinned clock of the end-to-end cases: every reading is the same instant.
func e2eClock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// withoutStacks drops the stack traces of failed metrics, which name code positions.
func withoutStacks(v any) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "stack")
		for k, x := range t {
			t[k] = withoutStacks(x)
		}
	case []any:
		for i := range t {
			t[i] = withoutStacks(t[i])
		}
	}
	return v
}

func TestE2E(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "e2e", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no end-to-end cases under testdata/e2e (%v)", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { runE2E(t, dir) })
	}
}

func runE2E(t *testing.T, dir string) {
	raw, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"{case}": dir, "{out}": t.TempDir()}
	if req, err := os.ReadFile(filepath.Join(dir, "requires")); err == nil {
		server := strings.TrimSpace(string(req))
		dsn := e2eServer(t, server)
		if setup, err := os.ReadFile(filepath.Join(dir, "setup.sql")); err == nil {
			e2eSetup(t, server, dsn, string(setup))
		}
		vars["{"+server+"}"] = readerDSN(t, dsn)
	}
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, k, v)
		}
		return s
	}
	unexpand := func(s string) string {
		for k, v := range vars {
			if v != "" {
				s = strings.ReplaceAll(s, v, k)
				// a server DSN is printed with its password masked
				s = strings.ReplaceAll(s, strings.ReplaceAll(v, readerPassword, "xxxxx"), k)
			}
		}
		return s
	}
	var args []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			args = append(args, expand(line))
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, now: e2eClock})
	got := map[string][]byte{
		"exit":       []byte(strconv.Itoa(code) + "\n"),
		"stdout.txt": []byte(unexpand(stdout.String())),
		"stderr.txt": []byte(unexpand(stderr.String())),
	}
	if rep, err := os.ReadFile(filepath.Join(vars["{out}"], "report.json")); err == nil {
		var doc any
		if err := json.Unmarshal(rep, &doc); err != nil {
			t.Fatalf("report.json: %v", err)
		}
		b, _ := json.MarshalIndent(withoutStacks(doc), "", "  ")
		got["report.json"] = []byte(unexpand(string(b)) + "\n")
	}
	for name, data := range got {
		golden := filepath.Join(dir, "want", name)
		want, err := os.ReadFile(golden)
		if *update {
			if err == nil || name == "exit" || name == "report.json" {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		switch {
		case name == "exit" && os.IsNotExist(err):
			want = []byte("0\n")
		case os.IsNotExist(err):
			continue // not compared
		case err != nil:
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s differs from %s%s\n(review, then go test -run TestE2E -update if the change is intended)\nstderr:\n%s",
				name, golden, firstDiff(string(data), string(want)), stderr.String())
		}
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			return fmt.Sprintf(" at line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf(" in length (%d vs %d lines)", len(gl), len(wl))
}

// e2eServer returns the administrator DSN of a test server, or skips when it cannot be
// reached.
func e2eServer(t *testing.T, server string) string {
	switch server {
	case "postgres":
		dsn := os.Getenv("QEVAL_TEST_POSTGRES")
		if dsn == "" {
			dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
		}
		if err := ping("pgx", dsn); err != nil {
			t.Skipf("PostgreSQL is not reachable at %s (%v); set QEVAL_TEST_POSTGRES to a test database's DSN", dsn, err)
		}
		return dsn
	case "mysql":
		dsn := os.Getenv("QEVAL_TEST_MYSQL")
		if dsn == "" {
			dsn = "root@tcp(127.0.0.1:3306)/test"
		}
		if err := ping("mysql", dsn); err != nil {
			t.Skipf("MySQL is not reachable at %s (%v); set QEVAL_TEST_MYSQL to a test database's DSN", dsn, err)
		}
		return dsn
	}
	t.Fatalf("requires: unknown server %q (postgres or mysql)", server)
	return ""
}

// e2eSetup runs a case's setup statements (separated by ";" at line ends) as the
// administrator.
func e2eSetup(t *testing.T, server, dsn, script string) {
	driver := map[string]string{"postgres": "pgx", "mysql": "mysql"}[server]
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range strings.Split(script, ";\n") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("setup.sql: %s: %v", stmt, err)
			}
		}
	}
}

// A run gated by --min-pass-rate exits 3 when the gate fails.
func TestRun_Gate(t *testing.T) {
	code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--quiet", "--judge", "none", "--min-pass-rate", "0.99")
	if code != exitThreshold || !strings.Contains(stderr, "gate failed: pass rate") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestRun_BadSuite(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.yaml", "name: x\ncases:\n  - id: a\n    question: q\n")
	code, _, stderr := runCLI(t, "", "run", p)
	if code != exitUsage || !strings.Contains(stderr, p+`:3: case "a": missing expected_query`) {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

// A Spider examples file runs natively, with its predictions file (one query per line).
func TestRun_SpiderNative(t *testing.T) {
	dir := t.TempDir()
	dev := writeFile(t, dir, "dev.json", `[{"db_id": "concert_singer", "question": "How many singers do we have?", "query": "SELECT count(*) FROM singer"},
 {"db_id": "pets_1", "question": "Find the number of pets whose weight is heavier than 10.", "query": "SELECT count(*) FROM pets WHERE weight  >  10"}]`)
	pred := writeFile(t, dir, "pred.txt", "SELECT COUNT(*) FROM singer\nSELECT count(*) FROM pets WHERE weight < 10\n")
	code, out, stderr := runCLI(t, "", "run", dev, "--spider-db", exampleDir+"/database", "--predictions", pred, "--quiet", "--judge", "none", "--json", filepath.Join(dir, "r.json"))
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(out, "mode spider-ts@1") || !strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("summary:\n%s", out)
	}
}

// The StormEvents KQL suite runs on the local KQL engine: every generated query without
// a mistake-* tag returns the gold result, every one with such a tag does not.
func TestE2E_KQL(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "", "run", "../../examples/kql/suite.yaml", "--quiet", "--judge", "none", "--json", out)
	if code != exitOK {
		t.Fatalf("code %d\n%s\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Run struct {
			Dialect string `json:"dialect"`
		} `json:"run"`
		Cases []struct {
			ID        string   `json:"id"`
			Tags      []string `json:"tags"`
			Execution *struct {
				Match   bool   `json:"match"`
				Outcome string `json:"outcome"`
			} `json:"execution"`
			Metrics map[string]struct {
				Skipped *string `json:"skipped"`
			} `json:"metrics"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Run.Dialect != "kql" || len(rep.Cases) < 30 {
		t.Fatalf("dialect %s, %d cases", rep.Run.Dialect, len(rep.Cases))
	}
	for _, c := range rep.Cases {
		mistake := false
		for _, tag := range c.Tags {
			mistake = mistake || strings.HasPrefix(tag, "mistake-")
		}
		if c.Execution == nil {
			t.Errorf("case %s was not executed", c.ID)
			continue
		}
		if c.Execution.Match == mistake {
			t.Errorf("case %s: match=%v (%s) but mistake tag=%v", c.ID, c.Execution.Match, c.Execution.Outcome, mistake)
		}
		if m := c.Metrics["results_match"]; m.Skipped != nil && c.Execution.Outcome == "match" {
			t.Errorf("case %s: results_match skipped: %s", c.ID, *m.Skipped)
		}
	}
}

// An interrupted run (Ctrl-C) still writes its reports for what finished and says how
// to resume; it exits 1.
func TestRun_Interrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"run", "../../examples/chinook/suite.yaml", "-o", dir, "--quiet", "--judge", "none"},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitFailed || !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), "--resume") {
		t.Errorf("code %d, stderr %q", code, errb.String())
	}
	for _, f := range []string{"report.json", "junit.xml", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("no %s after the interrupt: %v", f, err)
		}
	}
}
