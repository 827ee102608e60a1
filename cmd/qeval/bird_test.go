package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// The EX and Soft-F1 rows below are what the official scripts (bird-bench/mini_dev
// evaluation_ex.py, evaluation_f1.py) print for the bundled example, with the
// predictions in key order and with the same file written with sorted keys.
const (
	birdExampleEX = "EX                   92.86                85.71                62.50                84.00               "
	birdExampleF1 = "Soft-F1              92.86                96.43                54.17                88.67               "
	birdSortedEX  = "EX                   21.43                0.00                 0.00                 6.00                "
	birdSortedF1  = "Soft-F1              16.07                0.00                 0.00                 4.50                "
)

func TestBird_Example(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	items := filepath.Join(t.TempDir(), "items.jsonl")
	code, out, stderr := runCLI(t, "", "bird", "--pred", filepath.Join(ex, "bird", "predict_dev.json"),
		"--gold", filepath.Join(ex, "bird", "dev.sql"), "--diff", filepath.Join(ex, "bird", "dev.json"),
		"--db-root", filepath.Join(ex, "spider", "database"), "--items", items, "--ves-runs", "3")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	for _, want := range []string{birdExampleEX, birdExampleF1, "count                14                   28                   8                    50",
		"R-VES   ", "R-VES-steps   "} {
		if !strings.Contains(out, want+"\n") && !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, items)), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d item lines, want 50", len(lines))
	}
	for i, l := range lines {
		var it map[string]any
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"index", "db_id", "difficulty", "ex", "soft_f1", "r_ves", "r_ves_steps", "outcome"} {
			if _, ok := it[k]; !ok {
				t.Errorf("item %d lacks %q: %s", i, k, l)
			}
		}
		if it["index"].(float64) != float64(i) {
			t.Errorf("item %d has index %v", i, it["index"])
		}
	}
}

// TestBird_SortedKeys: the official scripts pair predictions by file position, so a
// file written with sorted keys scores near zero (mini_dev #41). qeval prints the
// official numbers, warns, and scores by key beside them.
func TestBird_SortedKeys(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	code, out, stderr := runCLI(t, "", "bird", "--pred", filepath.Join(ex, "bird", "predict_dev_sorted_keys.json"),
		"--gold", filepath.Join(ex, "bird", "dev.json"), "--db-root", filepath.Join(ex, "spider", "database"))
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	for _, want := range []string{birdSortedEX, birdSortedF1,
		"EX-by-key            92.86                85.71                62.50                84.00",
		"Soft-F1-by-key       92.86                96.43                54.17                88.67"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "48 items are paired by position with a prediction keyed for another item") {
		t.Errorf("stderr lacks the pairing warning: %s", stderr)
	}
}

func TestBird_UsageErrors(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "dev.sql", "SELECT 1\tdb\n")
	pred := writeFile(t, dir, "pred.json", `{"0": "SELECT 1\t----- bird -----\tdb"}`)
	bad := writeFile(t, dir, "bad.json", `["SELECT 1"]`)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bird"}, exitUsage, "missing --db, --gold, --pred"},
		{[]string{"bird", "--pred", pred, "--gold", gold, "--db-root", dir, "--dialect", "Oracle"}, exitUsage, `unknown --dialect "Oracle"`},
		{[]string{"bird", "--pred", pred, "--gold", gold, "--db-root", filepath.Join(dir, "nope")}, exitFailed, "no such folder"},
		{[]string{"bird", "--pred", pred, "--gold", filepath.Join(dir, "nope.sql"), "--db-root", dir}, exitFailed, "open --gold"},
		{[]string{"bird", "--pred", bad, "--gold", gold, "--db-root", dir}, exitUsage, "want a JSON object"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args[1:], code, stderr, c.code, c.msg)
		}
	}
}

// TestBird_MissingDatabaseGoesOn: an item whose database is missing is a gold_error;
// the other items are scored.
func TestBird_MissingDatabaseGoesOn(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	dir := t.TempDir()
	gold := writeFile(t, dir, "dev.sql", "SELECT count(*) FROM singer\tconcert_singer\nSELECT 1\tno_such_db\n")
	pred := writeFile(t, dir, "pred.json", `{"0": "SELECT count(*) FROM singer\t----- bird -----\tconcert_singer", "1": "SELECT 1"}`)
	code, out, stderr := runCLI(t, "", "bird", "--pred", pred, "--gold", gold, "--db-root", filepath.Join(ex, "spider", "database"), "--items", "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"ex":1`) || !strings.Contains(lines[1], `"outcome":"gold_error"`) || !strings.Contains(lines[1], "no such file") {
		t.Errorf("items:\n%s", out)
	}
	if !strings.Contains(stderr, "1 gold queries failed") {
		t.Errorf("stderr: %s", stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBird_PostgreSQL: with --dialect PostgreSQL every item runs on the one database
// --db-root names, as BIRD runs its PostgreSQL set; a query that fails is a pred or
// gold error and the run goes on.
func TestBird_PostgreSQL(t *testing.T) {
	dsn := os.Getenv("QEVAL_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		t.Skipf("PostgreSQL is not reachable (%v); set QEVAL_TEST_POSTGRES to the DSN of a test database to run this test", err)
	}
	dsn = readerDSN(t, dsn) // qeval refuses to run generated SQL as a superuser
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.sql", "SELECT 1 AS a, 'x' AS b\tfinancial\nSELECT generate_series(1, 3)\tfinancial\nSELECT 1/0\tfinancial\nSELECT 2\tfinancial\n")
	pred := writeFile(t, dir, "pred.json", `{"0": "SELECT 1.0, 'x'\t----- bird -----\tfinancial",
		"1": "SELECT * FROM generate_series(3, 1, -1)\t----- bird -----\tfinancial",
		"2": "SELECT 1\t----- bird -----\tfinancial",
		"3": "SELEC 2\t----- bird -----\tfinancial"}`)
	code, out, stderr := runCLI(t, "", "bird", "--dialect", "PostgreSQL", "--pred", pred, "--gold", gold, "--db-root", dsn, "--items", "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{`"ex":1,"soft_f1":1,`, `"ex":1,"soft_f1":0.3333333333333333,`, `"outcome":"gold_error"`, `"outcome":"pred_error"`}
	if len(lines) != len(want) {
		t.Fatalf("%d items:\n%s", len(lines), out)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("item %d lacks %s: %s", i, w, lines[i])
		}
	}
}

// TestBird_Verify: `qeval bird --verify` verifies every EX match under BIRD's rule:
// the table of EX-verified, a status per item, and each counterexample a valid
// database on which BIRD's EX, run on it alone, says the item is wrong.
func TestBird_Verify(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	dir := t.TempDir()
	items, cex := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "cex")
	code, out, stderr := runCLI(t, "", "bird", "--pred", filepath.Join(ex, "bird", "predict_dev.json"), "--gold", filepath.Join(ex, "bird", "dev.sql"),
		"--db", filepath.Join(ex, "spider", "database"), "--items", items, "--verify", "--out", cex)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(out, "start calculate EX-verified (K = 3)") || !strings.Contains(out, "EX on the database      84.00") {
		t.Errorf("no EX-verified table:\n%s", out)
	}
	golds := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(ex, "bird", "dev.sql"))), "\n")
	var preds map[string]string
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(ex, "bird", "predict_dev.json"))), &preds); err != nil {
		t.Fatal(err)
	}
	flipped := 0
	for i, l := range strings.Split(strings.TrimSpace(readFile(t, items)), "\n") {
		var it struct {
			DBID         string              `json:"db_id"`
			EX           int                 `json:"ex"`
			Verification *qeval.Verification `json:"verification"`
		}
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatal(err)
		}
		if it.Verification == nil || (it.Verification.Status == qeval.VerifyNotAMatch) != (it.EX == 0) {
			t.Errorf("item %d: ex %d, verification %+v", i, it.EX, it.Verification)
			continue
		}
		if it.Verification.Status != qeval.VerifyCounterexample {
			continue
		}
		flipped++
		path := it.Verification.Counterexample
		if err := sqlite.Check(path); err != nil {
			t.Errorf("item %d: %v", i, err)
		}
		one := filepath.Join(dir, "one", strconv.Itoa(i))
		os.MkdirAll(filepath.Join(one, it.DBID), 0o755)
		data, _ := os.ReadFile(path)
		os.WriteFile(qeval.BenchmarkFile(one, it.DBID), data, 0o644)
		pj, _ := json.Marshal(map[string]string{"0": preds[strconv.Itoa(i)]})
		g := writeFile(t, one, "gold.sql", golds[i]+"\n")
		p := writeFile(t, one, "pred.json", string(pj))
		code, _, stderr := runCLI(t, "", "bird", "--pred", p, "--gold", g, "--db", one, "--items", filepath.Join(one, "items.jsonl"))
		if code != exitOK {
			t.Fatalf("bird on the counterexample of item %d: code %d, %s", i, code, stderr)
		}
		if got := readItems(t, filepath.Join(one, "items.jsonl"))[0]["ex"]; got != float64(0) {
			t.Errorf("item %d: BIRD's EX is %v on its counterexample, want 0", i, got)
		}
	}
	if flipped == 0 {
		t.Error("no counterexample: the example has matches a database tells apart")
	}
}
