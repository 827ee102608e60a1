package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarize: skips grouped by reason, most tests first, with their packages;
// a package without tests is no skip; failures named and reported.
func TestSummarize(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	failed, err := summarize(f, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := `skipped 4 tests in 2 packages:
  2 in cmd/qeval, postgres: PostgreSQL is not reachable; set QEVAL_TEST_POSTGRES
  1 in cmd/qeval: (no reason given)
  1 in cmd/qeval: python3 is not installed (Debian: apt-get install python3)
FAILED: github.com/qeval/qeval/cmd/qeval TestBroken, github.com/qeval/qeval/cmd/qeval
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if !failed {
		t.Error("a failed test is not reported as a failure")
	}
}

func TestSummarize_NothingSkipped(t *testing.T) {
	var out strings.Builder
	failed, err := summarize(strings.NewReader(`{"Action":"pass","Package":"p","Test":"TestA"}`+"\n"+"# a build line\n"), &out)
	if err != nil || failed || out.String() != "no test was skipped\n" {
		t.Errorf("got %q, failed %v, err %v", out.String(), failed, err)
	}
	if _, err := summarize(strings.NewReader("{not json\n"), &out); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a broken event: err %v", err)
	}
}
