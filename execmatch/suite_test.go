package execmatch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
)

// mustSuiteDir builds a test-suite folder: two databases with the same schema and
// different rows (in a.sqlite only singers 1 and 2 are older than 30; b.sqlite adds an
// older one), plus a file that is not a database and must be ignored.
func mustSuiteDir(tb testing.TB) (dir, a, b string) {
	tb.Helper()
	dir = tb.TempDir()
	base := append([]string(nil), singerSchema...)
	a = mustBuildDB(tb, dir, "a.sqlite", append(base,
		`INSERT INTO singer VALUES (1, 'Joe', 'France', 52, 1.0), (2, 'Tim', 'France', 32, 2.0), (3, 'Ann', 'Peru', 29, 3.0)`)...)
	b = mustBuildDB(tb, dir, "b.sqlite", append(base,
		`INSERT INTO singer VALUES (1, 'Joe', 'France', 52, 1.0), (2, 'Tim', 'France', 32, 2.0), (3, 'Ann', 'Peru', 61, 3.0)`)...)
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not a database"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, a, b
}

// TestMatch_TestSuiteFolder: a prediction matches a folder only if it matches on every
// database in it.
func TestMatch_TestSuiteFolder(t *testing.T) {
	dir, a, b := mustSuiteDir(t)
	gold := "SELECT name FROM singer WHERE age > 30"
	t.Run("MatchesOnOneOnly", func(t *testing.T) {
		pred := "SELECT name FROM singer WHERE singer_id IN (1, 2)"
		if v := execmatch.Match(context.Background(), a, pred, gold, spiderOpts(execmatch.Options{})); !v.Match {
			t.Fatalf("on a.sqlite alone: %s %s, want match (the premise of this test)", v.Outcome, v.Error)
		}
		v := execmatch.Match(context.Background(), dir, pred, gold, spiderOpts(execmatch.Options{}))
		if v.Match || v.Outcome != qeval.OutcomeMismatch {
			t.Fatalf("on the folder: %s, want mismatch", v.Outcome)
		}
		if v.Database != b {
			t.Errorf("Database=%q, want %q (where the results differed)", v.Database, b)
		}
	})
	t.Run("MatchesOnBoth", func(t *testing.T) {
		v := execmatch.Match(context.Background(), dir, "SELECT name FROM singer WHERE age >= 31", gold, spiderOpts(execmatch.Options{}))
		if !v.Match || v.Outcome != qeval.OutcomeMatch {
			t.Fatalf("on the folder: %s %s, want match", v.Outcome, v.Error)
		}
		if v.Database != b {
			t.Errorf("Database=%q, want the last one compared, %q", v.Database, b)
		}
	})
	t.Run("FailsOnOneOnly", func(t *testing.T) {
		// b.sqlite lacks the concert table; a.sqlite has it.
		dir := t.TempDir()
		mustBuildDB(t, dir, "a.sqlite", singerSchema...)
		mustBuildDB(t, dir, "b.sqlite", singerSchema[0])
		v := execmatch.Match(context.Background(), dir, "SELECT count(*) FROM concert", "SELECT 0", spiderOpts(execmatch.Options{}))
		if v.Outcome != qeval.OutcomePredError || !strings.Contains(v.Error, "no such table: concert") {
			t.Fatalf("%s %q, want pred_error naming the missing table", v.Outcome, v.Error)
		}
	})
	t.Run("ErrEmptyFolder", func(t *testing.T) {
		v := execmatch.Match(context.Background(), t.TempDir(), "SELECT 1", "SELECT 1", spiderOpts(execmatch.Options{}))
		if v.Outcome != qeval.OutcomeGoldError || !strings.Contains(v.Error, "no database files in the folder") {
			t.Fatalf("%s %q, want gold_error saying the folder has no databases", v.Outcome, v.Error)
		}
	})
}
