package suite_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// A case may list several acceptable gold queries in every suite format (issue 38):
// YAML and JSON give expected_query as a list, JSONL too, CSV repeats the column.
func TestLoad_SeveralGolds(t *testing.T) {
	dir := t.TempDir()
	want := []string{"SELECT 1", "SELECT 2"}
	files := map[string]string{
		"s.yaml": `name: g
cases:
  - id: a
    expected_query:
      - SELECT 1
      - SELECT 2
  - id: b
    expected_query: SELECT 3
`,
		"s.json": `{"name": "g", "cases": [
  {"id": "a", "expected_query": ["SELECT 1", "SELECT 2"]},
  {"id": "b", "expected_query": "SELECT 3"}]}`,
		"s.jsonl": `{"id": "a", "expected_query": ["SELECT 1", "SELECT 2"]}
{"id": "b", "expected_query": "SELECT 3"}
`,
		"s.csv": "id,expected_query,question,expected_query\n" +
			"a,SELECT 1,q,SELECT 2\n" +
			"b,SELECT 3,q,\n",
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			path := write(t, dir, name, content)
			for _, load := range []func(string, suite.Options) (*qeval.Suite, error){suite.Load, suite.Open} {
				s, err := load(path, suite.Options{})
				if err != nil {
					t.Fatal(err)
				}
				var cases []qeval.Case
				s.EachCase(func(_ int, c qeval.Case) error { cases = append(cases, c); return nil })
				if len(cases) != 2 {
					t.Fatalf("%d cases", len(cases))
				}
				if got := cases[0].Golds(); !slices.Equal(got, want) || cases[0].ExpectedQuery != "SELECT 1" {
					t.Errorf("case a golds = %q (expected_query %q), want %q", got, cases[0].ExpectedQuery, want)
				}
				if got := cases[1].Golds(); !slices.Equal(got, []string{"SELECT 3"}) || cases[1].OtherGolds != nil {
					t.Errorf("case b golds = %q, other %q", got, cases[1].OtherGolds)
				}
			}
		})
	}
}

// An empty gold list, or one with a non-string or an empty item, is an error naming
// the file, line, case and field; every other problem is reported with it, and no
// "missing expected_query" is added for a list already reported.
func TestLoad_BadGoldLists(t *testing.T) {
	dir := t.TempDir()
	t.Run("JSONL", func(t *testing.T) {
		path := write(t, dir, "bad.jsonl", `{"id": "empty", "expected_query": []}
{"id": "num", "expected_query": ["SELECT 1", 2, {"q": 1}]}
{"id": "blank", "expected_query": ["SELECT 1", "  "]}
{"id": "scalar", "expected_query": 5}
{"id": "other", "expected_query": "SELECT 1", "tags": 5}
{"id": "ok", "expected_query": ["SELECT 1"]}
`)
		for _, load := range []func(string, suite.Options) (*qeval.Suite, error){suite.Load, suite.Open} {
			_, err := load(path, suite.Options{})
			checkProblems(t, err, 6, []string{
				path + `:1: case "empty": field expected_query is an empty list: give at least one gold query`,
				path + `:2: case "num": field expected_query: item 2 must be a string (a query), not a number`,
				path + `:2: case "num": field expected_query: item 3 must be a string (a query), not an object`,
				path + `:3: case "blank": field expected_query: item 2 is empty`,
				path + `:4: case "scalar": field expected_query must be a string or a list of strings, not a number`,
				path + `:5: case "other": field tags must be an array of strings, not a number`,
			})
		}
	})
	t.Run("YAML", func(t *testing.T) {
		path := write(t, dir, "bad.yaml", `name: bad
cases:
  - id: empty
    expected_query: []
  - id: num
    expected_query:
      - SELECT 1
      - 2
      - {q: 1}
  - id: other
    expected_query: SELECT 1
    confidence: very
`)
		_, err := suite.Load(path, suite.Options{})
		checkProblems(t, err, 4, []string{
			path + `:4: case "empty": field expected_query is an empty list: give at least one gold query`,
			path + `:8: case "num": field expected_query: item 2 must be a string (a query), not a number`,
			path + `:9: case "num": field expected_query: item 3 must be a string (a query), not an object (a mapping)`,
			`case "other": confidence must be high, medium, low or a number in [0,1]`,
		})
	})
	t.Run("JSON", func(t *testing.T) {
		path := write(t, dir, "bad.json", `{"name": "bad", "cases": [
  {"id": "n", "expected_query": ["SELECT 1", null]}]}`)
		_, err := suite.Load(path, suite.Options{})
		checkProblems(t, err, 1, []string{path + `:2: case "n": field expected_query: item 2 must be a string (a query), not null`})
	})
	t.Run("CSV", func(t *testing.T) {
		path := write(t, dir, "bad.csv", "id,expected_query,expected_query\na,,\n")
		_, err := suite.Load(path, suite.Options{})
		checkProblems(t, err, 1, []string{path + `:2: case "a": missing expected_query`})
	})
}

func checkProblems(t *testing.T, err error, n int, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if got := strings.Count(msg, "\n  - "); got != n {
		t.Errorf("%d problems, want %d:\n%s", got, n, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "missing expected_query") && n > 1 {
		t.Errorf("a reported list is also called missing:\n%s", msg)
	}
}
