package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// mustTeamDB writes DIR/team/team.sqlite: players with a team and a score.
func mustTeamDB(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "team"), 0o755)
	w, err := sqlite.Create(filepath.Join(dir, "team", "team.sqlite"), `
CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, club_id INT REFERENCES club(id), score INT);`)
	if err != nil {
		t.Fatal(err)
	}
	I, T := qeval.Int, qeval.Text
	w.Insert("club", []string{"id", "name"}, [][]qeval.Value{{I(1), T("Reds")}, {I(2), T("Blues")}})
	w.Insert("player", []string{"id", "name", "club_id", "score"}, [][]qeval.Value{
		{I(1), T("Al"), I(1), I(10)}, {I(2), T("Bo"), I(1), I(20)}, {I(3), T("Cy"), I(2), I(30)}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestTestsuiteBuild_AndExplain(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "suite")
	mustTeamDB(t, dir)
	gold := writeFile(t, dir, "gold.sql", "SELECT name FROM player WHERE score > 15\tteam\nSELECT count(*) FROM player WHERE nope = 1\tteam\n")
	code, stdout, stderr := runCLI(t, "", "testsuite", "build", "--gold", gold, "--db", dir, "--out", out, "--seed", "3", "--candidates", "8")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "team ") || !strings.Contains(stdout, "generated databases") {
		t.Errorf("stdout lacks the per-database line:\n%s", stdout)
	}
	if !strings.Contains(stderr, "item 2: gold query fails on the original database") {
		t.Errorf("stderr lacks the failing gold item:\n%s", stderr)
	}
	var m struct {
		Seed      uint64 `json:"seed"`
		Databases []struct {
			Files []struct {
				File string `json:"file"`
			} `json:"files"`
		} `json:"databases"`
	}
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &m)
	if m.Seed != 3 || len(m.Databases) != 1 || len(m.Databases[0].Files) < 2 {
		t.Fatalf("manifest: %s", data)
	}
	// qeval spider runs unchanged on the suite; the near miss >= 15 is caught there
	preds := writeFile(t, dir, "pred.txt", "SELECT name FROM player WHERE score >= 15\nSELECT 1\n")
	code, stdout, _ = runCLI(t, "", "spider", "--gold", gold, "--pred", preds, "--db", dir, "--json")
	if code != exitOK || !strings.Contains(stdout, `"correct": 1`) {
		t.Fatalf("single database: code %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "", "explain", "--db", out, "--gold-file", gold, "--pred-file", preds, "--item", "1")
	if code != exitOK {
		t.Fatalf("explain: code %d", code)
	}
	for _, want := range []string{"mismatch (spider-ts@1) on team_ts", "why: told apart by team_ts", "counterexample:", `INSERT INTO "player"`, "gold result:", "prediction result:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, stdout)
		}
	}
	if n := strings.Count(stdout, "INSERT INTO"); n > 3 {
		t.Errorf("counterexample has %d rows, want a minimal one (one player row, with its club):\n%s", n, stdout)
	}
	code, stdout, _ = runCLI(t, "", "explain", "--db", filepath.Join(out, "team"), "--gold", "SELECT name FROM player", "--pred", "SELECT name FROM player")
	if code != exitOK || !strings.Contains(stdout, "match (spider-ts@1)") {
		t.Errorf("explain of equal queries: code %d\n%s", code, stdout)
	}
	code, _, stderr = runCLI(t, "", "testsuite", "build", "--gold", gold)
	if code != exitUsage || !strings.Contains(stderr, "missing --db, --out") {
		t.Errorf("missing flags: code %d, stderr %q", code, stderr)
	}
}

func TestTestsuiteBuild_SuiteFile(t *testing.T) {
	dir := t.TempDir()
	mustTeamDB(t, dir)
	yaml := writeFile(t, dir, "suite.yaml", `name: team
database: team/team.sqlite
cases:
  - id: top
    question: Who scores most?
    expected_query: SELECT name FROM player ORDER BY score DESC LIMIT 1
  - id: clubs
    question: Players per club
    expected_query: SELECT T1.name, count(*) FROM club AS T1 JOIN player AS T2 ON T1.id = T2.club_id GROUP BY T1.id
`)
	out := filepath.Join(dir, "suite")
	code, stdout, stderr := runCLI(t, "", "testsuite", "build", "--gold", yaml, "--out", out, "--candidates", "6")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "team", "*.sqlite"))
	if len(files) < 2 || !strings.Contains(stdout, "team ") {
		t.Errorf("files %v, stdout:\n%s", files, stdout)
	}
	bad := writeFile(t, dir, "bad.yaml", "name: x\ndatabase: nowhere.sqlite\ncases:\n  - {id: a, question: q, expected_query: SELECT 1}\n")
	code, _, stderr = runCLI(t, "", "testsuite", "build", "--gold", bad, "--out", filepath.Join(dir, "o2"))
	if code == exitOK || !strings.Contains(stderr, `"nowhere.sqlite"`) {
		t.Errorf("suite naming a missing file: code %d, stderr %q", code, stderr)
	}
}

// TestTestsuite_SingleAndSuiteSideBySide runs a near miss that the original database
// cannot tell from the gold on a generated suite: qeval spider and every report of
// qeval run show the original database's verdict beside the suite's, and list the
// flipped case with the database that told them apart and how the results differ.
func TestTestsuite_SingleAndSuiteSideBySide(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "suite")
	mustTeamDB(t, dir)
	gold := writeFile(t, dir, "gold.sql", "SELECT name FROM player WHERE score > 15\tteam\nSELECT count(*) FROM club\tteam\n")
	if code, _, stderr := runCLI(t, "", "testsuite", "build", "--gold", gold, "--db", dir, "--out", out, "--seed", "3", "--candidates", "8"); code != exitOK {
		t.Fatalf("build: code %d: %s", code, stderr)
	}
	preds := writeFile(t, dir, "pred.txt", "SELECT name FROM player WHERE score >= 15\nSELECT count(*) FROM club\n")
	items := filepath.Join(dir, "items.jsonl")
	code, stdout, stderr := runCLI(t, "", "spider", "--gold", gold, "--pred", preds, "--db", out, "--items", items)
	if code != exitOK {
		t.Fatalf("spider: code %d: %s", code, stderr)
	}
	for _, want := range []string{"original db only", "1 items match on the original database alone"[2:], "1 flipped"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("spider table lacks %q:\n%s", want, stdout)
		}
	}
	data, _ := os.ReadFile(items)
	var first struct {
		Exec       *bool              `json:"exec"`
		Original   *bool              `json:"exec_original_database"`
		Database   string             `json:"database"`
		Difference *qeval.Explanation `json:"difference"`
	}
	json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &first)
	if first.Exec == nil || *first.Exec || first.Original == nil || !*first.Original || !strings.HasPrefix(filepath.Base(first.Database), "team_ts") ||
		first.Difference == nil || first.Difference.ExtraCount == 0 {
		t.Errorf("item 1: %s", data)
	}

	suiteFile := writeFile(t, dir, "s.yaml", `name: team
database: `+filepath.Join(out, "team")+`
pass_requires: [execution]
cases:
  - {id: near, question: "Who scores over 15?", expected_query: "SELECT name FROM player WHERE score > 15", generated_query: "SELECT name FROM player WHERE score >= 15"}
  - {id: same, question: "How many clubs?", expected_query: "SELECT count(*) FROM club", generated_query: "SELECT count(*) FROM club"}
`)
	rdir := filepath.Join(dir, "report")
	code, stdout, stderr = runCLI(t, "", "run", suiteFile, "-o", rdir, "--judge", "none")
	if code != exitOK && code != exitFailed {
		t.Fatalf("run: code %d: %s", code, stderr)
	}
	var rep qeval.Report
	data, err := os.ReadFile(filepath.Join(rdir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	ts := rep.Summary.TestSuite
	if ts == nil || ts.Cases != 2 || ts.SingleDatabase.Value != 1 || ts.Suite.Value != 0.5 || len(ts.Flipped) != 1 ||
		ts.Flipped[0].ID != "near" || !strings.HasPrefix(ts.Flipped[0].Database, filepath.Join(out, "team", "team_ts")) || ts.Flipped[0].Explanation == nil {
		t.Fatalf("summary.test_suite = %+v", ts)
	}
	for _, c := range rep.Cases {
		if c.ID == "near" && !strings.Contains(c.Reason, "the results differ: told apart by team_ts") {
			t.Errorf("reason of the flipped case: %q", c.Reason)
		}
	}
	if !strings.Contains(stdout, "original database alone") || !strings.Contains(stdout, "whole test suite") || !strings.Contains(stdout, "near: told apart by team_ts") {
		t.Errorf("terminal report lacks the side-by-side accuracy or the flipped case:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(rdir, "summary.md"))
	html, _ := os.ReadFile(filepath.Join(rdir, "report.html"))
	for name, body := range map[string]string{"summary.md": string(md), "report.html": string(html)} {
		if !strings.Contains(body, "Flipped by the test suite") || !strings.Contains(body, "original database alone") && !strings.Contains(body, "Original database alone") {
			t.Errorf("%s lacks the test-suite section", name)
		}
	}
}
