package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

// writeReport writes a report.json of cases given as "id:STATUS" and returns its path.
func writeReport(t *testing.T, dir, name string, cases ...string) string {
	t.Helper()
	r := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion, Run: qeval.RunInfo{Suite: "demo", Mode: "spider-ts@1", Threshold: 0.7}}
	for _, c := range cases {
		id, status, _ := strings.Cut(c, ":")
		r.Cases = append(r.Cases, qeval.CaseResult{ID: id, Status: status, Metrics: map[string]qeval.MetricResult{}})
	}
	var buf bytes.Buffer
	if err := (report.JSON{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, buf.String())
}

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	base := writeReport(t, dir, "base.json", "a:PASS", "b:FAIL", "c:PASS", "d:ERROR")
	head := writeReport(t, dir, "head.json", "a:PASS", "b:PASS", "c:FAIL", "d:ERROR")
	same := writeReport(t, dir, "same.json", "a:PASS", "b:PASS", "c:PASS", "d:ERROR")

	t.Run("Text", func(t *testing.T) {
		code, out, stderr := runCLI(t, "", "diff", base, head)
		if code != exitOK || stderr != "" {
			t.Fatalf("code %d, stderr %q", code, stderr)
		}
		for _, want := range []string{"Fixed (1):", "Broken (1):", "pass rate", "McNemar's exact test on the 2 cases", "REGRESSION: 1 case broke"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("Markdown", func(t *testing.T) {
		code, out, _ := runCLI(t, "", "diff", "--format", "md", base, head)
		if code != exitOK || !strings.HasPrefix(out, "## qeval diff: ") || !strings.Contains(out, "<summary>Broken (1)</summary>") {
			t.Errorf("code %d, output:\n%s", code, out)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, out, _ := runCLI(t, "", "diff", "--format=json", base, same)
		if code != exitOK || !strings.Contains(out, `"regression": false`) || !strings.Contains(out, `"paired": 4`) {
			t.Errorf("code %d, output:\n%s", code, out)
		}
	})
	t.Run("FailOnRegression", func(t *testing.T) {
		// The flag may follow the files.
		code, _, stderr := runCLI(t, "", "diff", base, head, "--fail-on-regression")
		if code != exitThreshold || stderr != "regression: 1 case broke\n" {
			t.Errorf("code %d, stderr %q; want %d", code, stderr, exitThreshold)
		}
		if code, _, stderr := runCLI(t, "", "diff", "--fail-on-regression", base, same); code != exitOK {
			t.Errorf("a run that only fixed a case: code %d, stderr %q", code, stderr)
		}
	})
}

func TestDiff_Errors(t *testing.T) {
	dir := t.TempDir()
	good := writeReport(t, dir, "good.json", "a:PASS")
	old := writeFile(t, dir, "old.json", `{"schema_version": "0", "cases": []}`)
	broken := writeFile(t, dir, "broken.json", "{\"schema_version\": \"1\",\n\"cases\": [}")
	other := writeReport(t, dir, "other.json", "z:PASS")
	missing := filepath.Join(dir, "missing.json")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ErrOneFile", []string{good}, exitUsage, "error: diff needs two reports, BASE.json and HEAD.json (got 1)\nhint: "},
		{"ErrFormat", []string{"--format", "csv", good, good}, exitUsage, `error: unknown --format "csv" (known: json, md, text)`},
		{"ErrMissing", []string{good, missing}, exitFailed, "error: read " + missing + ": no such file"},
		{"ErrSchema", []string{old, good}, exitUsage, "error: " + old + `: schema_version "0" is not supported`},
		{"ErrSyntax", []string{good, broken}, exitUsage, "error: " + broken + ":2:11: invalid JSON"},
		{"ErrNothingInCommon", []string{good, other}, exitUsage, "error: " + good + " and " + other + " have no case id in common"},
		{"ErrResamples", []string{"--resamples", "0", good, good}, exitUsage, "error: --resamples must be at least 1, not 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", append([]string{"diff"}, tt.args...)...)
			if code != tt.code || !strings.HasPrefix(stderr, tt.stderr) {
				t.Errorf("code %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("diff created the missing file")
	}
}

func TestParseInterspersed(t *testing.T) {
	e := &env{stderr: &bytes.Buffer{}}
	fs := newFlags("x", "", e)
	v := fs.Bool("v", false, "")
	pos, code := parseInterspersed(fs, []string{"a", "-v", "b", "--", "-c", "d"})
	if code != -1 || !*v || strings.Join(pos, ",") != "a,b,-c,d" {
		t.Errorf("parseInterspersed=%v, %d (v=%v), want [a b -c d]", pos, code, *v)
	}
}
