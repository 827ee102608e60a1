package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func spider2Official(t *testing.T, dir string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "official_scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func spider2Items(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var it struct {
			ID    string  `json:"instance_id"`
			Score int     `json:"score"`
			Error *string `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got[it.ID] = it.Score
	}
	return got
}

// TestSpider2_SQLParity: in mode sql each query runs on SQLite, its result is saved as
// CSV and read back, and the verdicts equal those evaluate.py --mode sql printed for
// the same files (spider2/testdata/sql/official_scores.json).
func TestSpider2_SQLParity(t *testing.T) {
	dir := filepath.Join("..", "..", "spider2", "testdata", "sql")
	code, out, stderr := runCLI(t, "", "spider2", "--mode", "sql", "--result-dir", filepath.Join(dir, "pred"),
		"--gold-dir", filepath.Join(dir, "gold"), "--db", filepath.Join("..", "..", "examples", "spider", "database"),
		"--metadata", filepath.Join(dir, "spider2-lite.jsonl"), "--items", "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	got, want := spider2Items(t, out), spider2Official(t, dir)
	if len(got) != len(want) {
		t.Errorf("%d items, evaluate.py scored %d", len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: score %d, evaluate.py %d", id, got[id], w)
		}
	}
}

func TestSpider2_ExecResultTable(t *testing.T) {
	dir := filepath.Join("..", "..", "spider2", "testdata", "official")
	code, out, stderr := runCLI(t, "", "spider2", "--result-dir", filepath.Join(dir, "pred"), "--gold-dir", filepath.Join(dir, "gold"))
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	// evaluate.py prints the same first two lines for this submission
	for _, want := range []string{
		"{'bq003': 0, 'bq011': 1, 'bq019': 0, 'bq418': 0, 'local356': 0, 'sf_bq026': 0}",
		"Final score: 0.16666666666666666, Correct examples: 1, Total examples: 6",
		"Comparison: spider2@1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSpider2_Strict(t *testing.T) {
	dir := filepath.Join("..", "..", "spider2", "testdata", "rules")
	code, out, stderr := runCLI(t, "", "spider2", "--strict", "--result-dir", filepath.Join(dir, "pred"), "--gold-dir", filepath.Join(dir, "gold"), "--items", "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	got := spider2Items(t, out)
	if got["rows_scrambled"] != 0 || got["string_sort_misaligns"] != 1 {
		t.Errorf("strict: rows_scrambled %d (want 0), string_sort_misaligns %d (want 1)", got["rows_scrambled"], got["string_sort_misaligns"])
	}
	if !strings.Contains(stderr, "not_in_gold") {
		t.Errorf("stderr does not name the prediction without gold: %s", stderr)
	}
}

func TestSpider2_UsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"spider2"}, exitUsage, "missing --gold-dir, --result-dir"},
		{[]string{"spider2", "--mode", "json", "--result-dir", dir, "--gold-dir", dir}, exitUsage, `unknown --mode "json"`},
		{[]string{"spider2", "--mode", "sql", "--result-dir", dir, "--gold-dir", dir}, exitUsage, "--mode sql needs --db"},
		{[]string{"spider2", "--result-dir", dir, "--gold-dir", dir}, exitFailed, "spider2lite_eval.jsonl"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args[1:], code, stderr, c.code, c.msg)
		}
	}
}

// The bundled --mode sql example has no prediction for local013: the printout stays
// evaluate.py's, and a warning names the entry (issue 46: it was only counted).
func TestSpider2_NamesGoldWithoutPrediction(t *testing.T) {
	ex := filepath.Join(repoRoot, "examples")
	code, out, stderr := runCLI(t, "", "spider2", "--mode", "sql", "--result-dir", filepath.Join(ex, "spider2", "pred_sql"),
		"--gold-dir", filepath.Join(ex, "spider2", "gold"), "--db", filepath.Join(ex, "spider", "database"),
		"--metadata", filepath.Join(ex, "spider2", "spider2-lite.jsonl"))
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if want := "1 gold entry has no prediction (not in the Final score; wrong in the Real score): local013"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(out, "local013") || !strings.Contains(out, "Total examples: 13") {
		t.Errorf("the printout is not evaluate.py's:\n%s", out)
	}
}
