package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// readItems reads a JSON-lines --items file.
func readItems(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var it map[string]any
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, it)
	}
	return out
}

// TestVerify_Example verifies the 50 real predictions of examples/spider: every line
// has its verification, every match is verified, every counterexample is a valid
// database on which `qeval spider` alone (the official rules) flips the item, and
// nothing is written outside --out.
func TestVerify_Example(t *testing.T) {
	dir := t.TempDir()
	items, cex := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "cex")
	code, out, stderr := runCLI(t, "", "verify", "--gold", exampleDir+"/gold.sql", "--pred", exampleDir+"/pred.txt",
		"--db", exampleDir+"/database", "--table", exampleDir+"/tables.json", "--items", items, "--out", cex)
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	if !strings.Contains(out, "VERIFIED EXECUTION ACCURACY (K = 3)") || !strings.Contains(out, "execution, verified") {
		t.Errorf("no verification table:\n%s", out)
	}
	lines := readItems(t, items)
	if len(lines) != 50 {
		t.Fatalf("%d items, want 50", len(lines))
	}
	golds := strings.Split(strings.TrimSpace(readFile(t, exampleDir+"/gold.sql")), "\n")
	preds := strings.Split(strings.TrimSpace(readFile(t, exampleDir+"/pred.txt")), "\n")
	counts := map[string]int{}
	for i, it := range lines {
		for _, k := range []string{"index", "db_id", "status", "bound", "counterexample", "reason", "ms"} {
			if _, ok := it[k]; !ok {
				t.Errorf("items line %d lacks %q", i+1, k)
			}
		}
		st := it["status"].(string)
		counts[st]++
		if (st == string(qeval.VerifyNotAMatch)) != (it["exec"] != true) {
			t.Errorf("item %d: status %s with exec %v", i, st, it["exec"])
		}
		if st == string(qeval.VerifyEquivalent) && it["bound"].(float64) != 3 {
			t.Errorf("item %d: equivalent_up_to_k with bound %v", i, it["bound"])
		}
		if st != string(qeval.VerifyCounterexample) {
			if it["counterexample"] != nil {
				t.Errorf("item %d: %s with a counterexample %v", i, st, it["counterexample"])
			}
			continue
		}
		path, _ := it["counterexample"].(string)
		if path != filepath.Join(cex, jsonInt(it["index"])+".sqlite") {
			t.Errorf("item %d: counterexample %q, want %s", i, path, filepath.Join(cex, jsonInt(it["index"])+".sqlite"))
		}
		if err := sqlite.Check(path); err != nil {
			t.Errorf("item %d: %v", i, err)
		}
		// the official rules on the counterexample alone: the item is wrong there
		one := filepath.Join(dir, "one", jsonInt(it["index"]))
		id := it["db_id"].(string)
		os.MkdirAll(filepath.Join(one, id), 0o755)
		data, _ := os.ReadFile(path)
		os.WriteFile(qeval.BenchmarkFile(one, id), data, 0o644)
		g := writeFile(t, one, "gold.sql", golds[i]+"\n")
		p := writeFile(t, one, "pred.txt", preds[i]+"\n")
		code, _, stderr := runCLI(t, "", "spider", "--gold", g, "--pred", p, "--db", one, "--items", filepath.Join(one, "items.jsonl"))
		if code != exitOK {
			t.Fatalf("spider on the counterexample of item %d: code %d, %s", i, code, stderr)
		}
		if got := readItems(t, filepath.Join(one, "items.jsonl"))[0]["exec"]; got != false {
			t.Errorf("item %d: the official rules give exec %v on its counterexample, want false", i, got)
		}
		// qeval explain opens it: the verdict, the rows and both results
		code, out, stderr = runCLI(t, "", "explain", path)
		if code != exitOK || !strings.HasPrefix(out, "mismatch (spider-ts@1)") || !strings.Contains(out, "counterexample: ") || !strings.Contains(out, "INSERT INTO") {
			t.Errorf("explain %s: code %d\n%s%s", path, code, out, stderr)
		}
	}
	if counts[string(qeval.VerifyCounterexample)] == 0 || counts[string(qeval.VerifyEquivalent)] == 0 {
		t.Errorf("statuses %v: want counterexamples and proofs", counts)
	}
	entries, _ := os.ReadDir(cex)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sqlite") && !strings.HasSuffix(name, ".json") {
			t.Errorf("%s left in the counterexample folder", name)
		}
	}
	if n := len(entries); n != 2*counts[string(qeval.VerifyCounterexample)] {
		t.Errorf("%d files in the counterexample folder, want a .sqlite and a .json per counterexample (%d)", n, counts[string(qeval.VerifyCounterexample)])
	}
}

// TestVerify_Reports: the reports of a verify run (-o) put the three accuracies side by
// side: report.json's summary.verification (execution on the database, verified, the
// share decided, the counterexamples), summary.md's and report.html's rows, and the
// exec-verified metric counts every item, a non-match as 0.
func TestVerify_Reports(t *testing.T) {
	dir := t.TempDir()
	items, rep := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "rep")
	code, _, stderr := runCLI(t, "", "verify", "--gold", exampleDir+"/gold.sql", "--pred", exampleDir+"/pred.txt",
		"--db", exampleDir+"/database", "--table", exampleDir+"/tables.json", "--items", items, "--out", filepath.Join(dir, "cex"), "-o", rep)
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	counts := map[string]int{}
	exec := 0
	for _, it := range readItems(t, items) {
		counts[it["status"].(string)]++
		if it["exec"] == true {
			exec++
		}
	}
	var doc struct {
		Summary struct {
			Verification qeval.VerificationSummary `json:"verification"`
			MetricMeans  map[string]float64        `json:"metric_means"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(rep, "report.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	vs := doc.Summary.Verification
	eq, cex := counts[string(qeval.VerifyEquivalent)], counts[string(qeval.VerifyCounterexample)]
	if vs.Cases != 50 || vs.Bound != 3 || vs.Exec == nil || vs.Exec.Value != float64(exec)/50 || vs.Verified == nil || vs.Verified.Value != float64(eq)/50 ||
		vs.Matched != exec || len(vs.Flipped) != cex || vs.ExecTestSuite != nil {
		t.Errorf("summary.verification %+v, want 50 cases, exec %d/50, verified %d/50, %d flipped", vs, exec, eq, cex)
	}
	if got := doc.Summary.MetricMeans["exec-verified"]; got != float64(eq)/50 {
		t.Errorf("exec-verified mean %v, want %v", got, float64(eq)/50)
	}
	want := fmt.Sprintf("| Execution accuracy, verified (K = 3; %s of %d matches decided) |", pctText(vs.Decided), exec)
	if md := readFile(t, filepath.Join(rep, "summary.md")); !strings.Contains(md, want) {
		t.Errorf("summary.md lacks %q", want)
	}
	if html := readFile(t, filepath.Join(rep, "report.html")); !strings.Contains(html, "Execution, verified (K = 3)") {
		t.Error("report.html lacks the verified accuracy")
	}
}

func pctText(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// TestVerify_GoldAsPrediction: the gold as its own prediction has no counterexample.
func TestVerify_GoldAsPrediction(t *testing.T) {
	dir := t.TempDir()
	items := filepath.Join(dir, "items.jsonl")
	var sqls []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, exampleDir+"/gold.sql")), "\n") {
		sqls = append(sqls, strings.Split(l, "\t")[0])
	}
	pred := writeFile(t, dir, "pred.txt", strings.Join(sqls, "\n")+"\n")
	code, _, stderr := runCLI(t, "", "verify", "--gold", exampleDir+"/gold.sql", "--pred", pred, "--db", exampleDir+"/database", "--items", items, "--out", filepath.Join(dir, "cex"))
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	for i, it := range readItems(t, items) {
		if it["status"] != string(qeval.VerifyEquivalent) {
			t.Errorf("item %d: %v (%v), want equivalent_up_to_k", i, it["status"], it["reason"])
		}
	}
}

func jsonInt(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestVerify_Suite: a suite with verify: true verifies each match on its SQLite
// database: the verdicts carry the status, a counterexample goes beside the reports
// (DIR/counterexamples) and is valid, and report.json has the three accuracies.
func TestVerify_Suite(t *testing.T) {
	dir := t.TempDir()
	db, err := filepath.Abs(qeval.BenchmarkFile(exampleDir+"/database", "concert_singer"))
	if err != nil {
		t.Fatal(err)
	}
	suite := writeFile(t, dir, "suite.yaml", `name: verified
database: `+db+`
mode: spider-ts
verify: true
cases:
  - id: same
    expected_query: SELECT name FROM singer WHERE age > 30
    generated_query: SELECT Name FROM singer WHERE 30 < Age
  - id: youngest
    expected_query: SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1
    generated_query: SELECT song_name, song_release_year FROM singer WHERE age = (SELECT min(age) FROM singer)
  - id: wrong
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT count(*) FROM singer WHERE age > 100
`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "", "run", suite, "--quiet", "--judge", "none", "-o", out)
	if code != exitOK && code != exitThreshold {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var doc struct {
		Summary struct {
			Verification qeval.VerificationSummary `json:"verification"`
		} `json:"summary"`
		Cases []struct {
			ID        string `json:"id"`
			Execution struct {
				Verification *qeval.Verification `json:"verification"`
			} `json:"execution"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "report.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]qeval.VerifyStatus{"same": qeval.VerifyEquivalent, "youngest": qeval.VerifyCounterexample, "wrong": qeval.VerifyNotAMatch}
	for _, c := range doc.Cases {
		v := c.Execution.Verification
		if v == nil || v.Status != want[c.ID] {
			t.Errorf("case %s: verification %+v, want %s", c.ID, v, want[c.ID])
			continue
		}
		if v.Status == qeval.VerifyCounterexample {
			if filepath.Dir(v.Counterexample) != filepath.Join(out, "counterexamples") {
				t.Errorf("case %s: counterexample %s, want it in %s", c.ID, v.Counterexample, filepath.Join(out, "counterexamples"))
			}
			if err := sqlite.Check(v.Counterexample); err != nil {
				t.Errorf("case %s: %v", c.ID, err)
			}
		}
	}
	vs := doc.Summary.Verification
	if vs.Cases != 3 || vs.Matched != 2 || vs.Verified == nil || vs.Verified.Value != 1.0/3 || vs.Decided != 1 {
		t.Errorf("summary.verification %+v", vs)
	}
}
