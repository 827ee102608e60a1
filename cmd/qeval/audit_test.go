package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// auditFixture writes DIR/shop/shop.sqlite and DIR/broken/broken.sqlite (not a database).
func auditFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"shop", "broken"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d, err := sql.Open("sqlite3", filepath.Join(dir, "shop", "shop.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, s := range []string{
		`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER)`,
		`INSERT INTO item VALUES (1, 'apple', 3.0, 10), (2, 'pear', 5.0, 1), (3, 'plum', 5.0, 3), (4, 'fig', 1.0, 2)`,
	} {
		if _, err := d.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "broken", "broken.sqlite"), []byte(strings.Repeat("not a database ", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAudit_BadInput: a line with the wrong column count, a missing database and one
// that will not open get one message each naming the file and line; the other items
// are audited and every item has its line in --items.
func TestAudit_BadInput(t *testing.T) {
	dir := auditFixture(t)
	gold := filepath.Join(dir, "gold.sql")
	lines := []string{
		"SELECT name FROM item ORDER BY price DESC LIMIT 1\tshop",
		"SELECT name FROM item\tshop\textra",
		"SELECT 1\tnowhere",
		"SELECT 1\tbroken",
		"SELECT name FROM item WHERE qty > 100\tshop",
	}
	if err := os.WriteFile(gold, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	items := filepath.Join(dir, "audit.jsonl")
	code, out, errOut := runCLI(t, "", "audit", "--gold", gold, "--db", dir, "--items", items)
	if code != exitFailed {
		t.Errorf("exit %d, want %d (input problems)\n%s", code, exitFailed, errOut)
	}
	for _, want := range []string{gold + ":2: want `SQL<TAB>db_id`, found 3", gold + ":3:", gold + ":4:"} {
		if strings.Count(errOut, want) != 1 {
			t.Errorf("stderr should hold %q once:\n%s", want, errOut)
		}
	}
	if !strings.Contains(errOut, "nowhere") || !strings.Contains(errOut, "broken.sqlite") {
		t.Errorf("stderr should name the missing database and the file that will not open:\n%s", errOut)
	}
	if !strings.Contains(out, "tie_at_limit     1") || !strings.Contains(out, "empty            1") || !strings.Contains(out, "gold_fails       3") {
		t.Errorf("summary:\n%s", out)
	}
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []auditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("--items line %q: %v", sc.Text(), err)
		}
		got = append(got, l)
	}
	want := [][]string{{"tie_at_limit"}, {"gold_fails"}, {"gold_fails"}, {"gold_fails"}, {"empty"}}
	if len(got) != len(want) {
		t.Fatalf("%d --items lines, want %d", len(got), len(want))
	}
	for i, l := range got {
		if l.Index != i || strings.Join(l.Flags, ",") != strings.Join(want[i], ",") {
			t.Errorf("item %d: index %d flags %v, want %v", i, l.Index, l.Flags, want[i])
		}
	}
}

// TestAudit_SuiteAndJSON: a suite file in place of --gold, --json on stdout, and
// --fail-on for CI.
func TestAudit_SuiteAndJSON(t *testing.T) {
	dir := auditFixture(t)
	suitePath := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suitePath, []byte(`name: shop
database: shop/shop.sqlite
cases:
  - id: cheapest
    question: cheapest item?
    expected_query: SELECT name FROM item ORDER BY price LIMIT 1
  - id: all
    question: every item
    expected_query: SELECT * FROM item
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "audit", suitePath, "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep struct {
		Total  int            `json:"total"`
		Counts map[string]int `json:"counts"`
		Items  []struct {
			Index int      `json:"index"`
			Flags []string `json:"flags"`
			Ref   string   `json:"ref"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Total != 2 || rep.Counts["select_star"] != 1 || len(rep.Items[0].Flags) != 0 || !strings.Contains(rep.Items[1].Ref, `"all"`) {
		t.Errorf("report %+v", rep)
	}
	code, _, errOut = runCLI(t, "", "audit", suitePath, "--fail-on", "select_star")
	if code != exitThreshold || !strings.Contains(errOut, "1 items have select_star") {
		t.Errorf("--fail-on: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "audit", suitePath, "--fail-on", "nonsense")
	if code != exitUsage && code != exitFailed || !strings.Contains(errOut, `unknown flag "nonsense"`) {
		t.Errorf("unknown flag name: exit %d\n%s", code, errOut)
	}
}
