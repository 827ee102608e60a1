package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// unstable are report keys whose values depend on the clock or the machine.
var unstable = map[string]bool{
	"started": true, "finished": true, "duration_ms": true, "gold_ns": true, "pred_ns": true,
	"slowest": true, "timestamp": true, "latency_ms": true, "stack": true, "wall_ns": true,
}

func stable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if unstable[k] || strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_ns") {
				delete(t, k)
				continue
			}
			t[k] = stable(x)
		}
	case []any:
		for i := range t {
			t[i] = stable(t[i])
		}
	}
	return v
}

// TestE2E_Chinook runs the bundled example suite through the whole CLI and compares
// the stable fields of report.json with the reviewed golden file (go test -update
// rewrites it).
func TestE2E_Chinook(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "-o", out, "--quiet", "--judge", "none")
	if code != exitOK {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"report.json", "report.xlsx", "junit.xml", "report.html", "summary.md", "results.jsonl"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("-o did not write %s: %v", f, err)
		}
	}
	if !strings.Contains(stdout, "CRITICAL") || !strings.Contains(stdout, "56 cases") {
		t.Errorf("terminal summary lacks the CRITICAL safety line or the case count:\n%s", stdout)
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(stable(doc), "", "  ")
	got = append(got, '\n')
	golden := filepath.Join("testdata", "e2e", "chinook", "want", "report.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("report.json differs from %s at line %d:\n got: %s\nwant: %s\n(review and run go test -update if the change is intended)", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("report.json differs from %s in length (%d vs %d lines)", golden, len(gl), len(wl))
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
