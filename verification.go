package qeval

import (
	"context"
	"time"
)

// VerifyStatus is what verifying one pair decided. A pair whose results match on the
// database(s) given is checked beyond them: a database on which gold and prediction
// differ, or a proof that none exists up to a bound, or neither.
type VerifyStatus string

const (
	// VerifyCounterexample: a database, valid under the schema, on which the results
	// differ under the comparison mode; it is written to the counterexample folder.
	VerifyCounterexample VerifyStatus = "counterexample"
	// VerifyEquivalent: a complete check shows that no database with up to Bound rows
	// per table tells the two apart.
	VerifyEquivalent VerifyStatus = "equivalent_up_to_k"
	// VerifyNoCounterexample: a search found no difference; it is not a proof.
	VerifyNoCounterexample VerifyStatus = "no_counterexample_found"
	// VerifyUnsupported: the pair uses a construct the complete check does not model
	// (named in the reason); the search found no difference.
	VerifyUnsupported VerifyStatus = "unsupported"
	// VerifyNotAMatch: the results differ on the database(s) given; nothing to verify.
	VerifyNotAMatch VerifyStatus = "not_a_match"
)

// DefaultVerifyBound is the rows per table the complete check covers by default.
const DefaultVerifyBound = 3

// VerifyPair is one matched pair to verify.
type VerifyPair struct {
	// ID names the counterexample: <ID>.sqlite in the counterexample folder.
	ID   string
	DBID string
	// Database is the original database file, whose schema the databases tried share.
	Database   string
	Gold, Pred string
}

// Verification is the outcome of verifying one pair.
type Verification struct {
	Status VerifyStatus `json:"status"`
	// Bound is K, the rows per table the complete check covered (0 when it did not
	// decide the pair).
	Bound int `json:"bound"`
	// Counterexample is the database file that tells the queries apart.
	Counterexample string `json:"counterexample,omitempty"`
	Reason         string `json:"reason,omitempty"`
	// Tries is how many databases the search ran the pair on.
	Tries int `json:"tries,omitempty"`
	// Time is how long the pair took; MS the same in milliseconds, as reports keep it.
	Time time.Duration `json:"-"`
	MS   float64       `json:"ms"`
}

// VerificationSummary puts three accuracies side by side for the cases whose matches
// were verified: execution on the database(s) given, on the whole test suite when one
// was used, and verified (the matches that are VerifyEquivalent), with how many of the
// matches were decided and the bound of the proofs.
type VerificationSummary struct {
	Cases int `json:"cases"`
	Bound int `json:"bound"`
	// Exec is execution accuracy on the database(s) given (the original database alone
	// on a test suite); ExecTestSuite on every database of the suite.
	Exec          *Interval `json:"exec"`
	ExecTestSuite *Interval `json:"exec_test_suite,omitempty"`
	Verified      *Interval `json:"exec_verified"`
	// Matched counts the matches verified; Decided is the share of them that ended
	// counterexample or equivalent_up_to_k.
	Matched  int                  `json:"matched"`
	Decided  float64              `json:"decided"`
	Statuses map[VerifyStatus]int `json:"statuses"`
	MedianMS float64              `json:"median_ms"`
	// Flipped are the cases a counterexample flipped, with its file.
	Flipped []FlippedCase `json:"flipped,omitempty"`
}

// Verifier verifies matched pairs. Verify never fails: what goes wrong for a pair is
// its status and reason. It is safe for concurrent use; each pair is bounded by the
// verifier's own per-pair deadline as well as by ctx.
type Verifier interface {
	Verify(ctx context.Context, p VerifyPair) Verification
	Close() error
}

// VerifierConfig is how a benchmark asks for a Verifier (BenchmarkEnv.NewVerifier).
type VerifierConfig struct {
	// Mode is the comparison mode deciding "differ"; KeepDistinct its option.
	Mode         string
	KeepDistinct bool
	// Bound is K (DefaultVerifyBound when 0); Timeout bounds each pair.
	Bound   int
	Timeout time.Duration
	// Out is the counterexample folder ("" keeps none: the work goes to a temporary
	// folder that is removed).
	Out string
	// Tables is Spider's tables.json ("" for none): foreign keys the schemas do not
	// declare, which the databases tried keep too.
	Tables string
}
