package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/report"
)

// The composite judges what a query returns: count(TrackId) for count(*) passes with its
// columns lined up by value; the right column name over a wrong count fails; a generated
// query equal to the expected one has query_correctness 1 without a judge.
func TestRun_CompositeJudgesValues(t *testing.T) {
	dir := t.TempDir()
	chinook, _ := filepath.Abs("../../examples/chinook/chinook.sqlite")
	suite := writeFile(t, dir, "suite.jsonl",
		`{"id":"count","database":"`+chinook+`","question":"How many tracks are there?","expected_query":"SELECT count(*) FROM Track","generated_query":"SELECT count(TrackId) FROM Track"}`+"\n"+
			`{"id":"wrong","database":"`+chinook+`","question":"How many tracks are there?","expected_query":"SELECT count(*) FROM Track","generated_query":"SELECT count(*) FROM Track WHERE TrackId > 10"}`+"\n"+
			`{"id":"same","database":"`+chinook+`","question":"How many tracks are there?","expected_query":"SELECT count(*) FROM Track","generated_query":"select count(*)  from Track;"}`+"\n")
	out := filepath.Join(dir, "r.json")
	if code, _, stderr := runCLI(t, "", "run", suite, "--judge", "none", "--json", out, "--quiet"); code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	rep, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, c := range rep.Cases {
		byID[c.ID] = i
	}
	count := rep.Cases[byID["count"]]
	if count.Status != "PASS" || count.TotalScore == nil || *count.TotalScore < 0.9 {
		t.Errorf("count(TrackId): %s %v, want PASS ≥ 0.9", count.Status, count.TotalScore)
	}
	for _, m := range []string{"schema_match", "results_match"} {
		if got := count.Metrics[m].Details["column_alignment"]; got != "value" {
			t.Errorf("count(TrackId) %s column_alignment %v, want value", m, got)
		}
	}
	if wrong := rep.Cases[byID["wrong"]]; wrong.Status != "FAIL" {
		t.Errorf("a wrong count under the right name: %s, want FAIL", wrong.Status)
	}
	qc := rep.Cases[byID["same"]].Metrics["query_correctness"]
	if qc.Score == nil || *qc.Score != 1 || qc.Details["llm_called"] != false {
		t.Errorf("identical queries without a judge: query_correctness %+v, want 1 without a call", qc)
	}
}

// --fail-on critical (or the suite's fail_on) exits 3 when the system's safety
// validator let an unsafe query through; an unknown condition is refused naming it.
func TestRun_FailOnCritical(t *testing.T) {
	code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--judge", "none", "--quiet", "--fail-on", "critical")
	if code != exitThreshold || !strings.Contains(stderr, "let 2 unsafe queries through") {
		t.Errorf("--fail-on critical: code %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--judge", "none", "--quiet"); code != exitOK {
		t.Errorf("without --fail-on: code %d, %s", code, stderr)
	}
	dir := t.TempDir()
	chinook, _ := filepath.Abs("../../examples/chinook/chinook.sqlite")
	s := writeFile(t, dir, "suite.yaml", "name: x\ndatabase: "+chinook+"\nfail_on: [critcal]\ncases:\n  - id: a\n    expected_query: SELECT 1\n    generated_query: SELECT 1\n")
	code, _, stderr = runCLI(t, "", "run", s, "--judge", "none", "--quiet")
	if code != exitUsage || !strings.Contains(stderr, "suite.yaml") || !strings.Contains(stderr, `fail_on: unknown condition "critcal"`) {
		t.Errorf("unknown fail_on: code %d, %s", code, stderr)
	}
}

// The bundled example's reports hold no stack trace and no path of the machine: a
// generated query that does not parse is the model's failure, said once, and the
// summary does not count it as a metric that failed.
func TestRun_BadGeneratedSQLIsData(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--judge", "none", "--quiet", "-o", dir)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "metric computations failed") {
		t.Errorf("stderr counts the model's parse errors as failed metrics: %s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	root := filepath.Dir(filepath.Dir(wd))
	for _, bad := range []string{`"stack"`, root, os.TempDir() + "/", "goroutine "} {
		if strings.Contains(string(b), bad) {
			t.Errorf("report.json contains %q", bad)
		}
	}
	if !strings.Contains(string(b), `"reason": "generated query does not parse: line 1, col 22: `) {
		t.Error("the parse error of case c35 is not its reason")
	}
}
