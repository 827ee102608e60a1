package suite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodYAML = `name: smoke
dialect: sql
database: db.sqlite
mode: bag
threshold: 0.8
weights: {schema_match: 0.5, semantic_similarity: 0.5, results_match: 0, llm_grading: 0}
timeout: 5s
concurrency: 2
cases:
  - id: c1
    question: How many customers are from Brazil?
    expected_query: SELECT count(*) FROM Customer WHERE Country = 'Brazil'
    expected_tables: [Customer]
    should_pass: true
    tags: [easy]
    generated_query: SELECT COUNT(*) FROM customer WHERE country = 'Brazil'
    confidence: high
    validator: {safety_valid: true, is_valid: true, errors: []}
  - question: second
    expected_query: SELECT 1
    confidence: 0.35
`

func TestLoad_YAML(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "db.sqlite", "x")
	s, err := suite.Load(write(t, dir, "suite.yaml", goodYAML), suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "smoke" || s.Mode != "bag" || *s.Threshold != 0.8 || s.Concurrency != 2 || len(s.Cases) != 2 {
		t.Fatalf("suite = %+v", s)
	}
	c := s.Cases[0]
	if c.ID != "c1" || *c.GeneratedQuery != "SELECT COUNT(*) FROM customer WHERE country = 'Brazil'" || c.Confidence.Level != "high" ||
		!*c.Validator.SafetyValid || !*c.ShouldPass || c.Line != 10 || c.Tags[0] != "easy" {
		t.Errorf("case 1 = %+v", c)
	}
	if s.Cases[1].ID != "2" || *s.Cases[1].Confidence.Value != 0.35 || s.Cases[1].GeneratedQuery != nil {
		t.Errorf("case 2 = %+v", s.Cases[1])
	}
	if got := suite.Dir(s); got != dir {
		t.Errorf("suite.Dir = %s, want %s", got, dir)
	}
}

// Databases are resolved by a catalog after parsing (parsing touches no file): every
// name the catalog cannot resolve is reported at once, with its line and case id.
func TestCheck_UnknownDatabases(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "here.sqlite", "")
	path := write(t, dir, "s.yaml", `name: s
database: missing.sqlite
cases:
  - id: a
    expected_query: SELECT 1
  - id: b
    expected_query: SELECT 2
    database: nowhere.sqlite
  - id: c
    expected_query: SELECT 3
    database: pg
`)
	s, err := suite.Load(path, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = suite.Check(context.Background(), s, &registry.Catalog{Dir: dir, Connections: map[string]string{"pg": "postgres://u@127.0.0.1:1/x"}})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"2 problems",
		path + `: database "missing.sqlite": unknown database "missing.sqlite": no such file or folder`,
		path + `:6: case "b": database "nowhere.sqlite": unknown database "nowhere.sqlite": no such file or folder`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, `"pg"`) {
		t.Errorf("a configured connection is not a missing file:\n%s", msg)
	}
	// a server's catalog knows only its names: a path is refused
	err = suite.Check(context.Background(), s, &registry.Catalog{NamesOnly: true, Connections: map[string]string{"pg": "postgres://u@127.0.0.1:1/x"}})
	if err == nil || !strings.Contains(err.Error(), `unknown database "missing.sqlite" (known: pg)`) {
		t.Errorf("names only: %v", err)
	}
}

// Every problem of a suite is reported at once, with its line and case id.
func TestLoad_AllProblems(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "bad.yaml", `name: bad
databse: x.sqlite
threshold: 1.5
cases:
  - id: a
    expected_query: SELECT 1
    expeted_tables: [t]
  - id: a
    expected_query: SELECT 2
  - id: b
    question: no gold here
  - id: c
    expected_query: SELECT 3
    database: nowhere.sqlite
  - id: d
    expected_query: SELECT 4
    confidence: very
`)
	_, err := suite.Load(path, suite.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"6 problems",
		path + `:2: unknown suite field "databse"`,
		"threshold 1.5 is outside [0, 1]",
		path + `:7: case "a": unknown case field "expeted_tables"`,
		path + `:8: case "a": duplicate id (first used on line 5)`,
		path + `:10: case "b": missing expected_query`,
		`case "d": confidence must be high, medium, low or a number in [0,1]`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if qeval.ErrorCode(err) != qeval.CodeInvalid || qeval.ErrorHint(err) == "" {
		t.Errorf("code %s hint %q", qeval.ErrorCode(err), qeval.ErrorHint(err))
	}
}

func TestLoad_JSON(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "s.json", `{
  "name": "j",
  "cases": [
    {"id": "x", "expected_query": "SELECT 1", "generated_query": "SELECT 1", "confidence": 0.9},
    {"id": "y", "expected_query": "SELECT 2", "bogus": true}
  ]
}`)
	_, err := suite.Load(path, suite.Options{})
	if err == nil || !strings.Contains(err.Error(), path+`:5: case "y": unknown case field "bogus"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoad_JSONLAndCSV(t *testing.T) {
	dir := t.TempDir()
	jl := write(t, dir, "s.jsonl", `{"id": "1", "expected_query": "SELECT 1", "tags": ["a"]}

{"id": "2", "expected_query": "SELECT 2", "generated_query": "SELECT 3", "confidence": "low"}
not json
`)
	_, err := suite.Load(jl, suite.Options{})
	if err == nil || !strings.Contains(err.Error(), jl+":4: not a JSON object") {
		t.Fatalf("err = %v", err)
	}
	csvPath := write(t, dir, "s.csv", "id,question,expected_query,expected_tables,tags,generated_query,confidence,safety_valid,is_valid,validator_errors,should_pass\n"+
		"q1,How many?,SELECT count(*) FROM t,t;u,easy|join,SELECT count(*) FROM t,medium,true,false,Table 'u' does not exist,true\n"+
		"q2,Other,\"SELECT a, b FROM t\",,,,,,,,\n")
	s, err := suite.Load(csvPath, suite.Options{Defaults: qeval.Suite{Dialect: "sql"}})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	if len(s.Cases) != 2 || c.ExpectedTables[1] != "u" || c.Tags[1] != "join" || c.Confidence.Level != "medium" ||
		*c.Validator.IsValid || c.Validator.Errors[0] != "Table 'u' does not exist" || c.Line != 2 || s.Dialect != "sql" {
		t.Errorf("csv suite = %+v / %+v", s, c)
	}
	if s.Cases[1].ExpectedQuery != "SELECT a, b FROM t" || s.Cases[1].Validator != nil {
		t.Errorf("case 2 = %+v", s.Cases[1])
	}
}

// TestLoad_JSONLLines checks each line's problems: a numeric id is kept as written,
// and an unknown key or a value of the wrong type names the line, the case and the field.
func TestLoad_JSONLLines(t *testing.T) {
	dir := t.TempDir()
	ok := write(t, dir, "ok.jsonl", `{"id": 7, "expected_query": "SELECT 1", "generated_query": "SELECT 1", "confidence": 0.5, "validator": {"is_valid": true}}`+"\n")
	s, err := suite.Load(ok, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Cases[0]; c.ID != "7" || *c.GeneratedQuery != "SELECT 1" || *c.Confidence.Value != 0.5 || !*c.Validator.IsValid || c.Line != 1 {
		t.Errorf("case = %+v", c)
	}
	bad := write(t, dir, "bad.jsonl", `{"id": "a", "expected_query": "SELECT 1", "expectd": 1}
{"id": "b", "expected_query": "SELECT 1", "tags": 5}
`)
	_, err = suite.Load(bad, suite.Options{})
	for _, want := range []string{bad + `:1: case "a": unknown case field "expectd"`, bad + `:2: case "b": field tags must be an array of strings, not a number`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
}

func TestLoad_MissingFileAndFormat(t *testing.T) {
	_, err := suite.Load("/nonexistent/suite.yaml", suite.Options{})
	if qeval.ErrorCode(err) != qeval.CodeNotFound || !strings.Contains(err.Error(), "/nonexistent/suite.yaml") {
		t.Errorf("err = %v", err)
	}
	_, err = suite.Load(write(t, t.TempDir(), "s.txt", "x"), suite.Options{})
	if err == nil || !strings.Contains(err.Error(), "unknown suite format .txt") {
		t.Errorf("err = %v", err)
	}
}

func TestLoad_SpiderAndNL2KQL(t *testing.T) {
	dir := t.TempDir()
	dev := write(t, dir, "dev.json", `[{"db_id": "concert_singer", "question": "How many singers?", "query": "SELECT count(*) FROM singer", "sql": {}},
 {"db_id": "pets_1", "question": "How many pets?", "query": "SELECT count(*) FROM pets"}]`)
	if _, err := suite.Load(dev, suite.Options{}); err == nil || !strings.Contains(err.Error(), "--spider-db") {
		t.Errorf("without the database folder: %v", err)
	}
	s, err := suite.Load(dev, suite.Options{SpiderDB: "../examples/spider/database"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 || s.Mode != "spider-ts" || s.Cases[1].ID != "1" || s.Cases[1].Tags[0] != "pets_1" ||
		!strings.HasSuffix(s.Cases[1].Database, filepath.Join("examples", "spider", "database", "pets_1")) {
		t.Errorf("spider suite = %+v", s)
	}
	nl := write(t, dir, "Defender.jsonl", `{"context": "Show device events of the last week", "baseline": "DeviceEvents | where Timestamp > ago(7d)"}
{"context": "broken"}
`)
	_, err = suite.Load(nl, suite.Options{})
	if err == nil || !strings.Contains(err.Error(), nl+`:2: want a JSON object with "context" and "baseline"`) {
		t.Errorf("nl2kql bad line: %v", err)
	}
	nl = write(t, dir, "ok.jsonl", `{"context": "Show device events of the last week", "baseline": "DeviceEvents | where Timestamp > ago(7d)"}`+"\n")
	s, err = suite.Load(nl, suite.Options{})
	if err != nil || s.Dialect != "kql" || s.Cases[0].ID != "1" || s.Cases[0].ExpectedQuery != "DeviceEvents | where Timestamp > ago(7d)" {
		t.Errorf("nl2kql = %+v, %v", s, err)
	}
}

// A JSONL suite with a line over 16 MB reads every line after it (a line scanner once
// stopped there, its error unchecked, and the run exited 0 with the rest lost); the
// long line is a problem that names it, read past rather than held (a 200 MB line cost
// 1 GB), and so is a problem after it.
func TestLoad_JSONLLongLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 17<<20)
	data := `{"id": "a", "expected_query": "SELECT 1"}` + "\n" +
		`{"id": "big", "expected_query": "SELECT '` + long + `'"}` + "\n" +
		`{"id": "c", "expected_query": "SELECT 3"}` + "\n" + "not json\n"
	path := write(t, dir, "s.jsonl", data)
	for name, load := range map[string]func(string, suite.Options) (*qeval.Suite, error){"Load": suite.Load, "Open": suite.Open} {
		_, err := load(path, suite.Options{})
		if err == nil || !strings.Contains(err.Error(), path+":2: the line is longer than 8388608 bytes") || !strings.Contains(err.Error(), path+":4:") {
			t.Errorf("%s: %v, want the long line 2 and the bad line 4 named", name, err)
		}
	}
}

// A YAML syntax error names the line that broke the document, not the line where the
// construct the parser was reading began (issue 46: an indentation slip on line 10
// was reported at line 3 or 4).
func TestLoad_YAMLSyntaxErrorLine(t *testing.T) {
	dir := t.TempDir()
	head := "name: x\ndatabase: db.sqlite\ncases:\n  - id: a\n    question: q\n    expected_query: SELECT 1\n    generated_query: SELECT 1\n  - id: b\n    question: q2\n"
	for _, tc := range []struct{ name, line10, want string }{
		{"outdented", "   expected_query: SELECT 2\n", "s.yaml:10: did not find expected '-' indicator"},
		{"indented", "      expected_query: SELECT 2\n", "s.yaml:10: mapping values are not allowed in this context"},
		{"tab", "\texpected_query: SELECT 2\n", "s.yaml:10: found a tab character that violates indentation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, dir, "s.yaml", head+tc.line10+"    generated_query: SELECT 2\n  - id: c\n    question: q3\n")
			_, err := suite.Load(path, suite.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
