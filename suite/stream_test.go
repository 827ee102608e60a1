package suite_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

const streamJSONL = `{"id": "a", "expected_query": "SELECT 1", "generated_query": "SELECT 1", "database": "db1"}

// a comment line
{"expected_query": "SELECT 2", "generated_query": "SELECT 3", "tags": ["x"]}
{"id": "c", "expected_query": "SELECT 4", "confidence": 0.25}
`

// Open streams a JSONL suite: the cases are not held, and each walk reads the same cases
// Load would hold (ids filled in, lines kept); other formats are loaded as Load does.
func TestOpen_StreamsJSONL(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "s.jsonl", streamJSONL)
	held, err := suite.Load(path, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := suite.Open(path, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Stream == nil || s.Cases != nil || s.NumCases() != 3 || s.Name != "s" || s.Path != path {
		t.Fatalf("streamed suite: stream %v, %d held, %d cases, name %q", s.Stream != nil, len(s.Cases), s.NumCases(), s.Name)
	}
	for walk := 0; walk < 2; walk++ {
		var got []qeval.Case
		if err := s.EachCase(func(i int, c qeval.Case) error {
			if i != len(got) {
				t.Errorf("case %d numbered %d", len(got), i)
			}
			got = append(got, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, held.Cases) {
			t.Errorf("walk %d: %+v, want %+v", walk, got, held.Cases)
		}
	}
	// fn's error stops the walk and is returned as it is
	stop := errors.New("stop")
	n := 0
	if err := s.EachCase(func(int, qeval.Case) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("stopped walk: %v after %d cases", err, n)
	}
	if err := s.HoldCases(); err != nil || s.Stream != nil || !reflect.DeepEqual(s.Cases, held.Cases) {
		t.Errorf("HoldCases: %v, %+v", err, s.Cases)
	}
	// CSV too
	csvPath := write(t, dir, "c.csv", "id,expected_query,tags,confidence\nx,SELECT 1,a;b,high\n,SELECT 2,,0.5\n")
	heldCSV, err := suite.Load(csvPath, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := suite.Open(csvPath, suite.Options{})
	if err != nil || c.Stream == nil || c.NumCases() != 2 {
		t.Fatalf("CSV: %v, %+v", err, c)
	}
	if err := c.HoldCases(); err != nil || !reflect.DeepEqual(c.Cases, heldCSV.Cases) {
		t.Errorf("CSV cases %+v (%v), want %+v", c.Cases, err, heldCSV.Cases)
	}
	if _, err := suite.Open(write(t, dir, "bad.csv", "id,expected_query,nope\nx,SELECT 1,\n,\n"), suite.Options{}); err == nil ||
		!strings.Contains(err.Error(), `unknown column "nope"`) || !strings.Contains(err.Error(), `:3: case "2": missing expected_query`) {
		t.Errorf("bad CSV: %v", err)
	}
	// blank lines before the header: a problem in it names the header's own line
	if _, err := suite.Open(write(t, dir, "blank.csv", "\n\nid,expected_query,nope\nx,SELECT 1,\n"), suite.Options{}); err == nil ||
		!strings.Contains(err.Error(), `:3: unknown column "nope"`) {
		t.Errorf("CSV with blank lines before its header: %v", err)
	}
	y, err := suite.Open(write(t, dir, "s.yaml", goodYAML), suite.Options{})
	if err != nil || y.Stream != nil || len(y.Cases) == 0 {
		t.Errorf("a YAML suite is loaded: %+v, %v", y, err)
	}
}

// Open finds every problem of a JSONL file in its first pass, as Load does, and a file
// changed after it was checked stops the walk with an error that says so.
func TestOpen_ProblemsAndChangedFile(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.jsonl", `{"id": "a", "expected_query": "SELECT 1", "expectd": 1}
{"id": "a", "expected_query": "SELECT 1"}
not json
{"id": "d"}
`)
	_, err := suite.Open(bad, suite.Options{})
	for _, want := range []string{bad + `:1: case "a": unknown case field "expectd"`, bad + `:2: case "a": duplicate id (first used on line 1)`,
		bad + `:3: not a JSON object`, bad + `:4: case "d": missing expected_query`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
	if _, err := suite.Open(write(t, dir, "empty.jsonl", "\n// nothing\n"), suite.Options{}); err == nil || !strings.Contains(err.Error(), "the suite has no cases") {
		t.Errorf("empty suite: %v", err)
	}
	if _, err := suite.Open(dir+"/missing.jsonl", suite.Options{}); qeval.ErrorCode(err) != qeval.CodeNotFound {
		t.Errorf("missing file: %v", err)
	}

	path := write(t, dir, "s.jsonl", streamJSONL)
	s, err := suite.Open(path, suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, changed := range []string{streamJSONL + "{\"id\": \"d\", \"expected_query\": \"SELECT 5\"}\n", strings.Replace(streamJSONL, `"id": "c"`, `"id": 5, "idd": 1`, 1)} {
		write(t, dir, "s.jsonl", changed)
		n := 0
		err := s.EachCase(func(int, qeval.Case) error { n++; return nil })
		if err == nil || !strings.Contains(err.Error(), "the file changed since the run started") {
			t.Errorf("after the file changed: %v (%d cases walked)", err, n)
		}
	}
}
