package server_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/server"
)

// A Malloy suite run on the server is compiled and scored as qeval run scores it: the
// answer's compiled SQL in the case, a compile error with its line; without a compiler
// its cases are unscorable, saying so.
func TestRuns_MalloySuite(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (Debian's nodejs and npm; .ci/run installs them): Malloy suites compile in Node.js")
	}
	model, err := filepath.Abs("../examples/malloy/concert_singer.malloy")
	if err != nil {
		t.Fatal(err)
	}
	db, err := filepath.Abs("../examples/spider/database/concert_singer/concert_singer.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "malloy.yaml")
	suite := `name: malloy-on-the-server
dialect: malloy
database: ` + db + `
malloy_model: {files: [` + model + `], connection: mirror:duckdb}
cases:
  - id: right
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: singer -> { aggregate: singer_count }"
  - id: broken
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: singer -> { aggregate: "
`
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	mc := registry.MalloyCompiler(nil)
	defer mc.Close()
	for _, tc := range []struct {
		name     string
		compiler bool
	}{{"with a compiler", true}, {"without", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := MustServer(t, func(c *server.Config) {
				c.Suites = map[string]string{"malloy": path}
				if tc.compiler {
					c.Malloy = mc
				}
			})
			v := waitRun(t, ts, startRun(t, ts, []byte(`{"suite": "malloy"}`), "application/json"))
			byID := map[string]qeval.CaseResult{}
			for _, raw := range v.Cases {
				var c qeval.CaseResult
				if err := json.Unmarshal(raw, &c); err != nil {
					t.Fatal(err)
				}
				byID[c.ID] = c
			}
			right, broken := byID["right"], byID["broken"]
			if !tc.compiler {
				if right.Verdict == nil || right.Verdict.Outcome != qeval.OutcomeUnscorable {
					t.Errorf("right without a compiler: %+v, want unscorable", right.Verdict)
				}
				return
			}
			if right.Status != qeval.StatusPass || right.Compiled == nil || right.Compiled.GeneratedSQL == "" {
				t.Errorf("right: %s (%s), compiled %+v; want PASS with its SQL", right.Status, right.Reason, right.Compiled)
			}
			if broken.Verdict == nil || broken.Verdict.Outcome != qeval.OutcomeCompileError || broken.Verdict.ErrorLine != 1 {
				t.Errorf("broken: %+v, want a compile_error on line 1", broken.Verdict)
			}
		})
	}
}
