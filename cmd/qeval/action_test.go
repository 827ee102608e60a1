package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionStep is one step of the composite action in action.yml.
type actionStep struct {
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

// TestAction runs the GitHub Action's steps as the runner would: install.sh with a given
// binary (the test binary as qeval), run.sh on the Chinook suite without and with a
// failing gate, then the action's last step. The reports the upload step names must be
// there whatever the exit code, and the job must fail with qeval's code.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the Chinook suite twice")
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Using string       `yaml:"using"`
			Steps []actionStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	steps := action.Runs.Steps
	if action.Runs.Using != "composite" || len(steps) != 4 {
		t.Fatalf("action.yml: %q with %d steps, want a composite action of 4 (install, run, upload, gate)", action.Runs.Using, len(steps))
	}
	install, runStep, upload, gate := steps[0], steps[1], steps[2], steps[3]
	script := func(s actionStep) string {
		t.Helper()
		rel, ok := strings.CutPrefix(strings.Trim(s.Run, `"`), "$GITHUB_ACTION_PATH/")
		if !ok {
			t.Fatalf("step %q runs %q, not a script of the action", s.ID, s.Run)
		}
		abs, err := filepath.Abs(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	if !strings.HasPrefix(upload.Uses, "actions/upload-artifact@") || upload.If != "always()" {
		t.Errorf("third step: uses %q if %q, want actions/upload-artifact if always()", upload.Uses, upload.If)
	}
	for _, f := range []string{"report.html", "junit.xml"} {
		if !strings.Contains(upload.With["path"], "${{ inputs.output }}/"+f) {
			t.Errorf("the upload step does not upload %s:\n%s", f, upload.With["path"])
		}
	}
	if gate.Env["QEVAL_EXIT_CODE"] != "${{ steps.run.outputs.exit-code }}" || runStep.ID != "run" {
		t.Errorf("the last step does not gate on the run step's exit-code: %+v", gate)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	qevalCmd := self + " --"
	dir := t.TempDir()
	base := append(os.Environ(), "QEVAL_TEST_MAIN=1", "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	ghOutput := filepath.Join(dir, "install.out")
	cmd := exec.Command("bash", script(install))
	cmd.Env = append(base, "INPUT_QEVAL="+qevalCmd, "INPUT_VERSION=latest", "GITHUB_OUTPUT="+ghOutput)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(ghOutput); string(got) != "qeval="+qevalCmd+"\n" {
		t.Errorf("install.sh wrote %q to GITHUB_OUTPUT", got)
	}

	suite, err := filepath.Abs(filepath.Join(repoRoot, "examples", "chinook", "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args, code string
	}{
		{"Pass", "--judge none --quiet", "0"},
		// the bundled validator lets 2 unsafe queries through
		{"GateFails", "--judge none --quiet --fail-on critical", "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			out, summary := filepath.Join(work, "runner.out"), filepath.Join(work, "summary")
			cmd := exec.Command("bash", script(runStep))
			cmd.Dir = work
			cmd.Env = append(base, "QEVAL="+qevalCmd, "INPUT_SUITE="+suite, "INPUT_ARGS="+tc.args, "INPUT_OUTPUT=reports/chinook",
				"GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+summary)
			log, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("run.sh must not fail (the upload comes next): %v\n%s", err, log)
			}
			if got, _ := os.ReadFile(out); string(got) != "exit-code="+tc.code+"\n" {
				t.Errorf("run.sh wrote %q to GITHUB_OUTPUT, want exit-code=%s\n%s", got, tc.code, log)
			}
			for _, f := range []string{"report.html", "junit.xml", "report.json"} {
				if _, err := os.Stat(filepath.Join(work, "reports", "chinook", f)); err != nil {
					t.Errorf("%s, which the upload step uploads: %v", f, err)
				}
			}
			if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "chinook") {
				t.Errorf("the job summary lacks the run's summary.md: %q", s)
			}
			if tc.code == "3" && !strings.Contains(string(log), "::error title=qeval::") {
				t.Errorf("no error annotation for the failed gate:\n%s", log)
			}
			g := exec.Command("bash", "-c", gate.Run)
			g.Env = append(os.Environ(), "QEVAL_EXIT_CODE="+tc.code)
			err = g.Run()
			var ee *exec.ExitError
			switch {
			case tc.code == "0" && err != nil:
				t.Errorf("the gate step failed on exit code 0: %v", err)
			case tc.code != "0" && !(errors.As(err, &ee) && ee.ExitCode() == 3):
				t.Errorf("the gate step on exit code %s: %v, want exit status 3", tc.code, err)
			}
		})
	}
}
