package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the whole CLI in memory and returns the exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := dir + "/" + name
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun_UnknownCommand(t *testing.T) {
	code, _, stderr := runCLI(t, "", "frobnicate")
	if code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) || !strings.Contains(stderr, "hint:") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestModes_Lists(t *testing.T) {
	code, out, _ := runCLI(t, "", "modes")
	for _, m := range []string{"spider-ts@1", "bag@1", "bird-ex@1", "ordered@1", "subset@1", "spider2@1", "spider2-strict@1", "spider-em@1", "bird-soft-f1@1", "bird-r-ves@1", "bird-r-ves-steps@1"} {
		if !strings.Contains(out, m) {
			t.Errorf("modes output lacks %s:\n%s", m, out)
		}
	}
	if code != exitOK {
		t.Errorf("code %d", code)
	}
}

func TestParse_KQL(t *testing.T) {
	in := "StormEvents | where StartTime > ago(60m) | summarize count() by State\nStormEvents | where\n"
	code, out, stderr := runCLI(t, in, "parse", "--dialect", "kql")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for _, want := range []string{`"ok":true`, `"tables":["StormEvents"]`, `"value":"ago(1h)"`, `"func":"count"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line 1 lacks %s: %s", want, lines[0])
		}
	}
	if !strings.Contains(lines[1], `"ok":false`) || !strings.Contains(lines[1], `"line":1,"col":20`) {
		t.Errorf("line 2: %s", lines[1])
	}
}

// Flags may follow positional arguments in every command (`qeval calibrate FILE
// --json` once exited 2 while other commands took it).
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "c.jsonl", `{"confidence": "high", "correct": true}`+"\n"+`{"confidence": "low", "correct": false}`+"\n")
	code, out, stderr := runCLI(t, "", "calibrate", f, "--json")
	if code != exitOK || !strings.HasPrefix(strings.TrimSpace(out), "{") {
		t.Errorf("calibrate FILE --json: code %d\n%s\n%s", code, out, stderr)
	}
}

// Flags that are fractions are checked like the suite file's keys (--threshold 2 and
// --min-pass-rate 50 were once accepted).
func TestRun_FractionFlags(t *testing.T) {
	for _, args := range [][]string{{"--threshold", "2"}, {"--threshold", "-0.5"}, {"--min-pass-rate", "50"}, {"--min-score", "1.5"}} {
		code, _, stderr := runCLI(t, "", append([]string{"run", "../../examples/chinook/suite.yaml", "--quiet"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "is outside [0, 1]") {
			t.Errorf("%v: code %d, %s", args, code, stderr)
		}
	}
}

// The example README's --predictions run and its diff say what the README says (issue
// 21: cases without a prediction became errors and the diff showed 33 broken cases).
func TestREADME_PredictionsExample(t *testing.T) {
	dir := t.TempDir()
	base, head := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
	if code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--quiet", "--judge", "none", "--json", base); code != exitOK {
		t.Fatalf("base run: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--predictions", "../../examples/chinook/predictions.jsonl",
		"--quiet", "--judge", "none", "--json", head); code != exitOK {
		t.Fatalf("predictions run: %d %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "diff", base, head)
	if code != exitOK {
		t.Fatalf("diff: %d %s", code, stderr)
	}
	if !strings.Contains(out, "Fixed (3):") || !strings.Contains(out, "Broken (1):") || strings.Contains(out, "ERROR") {
		t.Errorf("diff does not show the README's three fixed and one broken case:\n%s", out)
	}
	for _, id := range []string{"c5", "c8", "c38", "c3"} {
		if !strings.Contains(out, "  "+id+" ") {
			t.Errorf("diff lacks %s:\n%s", id, out)
		}
	}
}
