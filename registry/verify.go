package registry

import (
	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/equiv"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/testsuite"
	"github.com/qeval/qeval/verify"
)

// NewVerifier returns the verifier of matched pairs: the search runs on SQLite files as
// the official evaluators run them, writes through sqlite.CreateLike and checks each
// counterexample with PRAGMA integrity_check and foreign_key_check; the complete check is
// equiv's bounded model over Z3.
func NewVerifier(cfg qeval.VerifierConfig) (qeval.Verifier, error) {
	m, err := compare.Lookup(cfg.Mode)
	if err != nil {
		return nil, err
	}
	var keys map[string][]testsuite.ForeignKey
	if cfg.Tables != "" {
		if keys, err = testsuite.LoadTables(cfg.Tables); err != nil {
			return nil, err
		}
	}
	return verify.New(verify.Options{Mode: m, KeepDistinct: cfg.KeepDistinct, Bound: cfg.Bound, Timeout: cfg.Timeout, Out: cfg.Out,
		ForeignKeys: keys, Seed: 1, Open: sqlite.OfficialOpener, Check: sqlite.Check, Prover: equiv.Prover{},
		Create: func(path, like string) (testsuite.TableWriter, error) { return sqlite.CreateLike(path, like) }})
}
