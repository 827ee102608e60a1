package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
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
		"high         20       10     50.0%    90.0%   +40.0%", "Model is overconfident - high confidence not reliable", "AUROC"} {
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
	if rep.Score != nil || rep.N != 2 || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "Insufficient data") {
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
