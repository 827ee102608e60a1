package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qeval/qeval"
)

// malloySuite writes a Malloy suite over the bundled concert_singer database and the
// example's model into a temporary folder, with extra model files, and returns its
// path.
func malloySuite(t *testing.T, cases string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("..", "..", "examples", "malloy", "concert_singer.malloy"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "concert_singer.malloy", string(model))
	for name, text := range files {
		writeFile(t, dir, name, text)
	}
	db, err := filepath.Abs(filepath.Join("..", "..", "examples", "spider", "database", "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	suite := `name: malloy-outcomes
dialect: malloy
database: ` + db + `
malloy_model:
  files: [concert_singer.malloy]
  connection: mirror:duckdb
cases:
` + cases
	return writeFile(t, dir, "suite.yaml", suite)
}

func caseByID(t *testing.T, rep *qeval.Report, id string) qeval.CaseResult {
	t.Helper()
	for _, c := range rep.Cases {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %q in the report", id)
	return qeval.CaseResult{}
}

// TestMalloy_Outcomes checks how each kind of Malloy answer ends: a syntax error and
// an unknown field are compile errors with their line and column, the field named; a
// model that is missing, does not compile or reads a table the database lacks makes
// its case an ERROR that says so, while the other cases run; a Malloy gold is compiled
// too, and the metrics compare sources and see a re-derived measure.
func TestMalloy_Outcomes(t *testing.T) {
	needNode(t)
	path := malloySuite(t, `
  - id: syntax
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: singer -> { aggregate: singer_count "
  - id: unknown-field
    expected_query: SELECT name FROM singer
    generated_query: "run: singer -> {\n  select: Nmae\n}"
  - id: missing-model
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: singer -> { aggregate: singer_count }"
    malloy_model: {files: [nope.malloy], connection: mirror:duckdb}
  - id: broken-model
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: s -> { aggregate: n }"
    malloy_model: {files: [broken.malloy], connection: mirror:duckdb}
  - id: absent-table
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: s -> { aggregate: n }"
    malloy_model: {files: [absent.malloy], connection: mirror:duckdb}
  - id: malloy-gold
    expected_query: "run: singer -> { aggregate: singer_count }"
    generated_query: "run: singer -> { aggregate: n is count() }"
  - id: sql-answer
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT count(*) FROM singer
`, map[string]string{
		"broken.malloy": "source: s is duckdb.table('singer') extend {\n  measure: n is count(\n}\n",
		"absent.malloy": "source: s is duckdb.table('singers') extend { measure: n is count() }\n",
	})
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := runCLI(t, "", "run", path, "--quiet", "--judge", "none", "--json", out)
	if code != exitOK {
		t.Fatalf("qeval run = %d\n%s", code, stderr)
	}
	rep := readReport(t, out)

	for _, tc := range []struct {
		id        string
		line, col int
		want      string
	}{
		{"syntax", 1, 42, "syntax error"},
		{"unknown-field", 2, 11, "unknown field or join 'Nmae'"},
	} {
		c := caseByID(t, rep, tc.id)
		v := c.Verdict
		if c.Status != qeval.StatusFail || v == nil || v.Outcome != qeval.OutcomeCompileError {
			t.Errorf("%s: %s %+v, want FAIL with compile_error", tc.id, c.Status, v)
			continue
		}
		if v.ErrorLine != tc.line || v.ErrorCol != tc.col || !strings.Contains(v.Error, tc.want) {
			t.Errorf("%s: line %d col %d %q, want line %d col %d with %q", tc.id, v.ErrorLine, v.ErrorCol, v.Error, tc.line, tc.col, tc.want)
		}
		if r := c.Metrics["malloy_structure"]; r.Skipped == nil {
			t.Errorf("%s: malloy_structure %+v, want skipped (nothing compiled)", tc.id, r)
		}
	}
	for id, want := range map[string]string{
		"missing-model": "nope.malloy: no such file",
		"broken-model":  "broken.malloy:3:1",
		"absent-table":  "table 'singers' is not in",
	} {
		c := caseByID(t, rep, id)
		if c.Status != qeval.StatusError || !strings.Contains(c.Reason, want) {
			t.Errorf("%s: %s %q, want ERROR with %q", id, c.Status, c.Reason, want)
		}
	}

	g := caseByID(t, rep, "malloy-gold")
	if g.Status != qeval.StatusPass || g.Compiled == nil || g.Compiled.ExpectedSQL == "" {
		t.Fatalf("malloy-gold: %s %q %+v, want PASS with the gold compiled", g.Status, g.Reason, g.Compiled)
	}
	ms := g.Metrics["malloy_structure"]
	if ms.Score == nil || *ms.Score != 1 || ms.Details["against"] != "malloy" || ms.Details["source"] != 1.0 {
		t.Errorf("malloy-gold: malloy_structure %+v, want 1 against the Malloy gold", ms)
	}
	if ta := g.Metrics["table_accuracy"]; ta.Score == nil || *ta.Score != 1 {
		t.Errorf("malloy-gold: table_accuracy %+v, want 1 (the same source)", ta)
	}
	mr := g.Metrics["model_reuse"]
	if mr.Score == nil || *mr.Score != 0 || !strings.Contains(strings.ToLower(toJSON(t, mr.Details)), "singer_count") {
		t.Errorf("malloy-gold: model_reuse %+v, want 0 naming singer_count (count() re-derived)", mr)
	}

	s := caseByID(t, rep, "sql-answer")
	if s.Status != qeval.StatusPass || s.Compiled != nil {
		t.Errorf("sql-answer: %s %q, want PASS as SQL", s.Status, s.Reason)
	}
}

// TestMalloy_NoNode: without Node.js, Malloy cases are unscorable with a message that
// says what to install, and a SQL answer of the same run is scored as usual.
func TestMalloy_NoNode(t *testing.T) {
	path := malloySuite(t, `
  - id: malloy
    expected_query: SELECT count(*) FROM singer
    generated_query: "run: singer -> { aggregate: singer_count }"
  - id: sql
    expected_query: SELECT count(*) FROM singer
    generated_query: SELECT count(*) FROM singer
`, nil)
	t.Setenv("PATH", t.TempDir()) // no node on it
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := runCLI(t, "", "run", path, "--quiet", "--judge", "none", "--json", out)
	if code != exitOK {
		t.Fatalf("qeval run = %d\n%s", code, stderr)
	}
	rep := readReport(t, out)
	m := caseByID(t, rep, "malloy")
	if m.Status != qeval.StatusUnscorable || !strings.Contains(m.Reason, "Node.js") || !strings.Contains(m.Reason, "apt-get install nodejs npm") {
		t.Errorf("malloy: %s %q, want UNSCORABLE saying to install Node.js", m.Status, m.Reason)
	}
	if s := caseByID(t, rep, "sql"); s.Status != qeval.StatusPass {
		t.Errorf("sql: %s %q, want PASS", s.Status, s.Reason)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMalloy_TargetLoop runs the NL→Malloy loop: qeval run asks the example target
// (examples/malloy/nl2malloy, built here) for each case's Malloy, the target asks an
// LLM (an Anthropic stand-in speaking its wire format) given the model and the
// question, and the answers are compiled and scored like any.
func TestMalloy_TargetLoop(t *testing.T) {
	needNode(t)
	bin := filepath.Join(t.TempDir(), "nl2malloy")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/malloy/nl2malloy").CombinedOutput(); err != nil {
		t.Fatalf("go build nl2malloy: %v\n%s", err, out)
	}
	var calls atomic.Int32
	srv := messagesServer("sk-test-secret", func(_ string, body []byte, _ string) map[string]any {
		calls.Add(1)
		if !strings.Contains(string(body), "singer_count is count()") {
			t.Errorf("the target did not send the model:\n%s", body)
		}
		if strings.Contains(string(body), "each country") {
			return map[string]any{"query": "run: singer -> { group_by: Country; aggregate: singer_count }"}
		}
		return map[string]any{"query": "run: singer -> { aggregate: singer_count }"}
	})
	t.Cleanup(srv.Close)
	path := malloySuite(t, `
  - id: how-many
    question: How many singers do we have?
    expected_query: SELECT count(*) FROM singer
  - id: per-country
    question: How many singers are from each country?
    expected_query: SELECT country, count(*) FROM singer GROUP BY country
`, nil)
	t.Setenv("ANTHROPIC_API_KEY", "sk-test-secret")
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := runCLI(t, "", "run", path, "--quiet", "--judge", "none", "--json", out,
		"--target-command", bin+" --provider anthropic --base-url "+srv.URL)
	if code != exitOK {
		t.Fatalf("qeval run = %d\n%s", code, stderr)
	}
	rep := readReport(t, out)
	for _, c := range rep.Cases {
		if c.Status != qeval.StatusPass || c.Target == nil || c.Target.Kind != "command" || !strings.HasPrefix(c.GeneratedQuery, "run: singer") {
			t.Errorf("%s: %s %q (target %+v, query %q), want PASS from the command target", c.ID, c.Status, c.Reason, c.Target, c.GeneratedQuery)
		}
	}
	if calls.Load() != 2 {
		t.Errorf("%d LLM calls, want 2", calls.Load())
	}
}

// TestMalloy_ExecJSON checks that qeval exec --dialect malloy --json prints the result
// of the compiled query with the SQL that ran, and a compile error with its position.
func TestMalloy_ExecJSON(t *testing.T) {
	needNode(t)
	model, err := filepath.Abs(filepath.Join("..", "..", "examples", "malloy", "concert_singer.malloy"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := filepath.Abs(filepath.Join("..", "..", "examples", "spider", "database", "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "exec", "--dialect", "malloy", "--model", model, "--db", "mirror:duckdb:"+db,
		"--json", "--query", "run: singer -> { aggregate: n is count() }")
	if code != exitOK {
		t.Fatalf("exec = %d\n%s%s", code, stdout, stderr)
	}
	var out struct {
		Rows [][]json.RawMessage `json:"rows"`
		SQL  string              `json:"sql"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(out.Rows) != 1 || string(out.Rows[0][0]) != "6" {
		t.Errorf("rows = %s, want [[6]]", stdout)
	}
	if !strings.Contains(strings.ToUpper(out.SQL), "COUNT(") || !strings.Contains(out.SQL, "singer") {
		t.Errorf("sql = %q, want the compiled count over singer", out.SQL)
	}
	code, stdout, _ = runCLI(t, "", "exec", "--dialect", "malloy", "--model", model, "--db", "mirror:duckdb:"+db,
		"--json", "--query", "run: singer -> { aggregate: ")
	if code != exitFailed || !strings.Contains(stdout, `"line"`) || strings.Contains(stdout, `"sql"`) {
		t.Errorf("a compile error: exit %d, %s; want exit %d with a line and no sql", code, stdout, exitFailed)
	}
}

// TestMalloy_SeveralGolds checks that a Malloy case with several golds, SQL and Malloy,
// tries each in turn: the answer matching the second passes and says which matched; an
// answer matching none fails against the first.
func TestMalloy_SeveralGolds(t *testing.T) {
	needNode(t)
	path := malloySuite(t, `
  - id: second-matches
    expected_query:
      - SELECT count(*) FROM stadium
      - "run: singer -> { aggregate: singer_count }"
    generated_query: "run: singer -> { aggregate: n is count() }"
  - id: none-matches
    expected_query:
      - SELECT count(*) FROM stadium
      - "run: singer -> { aggregate: singer_count }"
    generated_query: "run: singer_in_concert -> { aggregate: n is count() }"
`, nil)
	out := filepath.Join(t.TempDir(), "report.json")
	if code, _, stderr := runCLI(t, "", "run", path, "--quiet", "--judge", "none", "--json", out); code != exitOK && code != exitThreshold {
		t.Fatalf("qeval run = %d\n%s", code, stderr)
	}
	rep := readReport(t, out)
	c := caseByID(t, rep, "second-matches")
	if c.Verdict == nil || !c.Verdict.Match || c.MatchedGold != 2 || c.Compiled == nil || c.Compiled.ExpectedSQL == "" {
		t.Errorf("second-matches: verdict %+v, matched gold %d, compiled %+v; want a match on gold 2 with its compiled SQL", c.Verdict, c.MatchedGold, c.Compiled)
	}
	c = caseByID(t, rep, "none-matches")
	if c.Verdict == nil || c.Verdict.Match || c.MatchedGold != 0 || c.ExpectedQuery != "SELECT count(*) FROM stadium" {
		t.Errorf("none-matches: verdict %+v, matched gold %d, expected %q; want a mismatch against the first gold", c.Verdict, c.MatchedGold, c.ExpectedQuery)
	}
}
