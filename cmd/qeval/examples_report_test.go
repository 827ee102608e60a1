package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No report.json of the bundled examples holds a stack trace or a path of this machine
// (the repository's or the temporary folder's): reports are shared, and a failed
// query is the model's failure, not a harness fault (issue 46). The Chinook suite is
// TestRun_BadGeneratedSQLIsData; the Malloy one needs Node.js (TestExample_Malloy).
func TestExamples_ReportsHoldNoStackOrMachinePath(t *testing.T) {
	ex := filepath.Join(repoRoot, "examples")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"kql":    {"run", filepath.Join(ex, "kql", "suite.yaml"), "--judge", "none", "--quiet"},
		"spider": {"spider", "--gold", filepath.Join(ex, "spider", "gold.sql"), "--pred", filepath.Join(ex, "spider", "pred.txt"), "--db", filepath.Join(ex, "spider", "database"), "--etype", "all", "--table", filepath.Join(ex, "spider", "tables.json")},
		"bird": {"bird", "--pred", filepath.Join(ex, "bird", "predict_dev.json"), "--gold", filepath.Join(ex, "bird", "dev.sql"),
			"--diff", filepath.Join(ex, "bird", "dev.json"), "--db-root", filepath.Join(ex, "spider", "database")},
		"spider2": {"spider2", "--mode", "exec_result", "--result-dir", filepath.Join(ex, "spider2", "pred_csv"), "--gold-dir", filepath.Join(ex, "spider2", "gold")},
		"spider2-sql": {"spider2", "--mode", "sql", "--result-dir", filepath.Join(ex, "spider2", "pred_sql"), "--gold-dir", filepath.Join(ex, "spider2", "gold"),
			"--db", filepath.Join(ex, "spider", "database"), "--metadata", filepath.Join(ex, "spider2", "spider2-lite.jsonl")},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runCLI(t, "", append(args, "-o", out)...)
			if code != exitOK {
				t.Fatalf("code %d: %s", code, stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{`"stack"`, "goroutine ", root, os.TempDir() + string(filepath.Separator)} {
				if strings.Contains(string(b), bad) {
					t.Errorf("report.json contains %q", bad)
				}
			}
		})
	}
}
