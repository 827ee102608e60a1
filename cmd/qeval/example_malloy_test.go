package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qeval/qeval"
)

// TestExample_Malloy runs examples/malloy/run.sh as a user would (npm installs the
// Malloy compiler, qeval mirrors two Spider databases into DuckDB, the compiled Malloy
// is scored against the Spider gold on SQLite) and checks the verdicts: the three
// answers written wrong on purpose fail, every other one passes.
func TestExample_Malloy(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian's nodejs and npm; .ci/run installs them): the NL→Malloy example needs it", tool)
		}
	}
	spider, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "spider"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(spider, "dev.json")); err != nil {
		t.Skipf("Spider dev data absent (%v): ../shared/data/spider is needed for the NL→Malloy example", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command("bash", filepath.Join("..", "..", "examples", "malloy", "run.sh"), "--quiet", "--json", out)
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "QEVAL="+self+" --", "SPIDER="+spider)
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("examples/malloy/run.sh: %v\n%s", err, log)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep qeval.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 25 {
		t.Fatalf("%d cases, want 25\n%s", len(rep.Cases), log)
	}
	for _, c := range rep.Cases {
		wrong := slices.Contains(c.Tags, "wrong-on-purpose")
		if slices.Contains(c.Tags, "compile-error") {
			t.Errorf("%s: the Malloy did not compile\n%s", c.ID, log)
		}
		if wrong == (c.Status == qeval.StatusPass) {
			t.Errorf("%s (%v): %s %q, want %s", c.ID, c.Tags, c.Status, c.Reason, map[bool]string{true: "FAIL", false: "PASS"}[wrong])
		}
		if !wrong && (c.Verdict == nil || !c.Verdict.Match) {
			t.Errorf("%s: execution %+v, want a match on the DuckDB mirror", c.ID, c.Verdict)
		}
	}
}
