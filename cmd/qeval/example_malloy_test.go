package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

// needNode skips a test that runs the Malloy compiler where Node.js is not installed.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (Debian's nodejs and npm; .ci/run installs them): Malloy suites compile in Node.js")
	}
}

// readReport reads a report.json.
func readReport(t *testing.T, path string) *qeval.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep qeval.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestExample_Malloy runs examples/malloy/suite.yaml as the README says (the Malloy
// answers compiled by the official compiler, run on DuckDB copies of two Spider
// databases, compared with the Spider gold on SQLite) and checks the verdicts on the
// default composite: the three answers written wrong on purpose fail, the 22 others
// pass, and every case carries the Malloy metrics.
func TestExample_Malloy(t *testing.T) {
	needNode(t)
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := runCLI(t, "", "run", filepath.Join("..", "..", "examples", "malloy", "suite.yaml"), "--quiet", "--judge", "none", "--json", out)
	if code != exitOK {
		t.Fatalf("qeval run = %d\n%s", code, stderr)
	}
	rep := readReport(t, out)
	if len(rep.Cases) != 25 {
		t.Fatalf("%d cases, want 25", len(rep.Cases))
	}
	var compile []float64
	passed := 0
	for _, c := range rep.Cases {
		wrong := slices.Contains(c.Tags, "wrong-on-purpose")
		if wrong == (c.Status == qeval.StatusPass) {
			t.Errorf("%s (%v): %s %q, want %s", c.ID, c.Tags, c.Status, c.Reason, map[bool]string{true: "FAIL", false: "PASS"}[wrong])
		}
		if c.Status == qeval.StatusPass {
			passed++
		}
		if !wrong && (c.Verdict == nil || !c.Verdict.Match) {
			t.Errorf("%s: execution %+v, want a match on the DuckDB copy", c.ID, c.Verdict)
		}
		for _, m := range []string{"malloy_structure", "model_reuse", "semantic_similarity", "table_accuracy"} {
			if r, ok := c.Metrics[m]; !ok || r.Score == nil {
				t.Errorf("%s: %s = %+v, want a score", c.ID, m, r)
			}
		}
		if c.Compiled == nil || !strings.Contains(c.Compiled.GeneratedSQL, "SELECT") || c.Compiled.Dialect != "duckdb" {
			t.Errorf("%s: compiled %+v, want the DuckDB SQL", c.ID, c.Compiled)
		} else {
			compile = append(compile, c.Compiled.CompileMS)
		}
	}
	if passed != 22 {
		t.Errorf("%d passed, want 22", passed)
	}
	sort.Float64s(compile)
	if len(compile) > 0 {
		t.Logf("compiling a case: median %.1f ms, slowest %.1f ms (the first waits for the helper to start)", compile[len(compile)/2], compile[len(compile)-1])
	}
}
