package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

// A case whose gold query uses what the local KQL engine does not support is
// unscorable: counted apart, listed, left out of the pass rate. A generated query that
// uses what the engine does not support is scored on its other components and flagged,
// never failed on execution.
func TestRun_KQLUnscorable(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs("../../examples/kql/stormevents")
	if err != nil {
		t.Fatal(err)
	}
	suite := `name: unscorable
dialect: kql
database: ` + data + `
mode: bag
threshold: 0.5
cases:
  - id: gold-unsupported
    question: running count of events
    expected_query: 'StormEvents | take 3 | sample 2'
    generated_query: StormEvents | take 3
  - id: pred-unsupported
    question: how many events
    expected_query: StormEvents | count
    generated_query: 'StormEvents | sample 3 | count'
  - id: plain
    question: how many events
    expected_query: StormEvents | count
    generated_query: StormEvents | summarize Count = count()
`
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", path, "-o", out, "--judge", "none", "--quiet")
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep qeval.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	byID := map[string]qeval.CaseResult{}
	for _, c := range rep.Cases {
		byID[c.ID] = c
	}
	g := byID["gold-unsupported"]
	if g.Status != qeval.StatusUnscorable || g.Verdict == nil || g.Verdict.Outcome != qeval.OutcomeUnscorable || !strings.Contains(g.Reason, "sample") {
		t.Errorf("gold-unsupported: %s %+v %q", g.Status, g.Verdict, g.Reason)
	}
	p := byID["pred-unsupported"]
	if p.Verdict == nil || p.Verdict.Outcome != qeval.OutcomeUnsupported || !strings.Contains(p.Reason, "flagged") || p.TotalScore == nil {
		t.Errorf("pred-unsupported: %s %+v %q %v", p.Status, p.Verdict, p.Reason, p.TotalScore)
	}
	if m, ok := p.Metrics["results_match"]; ok && m.Skipped == nil {
		t.Errorf("pred-unsupported: results_match scored %+v, want skipped", m)
	}
	s := rep.Summary
	if s.Unscorable != 1 || s.Unsupported != 1 || s.Total != 3 {
		t.Errorf("summary: unscorable %d, unsupported %d, total %d", s.Unscorable, s.Unsupported, s.Total)
	}
	if want := float64(s.Passed) / 2; s.PassRate != want {
		t.Errorf("pass rate %v, want %v (the unscorable case left out)", s.PassRate, want)
	}
	if iv := s.ExecutionAccuracy; iv == nil || iv.N != 1 {
		t.Errorf("execution accuracy %+v, want n = 1 (only the plain case is judged on execution)", iv)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "unscorable") {
		t.Errorf("warnings %q do not list the unscorable case", s.Warnings)
	}
	text, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if len(text) > 0 && !strings.Contains(string(text), "1 unscorable") {
		t.Errorf("report.md does not count the unscorable case")
	}
}
