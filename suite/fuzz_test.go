package suite_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// FuzzParse: no suite text, in any of the formats, panics the loader; a suite it
// accepts has cases that each have an id and an expected query.
func FuzzParse(f *testing.F) {
	f.Add("s.yaml", goodYAML)
	f.Add("s.json", `{"name": "j", "cases": [{"id": "x", "expected_query": "SELECT 1", "confidence": 0.9}]}`)
	f.Add("s.jsonl", `{"id": "1", "expected_query": "SELECT 1", "tags": ["a"]}`)
	f.Add("s.csv", "id,expected_query,confidence\nq1,SELECT 1,high\n")
	f.Add("dev.json", `[{"db_id": "x", "question": "q", "query": "SELECT 1"}]`)
	f.Add("d.jsonl", `{"context": "q", "baseline": "T | take 1"}`)
	f.Add("s.yaml", "cases:\n  - &a {id: x, expected_query: y}\n  - *a\n")
	f.Fuzz(func(t *testing.T, name, data string) {
		s, err := suite.Parse(name, []byte(data), suite.Options{SpiderDB: t.TempDir(), Defaults: qeval.Suite{}})
		if err != nil {
			return
		}
		for _, c := range s.Cases {
			if c.ID == "" || c.ExpectedQuery == "" {
				t.Fatalf("accepted a case without id or expected query: %+v", c)
			}
		}
	})
}
