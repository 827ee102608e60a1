package testsuite

import (
	"context"
	"path/filepath"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// Matcher judges one item on the database it names (a file, or a test-suite folder
// whose every file must match). execmatch.Evaluator is one; keep its results (do not
// set DiscardResults) for explanations.
type Matcher interface {
	Match(ctx context.Context, it qeval.Item) qeval.Verdict
}

// ItemResult is one item judged on the original database and on its test suite.
type ItemResult struct {
	Single qeval.Verdict `json:"single"`
	Suite  qeval.Verdict `json:"suite"`
	// Flipped is set when the prediction matched on the original database but not on
	// the suite.
	Flipped bool `json:"flipped"`
	// Distinguishing is the suite database that told the results apart ("" when the
	// suite verdict is a match).
	Distinguishing string `json:"distinguishing_database,omitempty"`
	// Explanation says how the results differ there (nil when they do not, or when a
	// query failed).
	Explanation *qeval.Explanation `json:"explanation,omitempty"`
}

// JudgeItem judges it on SUITEDIR/<db_id>/<db_id>.sqlite (the original) and on the
// folder SUITEDIR/<db_id> (the suite); it.Database is ignored.
func JudgeItem(ctx context.Context, m Matcher, mode compare.Mode, it qeval.Item, suiteDir string) ItemResult {
	dir := filepath.Join(suiteDir, it.DBID)
	single, suite := it, it
	single.Database = qeval.BenchmarkFile(suiteDir, it.DBID)
	suite.Database = dir
	r := ItemResult{Single: m.Match(ctx, single), Suite: m.Match(ctx, suite)}
	r.Flipped = r.Single.Match && !r.Suite.Match
	if !r.Suite.Match {
		r.Distinguishing = r.Suite.Database
		if r.Suite.Outcome == qeval.OutcomeMismatch && r.Suite.Gold != nil && r.Suite.Pred != nil {
			_, _, ordered := mode.Prepare(it.Gold, it.Pred, compare.Options{})
			e := compare.Explain(mode, r.Suite.Gold, r.Suite.Pred, ordered)
			e.Database = filepath.Base(r.Suite.Database)
			r.Explanation = &e
		}
	}
	return r
}
