package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// A run keeps only an index of its cases in memory and its reports read each case
// back from the results file (memory proportional to concurrency, not to the suite): report.json still holds every case whole, in suite order, equal to its
// line of results.jsonl, and its summary is the one Summarize gives over them.
func TestRun_ReportsReadCasesFromResultsFile(t *testing.T) {
	dir := t.TempDir()
	db, err := filepath.Abs("../../examples/chinook/chinook.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 40 {
		gen := fmt.Sprintf("SELECT count(*) FROM Track WHERE TrackId > %d", i)
		if i%3 == 0 {
			gen = fmt.Sprintf("SELECT count(*) FROM Track WHERE TrackId >= %d", i) // a mismatch, with previews and an explanation
		}
		if i%7 == 0 {
			gen = "SELECT nope FROM Track" // an error
		}
		fmt.Fprintf(&b, `{"id": "c%02d", "question": "q%d", "expected_query": "SELECT count(*) FROM Track WHERE TrackId > %d", "generated_query": %q, "database": "chinook", "tags": ["t%d"]}`+"\n", i, i, i, gen, i%2)
	}
	suitePath := writeFile(t, dir, "suite.jsonl", b.String())
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "", "run", suitePath, "--db", "chinook="+db, "--judge", "none", "--quiet", "--no-cache", "--concurrency", "4", "-o", out)
	if code != exitFailed && code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep qeval.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	loaded, err := runner.LoadResults(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 40 || len(loaded.Done) != 40 {
		t.Fatalf("report has %d cases, results file %d; want 40", len(rep.Cases), len(loaded.Done))
	}
	mismatches := 0
	for i, c := range rep.Cases {
		if want := fmt.Sprintf("c%02d", i); c.ID != want {
			t.Fatalf("case %d is %s, want %s (suite order)", i, c.ID, want)
		}
		got, _ := json.Marshal(c)
		line, _ := json.Marshal(loaded.Done[c.ID])
		if string(got) != string(line) {
			t.Errorf("case %s in report.json differs from its results line:\n%s\n%s", c.ID, got, line)
		}
		if len(c.Metrics) == 0 || c.ExpectedQuery == "" {
			t.Errorf("case %s is not whole in report.json: %s", c.ID, got)
		}
		if c.Verdict != nil && c.Verdict.Outcome == qeval.OutcomeMismatch {
			mismatches++
			if c.Verdict.Gold == nil || c.Verdict.Explanation == nil {
				t.Errorf("mismatch %s lost its previews or explanation", c.ID)
			}
		}
	}
	if mismatches == 0 {
		t.Fatal("no mismatch in the run: the test checks nothing about previews")
	}
	// the stored lines are indented into report.json as is: the bytes are those of the
	// report encoded from memory
	if again, err := report.Marshal(&rep); err != nil || string(again) != string(raw) {
		t.Errorf("report.json is not the encoding of what it holds (%v)", err)
	}
	want, _ := json.Marshal(runner.Summarize(rep.Cases, rep.Run.Threshold))
	if got, _ := json.Marshal(rep.Summary); string(got) != string(want) {
		t.Errorf("summary of the run\n%s\ndiffers from Summarize over its cases\n%s", got, want)
	}
	for _, name := range []string{"report.html", "summary.md", "junit.xml", "report.xlsx"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(html), "results_match") || !strings.Contains(string(html), "no such column: nope") {
		t.Error("report.html lacks the metric columns or a failing case's error")
	}
}

// Without a results file the run still keeps its cases on disk (a scratch file) and
// removes it when the reports are written.
func TestRun_ScratchResultsRemoved(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	db, _ := filepath.Abs("../../examples/chinook/chinook.sqlite")
	suitePath := writeFile(t, dir, "suite.jsonl", `{"id": "a", "question": "q", "expected_query": "SELECT 1", "generated_query": "SELECT 2", "database": "chinook"}`+"\n")
	jsonPath := filepath.Join(dir, "r.json")
	code, _, stderr := runCLI(t, "", "run", suitePath, "--db", "chinook="+db, "--judge", "none", "--quiet", "--no-cache", "--json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep qeval.Report
	raw, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Cases) != 1 || rep.Cases[0].Verdict == nil || rep.Cases[0].Verdict.Pred == nil {
		t.Fatalf("report %s (%v)", raw, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "qeval-results-*"))
	if len(left) > 0 {
		t.Errorf("scratch results left behind: %v", left)
	}
}
