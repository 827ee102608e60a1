package bird

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/qeval/qeval"
)

// MetricVerified is 1 for an item whose match is equivalent_up_to_k (--verify).
const MetricVerified = "exec-verified"

// verifyFlags declares the flags of --verify.
func (f *flags) verifyFlags(fs *flag.FlagSet) {
	fs.BoolVar(&f.verify, "verify", false, "verify every EX match beyond the database: a counterexample database (BIRD's rule) or a proof up to --bound rows per table (see qeval verify; SQLite only)")
	fs.IntVar(&f.bound, "bound", qeval.DefaultVerifyBound, "with --verify: K, the rows per table the complete check covers")
	fs.StringVar(&f.out, "out", "", "with --verify: write each counterexample to CEX_DIR/<index>.sqlite, with <index>.json beside it")
}

// openVerify makes the run's verifier: BIRD's rule decides "differ".
func (r *run) openVerify() error {
	if r.f.dialect != SQLite {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "--verify works on SQLite databases, not " + r.f.dialect}
	}
	if r.env.NewVerifier == nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "verification is not available here"}
	}
	if r.f.bound < 1 {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--bound %d: K must be at least 1", r.f.bound)}
	}
	v, err := r.env.NewVerifier(qeval.VerifierConfig{Mode: "bird-ex", KeepDistinct: true, Bound: r.f.bound, Timeout: r.env.Limits.Timeout, Out: r.f.out})
	if err != nil {
		return err
	}
	r.verifier = v
	return nil
}

// verifyItem verifies an item whose prediction (paired by position, as EX is) matches;
// one that does not is not_a_match and costs nothing.
func (r *run) verifyItem(ctx context.Context, i int, it *Item, res *qeval.CaseResult) {
	zero, one := 0.0, 1.0
	res.Metrics[MetricVerified] = qeval.MetricResult{Score: &zero}
	if it.EX != 1 || i >= len(r.preds.List) {
		it.Verification = &qeval.Verification{Status: qeval.VerifyNotAMatch}
		res.Verdict.Verification = it.Verification
		return
	}
	vr := r.verifier.Verify(ctx, qeval.VerifyPair{ID: strconv.Itoa(i), DBID: it.DBID, Database: qeval.BenchmarkFile(r.f.db, it.DBID),
		Gold: r.gold[i].SQL, Pred: r.preds.List[i].SQL})
	vr.MS = float64(vr.Time.Microseconds()) / 1000
	it.Verification = &vr
	res.Verdict.Verification = &vr
	if vr.Status == qeval.VerifyEquivalent {
		res.Metrics[MetricVerified] = qeval.MetricResult{Score: &one}
	}
	if vr.Status == qeval.VerifyCounterexample {
		res.Reason = "counterexample: " + vr.Reason
	}
}

// VerifySummary is EX on the database beside EX-verified, with how the matches were
// decided and the items a counterexample flipped.
type VerifySummary struct {
	Bound    int                        `json:"bound"`
	Total    int                        `json:"total"`
	EX       float64                    `json:"ex"`
	Verified float64                    `json:"ex_verified"`
	Matched  int                        `json:"matched"`
	Decided  float64                    `json:"decided"`
	Statuses map[qeval.VerifyStatus]int `json:"statuses"`
	Flipped  []int                      `json:"flipped,omitempty"`
}

func summarizeVerify(bound int, items []Item) *VerifySummary {
	vs := &VerifySummary{Bound: bound, Total: len(items), Statuses: map[qeval.VerifyStatus]int{}}
	ex := 0
	for _, it := range items {
		ex += it.EX
		if it.Verification == nil {
			continue
		}
		st := it.Verification.Status
		vs.Statuses[st]++
		if st != qeval.VerifyNotAMatch {
			vs.Matched++
		}
		if st == qeval.VerifyCounterexample {
			vs.Flipped = append(vs.Flipped, it.Index)
		}
	}
	if vs.Total > 0 {
		vs.EX = float64(ex) / float64(vs.Total)
		vs.Verified = float64(vs.Statuses[qeval.VerifyEquivalent]) / float64(vs.Total)
	}
	if vs.Matched > 0 {
		vs.Decided = float64(vs.Statuses[qeval.VerifyCounterexample]+vs.Statuses[qeval.VerifyEquivalent]) / float64(vs.Matched)
	}
	return vs
}

func (vs *VerifySummary) print(w io.Writer) {
	st := vs.Statuses
	fmt.Fprintf(w, "start calculate EX-verified (K = %d)\n", vs.Bound)
	fmt.Fprintf(w, "EX on the database      %.2f\n", 100*vs.EX)
	fmt.Fprintf(w, "EX-verified             %.2f\n", 100*vs.Verified)
	fmt.Fprintf(w, "%d matches verified, %.1f%% decided: %d counterexample, %d equivalent_up_to_k, %d no_counterexample_found, %d unsupported\n",
		vs.Matched, 100*vs.Decided, st[qeval.VerifyCounterexample], st[qeval.VerifyEquivalent], st[qeval.VerifyNoCounterexample], st[qeval.VerifyUnsupported])
	fmt.Fprintf(w, "Finished EX-verified evaluation\n\n")
}
