package kql_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/kql"
)

// corpusQuery is one KQL text of a visible corpus, with where it came from.
type corpusQuery struct {
	File string
	Line int
	KQL  string
}

// dataDir returns <module root>/../shared/data/kql, or skips the test when it is
// absent.
func dataDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", "kql")
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("shared KQL data not found at %s (it lives beside the repository): %v", dir, err)
	}
	if err := testdata.CheckShared(filepath.Dir(dir)); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// corpora lists the visible corpora and the JSON field that holds the KQL text.
var corpora = []struct {
	Path  string
	Field string
}{
	{"samples/community_samples.jsonl", "kql"},
	{"samples/stormevents_queries.jsonl", "kql"},
	{"nl2kql/Defender_Evaluation.jsonl", "baseline"},
	{"oracle/docs_emulator_cases.jsonl", "kql"},
}

// loadCorpus reads the KQL texts of one JSONL corpus.
func loadCorpus(tb testing.TB, dir, path, field string) []corpusQuery {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, path))
	if err != nil {
		tb.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []corpusQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatalf("%s:%d: %v", path, line, err)
		}
		q, _ := rec[field].(string)
		if q == "" {
			tb.Fatalf("%s:%d: no %q field", path, line, field)
		}
		out = append(out, corpusQuery{File: path, Line: line, KQL: q})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	return out
}

// TestParseCorpora parses every visible corpus (all of which Microsoft's parser
// accepts) and fails below a 99.5% parse rate per corpus, printing the failures.
func TestParseCorpora(t *testing.T) {
	dir := dataDir(t)
	for _, c := range corpora {
		t.Run(filepath.Base(c.Path), func(t *testing.T) {
			qs := loadCorpus(t, dir, c.Path, c.Field)
			var failed []string
			for _, q := range qs {
				if _, err := kql.Parse(q.KQL); err != nil {
					failed = append(failed, q.File+":"+itoa(q.Line)+":\n"+err.Error()+"\n--- query ---\n"+q.KQL)
				}
			}
			rate := float64(len(qs)-len(failed)) / float64(len(qs))
			t.Logf("%s: parsed %d/%d (%.2f%%)", c.Path, len(qs)-len(failed), len(qs), 100*rate)
			if rate < 0.995 || testing.Verbose() && len(failed) > 0 {
				for _, f := range failed {
					t.Log(f)
				}
			}
			if rate < 0.995 {
				t.Errorf("parse rate %.2f%% < 99.5%% on %s", 100*rate, c.Path)
			}
		})
	}
}

func itoa(n int) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestFormatRoundTrip checks on every corpus query that Format's output parses again
// and formats to the same text, which shows the tree keeps every part of the query.
func TestFormatRoundTrip(t *testing.T) {
	dir := dataDir(t)
	for _, c := range corpora {
		for _, q := range loadCorpus(t, dir, c.Path, c.Field) {
			s, err := kql.Parse(q.KQL)
			if err != nil {
				continue // counted by TestParseCorpora
			}
			once := kql.Format(s)
			s2, err := kql.Parse(once)
			if err != nil {
				t.Errorf("%s:%d: formatted query does not parse: %v\n--- formatted ---\n%s", q.File, q.Line, err, once)
				continue
			}
			if twice := kql.Format(s2); twice != once {
				t.Errorf("%s:%d: Format is not stable:\n--- once ---\n%s\n--- twice ---\n%s", q.File, q.Line, once, twice)
			}
		}
	}
}
