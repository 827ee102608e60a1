package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
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
	var got []audit.ItemLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l audit.ItemLine
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

// messagesServer is a fake of Anthropic's Messages API: for each request to
// /v1/messages forcing a tool (and carrying key as X-Api-Key, when key is set) it
// replies with a tool_use block whose input answer returns (given the model, the raw
// body and the tool's name); anything else gets the API's 400.
func messagesServer(key string, answer func(model string, body []byte, tool string) map[string]any) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string `json:"model"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Tools) == 0 || r.URL.Path != "/v1/messages" || key != "" && r.Header.Get("X-Api-Key") != key {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": req.Tools[0].Name, "input": answer(req.Model, body, req.Tools[0].Name)}},
			"stop_reason": "tool_use", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
		})
	}))
}

// fakeJudge says "incorrect" when the request holds wrong_marker, so the judge and
// execution match can disagree.
func fakeJudge(t *testing.T) *httptest.Server {
	return messagesServer("", func(_ string, body []byte, tool string) map[string]any {
		if strings.Contains(tool, "grade") {
			return map[string]any{"reasoning": "Close.", "score": 0.5}
		}
		if bytes.Contains(body, []byte("wrong_marker")) {
			return map[string]any{"reasoning": "It answers another question.", "verdict": "incorrect"}
		}
		return map[string]any{"reasoning": "Reads the right table with the right filter.", "verdict": "correct"}
	})
}

// TestRun_JudgeAgreementAndExclusions: a run with the judge asked on every case
// reports the 2×2 table of judge against execution, Cohen's κ and the disagreeing
// cases; exclude_flagged sets aside the case whose gold is empty and every report
// says so.
func TestRun_JudgeAgreementAndExclusions(t *testing.T) {
	srv := fakeJudge(t)
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	suitePath := writeFile(t, dir, "s.yaml", `name: agreement
database: `+db+`
judge:
  on_exec_match: ask
exclude_flagged: [empty]
cases:
  - id: match-correct
    question: How many singers are there?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT COUNT(Singer_ID) FROM singer
  - id: match-correct-2
    question: Count the singers.
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT COUNT(*) FROM singer AS s
  - id: mismatch-correct
    question: List the singers' names.
    expected_query: SELECT Name FROM singer
    generated_query: SELECT Name FROM singer WHERE Singer_ID > 3
  - id: match-wrong
    question: How many singers?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT count(*) AS wrong_marker FROM singer
  - id: mismatch-wrong
    question: Names of all singers.
    expected_query: SELECT Name FROM singer
    generated_query: SELECT Name AS wrong_marker FROM singer WHERE Singer_ID = 1
  - id: identical
    question: Number of singers?
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT count(*) FROM singer
  - id: empty-gold
    question: Who is singer 999?
    expected_query: SELECT Name FROM singer WHERE Singer_ID = 999
    generated_query: SELECT Name FROM singer WHERE Singer_ID = 998
`)
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	jsonPath, mdPath, htmlPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html")
	code := run(context.Background(), []string{"run", suitePath, "--quiet", "--cache-dir", filepath.Join(dir, "cache"),
		"--json", jsonPath, "--md", mdPath, "--html", htmlPath},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	var rep qeval.Report
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	a := rep.Summary.JudgeAgreement
	if a == nil {
		t.Fatalf("no judge agreement in the report:\n%s", out.String())
	}
	if a.N != 5 || a.CorrectMatch != 2 || a.CorrectMismatch != 1 || a.WrongMatch != 1 || a.WrongMismatch != 1 {
		t.Errorf("2×2 %+v: want n 5 (identical queries are not a judge's opinion), 2/1/1/1", a)
	}
	// po = 3/5, pe = (3·3 + 2·2)/25 = 13/25, κ = (0.6 − 0.52)/0.48 = 1/6
	if a.Kappa == nil || math.Abs(*a.Kappa-1.0/6) > 1e-9 || math.Abs(a.Agreement-0.6) > 1e-9 {
		t.Errorf("agreement %v κ %v, want 0.6 and 1/6", a.Agreement, a.Kappa)
	}
	kinds := map[string]string{}
	for _, d := range a.Disagreements {
		kinds[d.ID] = d.Kind
		if d.Reasoning == "" || d.Question == "" {
			t.Errorf("disagreement %+v: want the question and the judge's reasoning", d)
		}
	}
	if kinds["mismatch-correct"] != qeval.SuspectGold || kinds["match-wrong"] != qeval.SuspectLuckyMatch || len(kinds) != 2 {
		t.Errorf("disagreements %v", kinds)
	}
	if rep.Audit == nil || rep.Audit.Excluded != 1 || rep.Audit.Counts["empty"] != 1 || len(rep.Cases) != 6 || rep.Summary.Total != 6 {
		t.Fatalf("audit %+v, %d cases: want the empty gold set aside", rep.Audit, len(rep.Cases))
	}
	for _, c := range rep.Cases {
		if c.ID == "empty-gold" {
			t.Error("the excluded case was scored")
		}
	}
	md, _ := os.ReadFile(mdPath)
	html, _ := os.ReadFile(htmlPath)
	for name, text := range map[string]string{"terminal": out.String(), "markdown": string(md), "html": string(html)} {
		if !strings.Contains(text, "1 cases set aside") && !strings.Contains(text, "1 cases set aside</strong>") && !strings.Contains(text, "**1 cases set aside**") {
			t.Errorf("%s report does not say how many cases were set aside:\n%s", name, text)
		}
		if !strings.Contains(text, "κ") {
			t.Errorf("%s report has no Cohen's κ", name)
		}
	}
	if !strings.Contains(errb.String(), "1 of 7 cases set aside (empty)") {
		t.Errorf("stderr: %s", errb.String())
	}
	// the headline counts duplicated golds apart from untrustworthy ones
	untrusted := 0
	for _, c := range rep.Audit.Cases {
		if slices.ContainsFunc(c.Flags, func(f string) bool { return f != audit.Duplicate }) {
			untrusted++
		}
	}
	if rep.Audit.Untrustworthy != untrusted || rep.Audit.Counts[audit.Duplicate] == 0 {
		t.Errorf("audit untrustworthy %d (cases with a flag other than duplicate: %d), duplicates %d", rep.Audit.Untrustworthy, untrusted, rep.Audit.Counts[audit.Duplicate])
	}
	want := fmt.Sprintf("%d of 7 gold queries cannot be trusted", untrusted)
	for name, text := range map[string]string{"terminal": out.String(), "markdown": string(md), "html": string(html)} {
		if !strings.Contains(text, want) || !strings.Contains(text, fmt.Sprintf(", %d duplicates", rep.Audit.Counts[audit.Duplicate])) {
			t.Errorf("%s report lacks %q and the duplicates apart", name, want)
		}
	}
}

// TestAudit_HeadlineSpider: on the Spider example, most flags are the duplicates Spider
// intends (the same question asked in other words); the headline counts the golds
// that cannot be trusted apart from them (it said "50 items, 48 flagged").
func TestAudit_HeadlineSpider(t *testing.T) {
	items := filepath.Join(t.TempDir(), "audit.jsonl")
	code, stdout, stderr := runCLI(t, "", "audit", "--gold", exampleDir+"/gold.sql", "--db", exampleDir+"/database", "--items", items)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	untrusted, dup := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it audit.ItemLine
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(it.Flags, audit.Duplicate) {
			dup++
		}
		if slices.ContainsFunc(it.Flags, func(f string) bool { return f != audit.Duplicate }) {
			untrusted++
		}
	}
	if dup <= untrusted {
		t.Fatalf("%d duplicates, %d untrustworthy: the example no longer shows the point", dup, untrusted)
	}
	want := fmt.Sprintf("%d with gold a verdict cannot be trusted against; %d duplicates of another item (often intended", untrusted, dup)
	if !strings.Contains(stdout, want) || strings.Contains(stdout, "flagged,") {
		t.Errorf("headline lacks %q:\n%s", want, stdout)
	}
}

// TestRun_JudgeSamplesAndPanel: --judge-samples 3 asks each question three times and
// the report states the judge's self-consistency; --judge-panel asks another model and
// the report states its agreement with the first judge and Cohen's κ.
func TestRun_JudgeSamplesAndPanel(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	models := map[string]int{}
	srv := messagesServer("", func(model string, body []byte, tool string) map[string]any {
		mu.Lock()
		seen[string(body)]++
		n := seen[string(body)]
		models[model]++
		mu.Unlock()
		if strings.Contains(tool, "grade") {
			return map[string]any{"reasoning": "graded", "score": 0.5}
		}
		verdict := "correct"
		switch {
		case bytes.Contains(body, []byte("wrong_marker")):
			verdict = "incorrect"
		case bytes.Contains(body, []byte("Singer_ID IN (4")) && (model == "claude-panel" || n == 3):
			verdict = "incorrect" // the panel disagrees; the first judge does once in three
		}
		return map[string]any{"reasoning": "judged", "verdict": verdict}
	})
	defer srv.Close()
	dir := t.TempDir()
	db, _ := filepath.Abs(exampleDir + "/database/singer/singer.sqlite")
	suitePath := writeFile(t, dir, "s.yaml", `name: ensembles
database: `+db+`
judge:
  on_exec_match: ask
cases:
  - id: "a"
    question: "How many singers are there?"
    expected_query: "SELECT count(*) FROM singer"
    generated_query: "SELECT COUNT(Singer_ID) FROM singer"
  - id: "b"
    question: "Count the singers."
    expected_query: "SELECT count(*) FROM singer"
    generated_query: "SELECT COUNT(*) FROM singer AS s"
  - id: "c"
    question: "List the singers' names."
    expected_query: "SELECT Name FROM singer"
    generated_query: "SELECT Name FROM singer WHERE Singer_ID IN (4, 5, 6)"
  - id: "d"
    question: "How many singers?"
    expected_query: "SELECT count(*) FROM singer"
    generated_query: "SELECT count(*) AS wrong_marker FROM singer"
  - id: "e"
    question: "Names of all singers."
    expected_query: "SELECT Name FROM singer"
    generated_query: "SELECT Name AS wrong_marker FROM singer WHERE Singer_ID = 1"
  - id: "f"
    question: "Number of singers?"
    expected_query: "SELECT count(*) FROM singer"
    generated_query: "SELECT count(*) FROM singer"
`)
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	jsonPath := filepath.Join(dir, "r.json")
	code := run(context.Background(), []string{"run", suitePath, "--quiet", "--no-cache", "--json", jsonPath,
		"--judge-samples", "3", "--judge-temperature", "0.7", "--judge-panel", "anthropic:claude-panel"},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	var rep qeval.Report
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Summary.JudgeConsistency
	if c == nil || c.Samples != 3 || c.Cases != 5 || c.Unanimous != 4 || math.Abs(c.MeanAgreement-(4+2.0/3)/5) > 1e-9 {
		t.Errorf("self-consistency %+v: want 3 samples on 5 cases, 4 unanimous, mean agreement 14/15", c)
	}
	if len(rep.Summary.PanelAgreement) != 1 {
		t.Fatalf("panel agreement %+v", rep.Summary.PanelAgreement)
	}
	p := rep.Summary.PanelAgreement[0]
	// first judge C C C I I, panel C C I I I: po 4/5, pe 12/25, κ = 0.32/0.52
	if p.Model != "claude-panel" || p.N != 5 || p.BothCorrect != 2 || p.FirstOnly != 1 || p.OtherOnly != 0 || p.BothWrong != 2 ||
		p.Kappa == nil || math.Abs(*p.Kappa-0.32/0.52) > 1e-9 {
		t.Errorf("panel %+v", p)
	}
	if j := rep.Run.Judge; j == nil || j.Samples != 3 || len(j.Panel) != 1 {
		t.Errorf("run judge info %+v", rep.Run.Judge)
	}
	mu.Lock()
	defer mu.Unlock()
	if models["claude-panel"] == 0 || models["claude-panel"]*3 != models[rep.Run.Judge.Model] {
		t.Errorf("requests per model %v: want three per question for the first judge, one for the panel", models)
	}
	if !strings.Contains(out.String(), "Judge self-consistency") || !strings.Contains(out.String(), "Judge panel: claude-panel") {
		t.Errorf("terminal report:\n%s", out.String())
	}
}
