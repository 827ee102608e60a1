package stateful_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/suite"
)

// expected is the outcome a case's expect:OUTCOME tag names.
func expected(c qeval.Case) qeval.Outcome {
	for _, t := range c.Tags {
		if o, ok := strings.CutPrefix(t, "expect:"); ok {
			return qeval.Outcome(o)
		}
	}
	return ""
}

// reasonSays is what the reason of each failing case of the example must say: the
// table or check that differs and its rows, the statement refused.
var reasonSays = map[string][]string{
	"st2":  {"table Track", "row(s) changed", "1.29"},
	"st3":  {"table Invoice", "1 row(s) removed"},
	"st4":  {"table Playlist", "1 row(s) removed", "Synthwave Mix"},
	"st7":  {"statement 1 of 2", "ATTACH"},
	"st8":  {"statement 2 of 2"},
	"st11": {"the definitions differ", "lastname"},
	"st12": {"the generated answer costs", "more than max_ratio 1.5"},
}

// TestChinookExample runs examples/chinook/stateful.yaml on SQLite and on its DuckDB
// mirror: every case ends as its expect: tag says, the failing ones say why, the
// source's SHA-256 is unchanged, no file is written outside the copies and no copy is
// left behind.
func TestChinookExample(t *testing.T) {
	dir, err := filepath.Abs("../examples/chinook")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "chinook.sqlite")
	before := hash(t, db)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	wd := t.TempDir()
	t.Chdir(wd) // a relative file an answer names would land here
	for _, target := range []string{"chinook.sqlite", "mirror:duckdb:chinook.sqlite"} {
		t.Run(target, func(t *testing.T) {
			s, err := suite.Load(filepath.Join(dir, "stateful.yaml"), suite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.Database = target
			rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: &registry.Catalog{Dir: dir, MirrorDir: t.TempDir()}, Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cases) != len(s.Cases) {
				t.Fatalf("%d cases reported, want %d", len(rep.Cases), len(s.Cases))
			}
			for i, r := range rep.Cases {
				want := expected(s.Cases[i])
				if r.Verdict == nil || r.Verdict.Outcome != want {
					t.Errorf("%s: %v (%s), want %s", r.ID, r.Verdict, r.Reason, want)
					continue
				}
				if (r.Status == qeval.StatusPass) != (want == qeval.OutcomeMatch) {
					t.Errorf("%s: status %s (%s), want PASS only for a match", r.ID, r.Status, r.Reason)
				}
				// the score of a judged data-changing answer is its state's verdict
				if judged := want == qeval.OutcomeMatch || want == qeval.OutcomeMismatch; judged &&
					(r.TotalScore == nil || (*r.TotalScore == 1) != (want == qeval.OutcomeMatch) || (*r.TotalScore != 0 && *r.TotalScore != 1)) {
					t.Errorf("%s: total score %v, want 1 for a match and 0 for a mismatch", r.ID, r.TotalScore)
				}
				for _, s := range reasonSays[r.ID] {
					if !strings.Contains(r.Reason, s) {
						t.Errorf("%s: the reason does not say %q: %s", r.ID, s, r.Reason)
					}
				}
			}
		})
	}
	if hash(t, db) != before {
		t.Error("chinook.sqlite changed")
	}
	for _, d := range []string{wd, dir} {
		for _, f := range []string{"stolen-genres.sqlite", "stolen-chinook.sqlite"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				t.Errorf("an answer wrote %s", filepath.Join(d, f))
			}
		}
	}
	noCopiesLeft(t, tmp)
}
