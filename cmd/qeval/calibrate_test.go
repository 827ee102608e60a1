package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

// seedJSONL writes the calibration seed as JSONL: per level, count and number right.
func seedJSONL(h, hr, m, mr, l, lr int) string {
	var b strings.Builder
	for _, g := range []struct {
		level    string
		n, right int
	}{{"high", h, hr}, {"medium", m, mr}, {"low", l, lr}} {
		for i := range g.n {
			fmt.Fprintf(&b, "{\"confidence\": %q, \"correct\": %v}\n", g.level, i < g.right)
		}
	}
	return b.String()
}

func TestCalibrate_JSON(t *testing.T) {
	code, out, stderr := runCmd(t, seedJSONL(20, 19, 15, 12, 10, 4), "calibrate", "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"score", "interpretation", "warnings", "groups", "ece", "mce", "brier", "auroc", "aurc", "risk_coverage", "reliability_diagram"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if s, _ := rep["score"].(float64); math.Round(s*100)/100 != 0.92 {
		t.Errorf("score=%v, want 0.92", rep["score"])
	}
	if rep["interpretation"] != "Confidence levels accurately predict correctness" {
		t.Errorf("interpretation=%v", rep["interpretation"])
	}
}

func TestCalibrate_Text(t *testing.T) {
	code, out, _ := runCmd(t, seedJSONL(20, 10, 15, 8, 10, 5), "calibrate")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"calibration score  0.15  Confidence does not predict correctness",
		"high         20       10     50.0%    90.0%   +40.0%", "The model is overconfident: its high-confidence answers are not reliable.", "AUROC"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCalibrate_Numeric(t *testing.T) {
	in := "{\"confidence\": 0.95, \"correct\": 1}\n\n{\"confidence\": 0.2, \"correct\": 0}\n"
	code, out, _ := runCmd(t, in, "calibrate", "--json")
	var rep struct {
		Score    *float64 `json:"score"`
		N        int      `json:"n"`
		Warnings []string `json:"warnings"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d, output %s", code, out)
	}
	if rep.Score != nil || rep.N != 2 || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "too few cases") {
		t.Errorf("report=%+v, want null score and the insufficient-data warning", rep)
	}
}

func TestCalibrate_BadInput(t *testing.T) {
	in := "{\"confidence\": \"high\", \"correct\": true}\n{\"confidence\": \"sure\", \"correct\": true}\nnot json\n{\"confidence\": 0.5}\n"
	code, _, stderr := runCmd(t, in, "calibrate", "-")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"stdin: 3 bad lines", "stdin:2: field \"confidence\"", "stdin:3: not a JSON object", "stdin:4: missing field \"correct\"", "hint:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = runCmd(t, "", "calibrate", "no/such/file.jsonl")
	if code != exitFailed || !strings.Contains(stderr, "open no/such/file.jsonl: no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

// qeval calibrate reads a run's own results.jsonl (it said "missing field correct" on
// every line): each case's stated confidence against its execution verdict, the
// numbers the run's report gives.
func TestCalibrate_RunResults(t *testing.T) {
	out := t.TempDir()
	suite := filepath.Join("..", "..", "examples", "chinook", "suite.yaml")
	if code, _, stderr := runCLI(t, "", "run", suite, "--judge", "none", "--quiet", "-o", out); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", "calibrate", filepath.Join(out, "results.jsonl"), "--json")
	if code != exitOK {
		t.Fatalf("calibrate results.jsonl: exit %d\n%s", code, stderr)
	}
	var got struct {
		N   int      `json:"n"`
		ECE *float64 `json:"ece"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep qeval.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	cal := rep.Summary.Calibration
	if cal == nil || cal.ECE == nil || got.ECE == nil {
		t.Fatalf("no ECE: report %+v, calibrate %s", cal, stdout)
	}
	if *got.ECE != *cal.ECE {
		t.Errorf("calibrate ECE %v, the run's report %v", *got.ECE, *cal.ECE)
	}
	n := 0
	for _, g := range cal.Groups {
		n += g.Count
	}
	if got.N != n || n == 0 {
		t.Errorf("calibrate counted %d cases, the report %d", got.N, n)
	}
	if want := fmt.Sprintf("of the run's %d cases left out", len(rep.Cases)); n < len(rep.Cases) && !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
}

func TestCalibrate_RunResultsWithoutConfidence(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "results.jsonl", `{"id":"a","status":"PASS","total_score":1,"expected_query":"SELECT 1","generated_query":"SELECT 1","execution":{"match":true,"outcome":"match"},"metrics":{}}
{"id":"b","status":"FAIL","total_score":0,"expected_query":"SELECT 1","generated_query":"SELECT 2","execution":{"match":false,"outcome":"mismatch"},"metrics":{}}
`)
	code, _, stderr := runCLI(t, "", "calibrate", p)
	if code != exitUsage || !strings.Contains(stderr, "none of its 2 cases has both a stated confidence and an execution verdict (2 without a confidence") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
