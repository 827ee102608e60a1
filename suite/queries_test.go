package suite_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval/suite"
)

func TestReadQueries(t *testing.T) {
	got, err := suite.ReadQueries(strings.NewReader("SELECT 1\r\n\nSELECT 2"), "q.sql", false, "query")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Text != "SELECT 1" || got[1].Text != "" || got[2] != (suite.Query{Index: 2, Text: "SELECT 2"}) {
		t.Errorf("plain lines: %+v", got)
	}
	got, err = suite.ReadQueries(strings.NewReader(`{"sql": "SELECT 1"}`+"\n"+`{"query": 1}`+"\nnope\n"), "q.jsonl", true, "sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Text != "SELECT 1" || got[0].Err != "" {
		t.Errorf("JSONL: %+v", got)
	}
	if got[1].Err != `q.jsonl:2: no string field "sql"` || !strings.HasPrefix(got[2].Err, "q.jsonl:3: not a JSON object") {
		t.Errorf("JSONL errors: %q, %q", got[1].Err, got[2].Err)
	}
}
