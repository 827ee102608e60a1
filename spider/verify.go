package spider

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
)

// Verify is `qeval verify`: Spider's execution match, then, for every item that
// matches on the database(s), a counterexample database or a bounded proof. It reads
// Spider's files as the spider benchmark does, and its items are the spider
// benchmark's lines with the verification (status, bound, counterexample, reason, ms).
type Verify struct{}

var _ qeval.Benchmark = Verify{}

// Name is the command's name.
func (Verify) Name() string { return "verify" }

// Version names the verification and the evaluator whose rules decide "differ".
func (Verify) Version() string { return "verify@1+test-suite-sql-eval@1" }

// Summary describes the command.
func (Verify) Summary() string {
	return "for every pair that matches on the database(s): a counterexample database (official Spider rules) or a proof up to K rows per table"
}

// Synopsis is the usage line.
func (Verify) Synopsis() string {
	return "--gold GOLD --pred PRED --db DBDIR [--table tables.json] [--items ITEMS.jsonl] [--out CEX_DIR] [--bound K] [--timeout T] [flags]"
}

// Flags declares the files of the Spider benchmark, the comparison mode and the
// verification's flags; --timeout bounds each pair.
func (Verify) Flags(fs *flag.FlagSet) qeval.BenchmarkOpener {
	f := &flags{etype: "exec", verify: true, maxCands: execmatch.DefaultMaxCandidates}
	fs.StringVar(&f.gold, "gold", "", "gold file: one `SQL<TAB>db_id` per line")
	fs.StringVar(&f.pred, "pred", "", "predictions file: one query per line, aligned with --gold")
	fs.StringVar(&f.db, "db", "", "database folder: DBDIR/<db_id>/<db_id>.sqlite (a test suite's other .sqlite files beside it are used for the match)")
	fs.StringVar(&f.table, "table", "", "Spider's tables.json: foreign keys the SQLite schemas do not declare, which every database tried keeps")
	fs.StringVar(&f.mode, "mode", qeval.OfficialMode, "comparison mode deciding whether two results differ (see 'qeval modes')")
	fs.BoolVar(&f.keepDistinct, "keep-distinct", false, "keep DISTINCT in both queries (by default it is removed, as the official evaluator does)")
	f.verifyFlags(fs, "")
	return f.open
}

// Summarize is the Spider summary with the verification's accuracies.
func (Verify) Summarize(metas []json.RawMessage, cases []qeval.CaseResult) (qeval.BenchmarkSummary, error) {
	return Benchmark{}.Summarize(metas, cases)
}

// openVerify makes the run's verifier.
func (r *run) openVerify() error {
	if r.env.NewVerifier == nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "verification is not available here"}
	}
	if r.f.bound < 1 {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--bound %d: K must be at least 1", r.f.bound)}
	}
	v, err := r.env.NewVerifier(qeval.VerifierConfig{Mode: r.f.mode, KeepDistinct: r.f.keepDistinct, Bound: r.f.bound,
		Timeout: r.env.Limits.Timeout, Out: r.f.out, Tables: r.f.table})
	if err != nil {
		return err
	}
	r.verifier = v
	return nil
}

// verifyItem verifies an item that matched on the database(s); one that did not is
// not_a_match and costs nothing.
func (r *run) verifyItem(ctx context.Context, it qeval.Item, v qeval.Verdict, line *Item, res *qeval.CaseResult) {
	res.Metrics[VerifiedMetric] = binary(false)
	if !v.Match {
		line.Verification = &Verification{Status: qeval.VerifyNotAMatch}
		res.Verdict.Verification = &qeval.Verification{Status: qeval.VerifyNotAMatch}
		return
	}
	vr := r.verifier.Verify(ctx, qeval.VerifyPair{ID: strconv.Itoa(it.Index), DBID: it.DBID, Database: r.dbPath(it.DBID), Gold: it.Gold, Pred: it.Pred})
	vr.MS = ms(vr.Time)
	line.Verification = &Verification{Status: vr.Status, Bound: vr.Bound, Reason: vr.Reason, MS: vr.MS, Tries: vr.Tries}
	res.Verdict.Verification = &vr
	if vr.Counterexample != "" {
		c := vr.Counterexample
		line.Counterexample = &c
	}
	res.Metrics[VerifiedMetric] = binary(vr.Status == qeval.VerifyEquivalent)
	if vr.Status == qeval.VerifyCounterexample {
		res.Reason = "counterexample: " + vr.Reason
	}
}

// VerifiedMetric is 1 for an item whose match is equivalent_up_to_k.
const VerifiedMetric = "exec-verified"

// VerifySummary is the verification of a run's matches: three accuracies side by side
// (on the database(s) given, on the test suite when one is used, and verified), how
// the matches were decided, and the items a counterexample flipped.
type VerifySummary struct {
	Bound int `json:"bound"`
	Total int `json:"total"`
	// Exec is execution accuracy on the database(s) given: the original database
	// alone when a test suite is used.
	Exec float64 `json:"exec"`
	// ExecTestSuite is execution accuracy on every database of the test suite.
	ExecTestSuite *float64 `json:"exec_test_suite,omitempty"`
	// Verified is the share of items whose match is equivalent_up_to_k.
	Verified float64 `json:"exec_verified"`
	// WithoutCounterexamples is the share of items matching with no counterexample
	// found: an upper bound of the accuracy, as Verified is a lower one.
	WithoutCounterexamples float64 `json:"exec_without_counterexamples"`
	// Matched counts the matches verified; Decided the share of them that ended
	// counterexample or equivalent_up_to_k.
	Matched  int                        `json:"matched"`
	Decided  float64                    `json:"decided"`
	Statuses map[qeval.VerifyStatus]int `json:"statuses"`
	// MedianMS and TotalMS are the time per matched pair.
	MedianMS float64 `json:"median_ms"`
	TotalMS  float64 `json:"total_ms"`
	Flipped  []Flip  `json:"flipped,omitempty"`
	// Unsupported counts the reasons of unsupported pairs.
	Unsupported map[string]int `json:"unsupported,omitempty"`
}

// Flip is an item whose match a counterexample flipped.
type Flip struct {
	Index          int     `json:"index"`
	DBID           string  `json:"db_id"`
	Counterexample *string `json:"counterexample"`
	Reason         string  `json:"reason"`
}

// summarizeVerify computes the verification summary from the items.
func summarizeVerify(meta Meta, items []Item) *VerifySummary {
	if meta.Verify == nil {
		return nil
	}
	vs := &VerifySummary{Bound: meta.Verify.Bound, Total: len(items), Statuses: map[qeval.VerifyStatus]int{}}
	origRight, suiteRight, suite := 0, 0, false
	var times []float64
	for _, it := range items {
		if it.Exec != nil && *it.Exec {
			suiteRight++
		}
		switch {
		case it.ExecOriginal != nil:
			suite = true
			if *it.ExecOriginal {
				origRight++
			}
		case it.Exec != nil && *it.Exec:
			origRight++
		}
		if it.Verification == nil {
			continue
		}
		vs.Statuses[it.Status]++
		if it.Status == qeval.VerifyNotAMatch {
			continue
		}
		vs.Matched++
		times = append(times, it.MS)
		vs.TotalMS += it.MS
		switch it.Status {
		case qeval.VerifyCounterexample:
			vs.Flipped = append(vs.Flipped, Flip{Index: it.Index, DBID: it.DBID, Counterexample: it.Counterexample, Reason: it.Reason})
		case qeval.VerifyUnsupported:
			if vs.Unsupported == nil {
				vs.Unsupported = map[string]int{}
			}
			vs.Unsupported[construct(it.Reason)]++
		}
	}
	if vs.Total > 0 {
		n := float64(vs.Total)
		vs.Exec = float64(origRight) / n
		if suite {
			v := float64(suiteRight) / n
			vs.ExecTestSuite = &v
		}
		vs.Verified = float64(vs.Statuses[qeval.VerifyEquivalent]) / n
		vs.WithoutCounterexamples = float64(vs.Matched-vs.Statuses[qeval.VerifyCounterexample]) / n
	}
	if vs.Matched > 0 {
		vs.Decided = float64(vs.Statuses[qeval.VerifyCounterexample]+vs.Statuses[qeval.VerifyEquivalent]) / float64(vs.Matched)
		sort.Float64s(times)
		vs.MedianMS = median(times)
	}
	return vs
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// construct is the construct an unsupported reason names: its text up to the first
// ';' (the search's result follows).
func construct(reason string) string {
	for i := 0; i < len(reason); i++ {
		if reason[i] == ';' {
			return reason[:i]
		}
	}
	return reason
}

// maxFlipsPrinted bounds the flipped items the printout lists (report.json has all).
const maxFlipsPrinted = 20

// print writes the verification below the official tables.
func (vs *VerifySummary) print(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "=====================   VERIFIED EXECUTION ACCURACY (K = %d)   =====================\n", vs.Bound)
	fmt.Fprintf(w, "%-36s %.3f\n", "execution, database(s) given", vs.Exec)
	if vs.ExecTestSuite != nil {
		fmt.Fprintf(w, "%-36s %.3f\n", "execution, test suite", *vs.ExecTestSuite)
	} else {
		fmt.Fprintf(w, "%-36s %s\n", "execution, test suite", "-")
	}
	fmt.Fprintf(w, "%-36s %.3f\n", "execution, verified", vs.Verified)
	fmt.Fprintf(w, "%-36s %.3f\n", "execution, no counterexample", vs.WithoutCounterexamples)
	st := vs.Statuses
	fmt.Fprintf(w, "%d matches verified, %.1f%% decided: %d counterexample, %d equivalent_up_to_k, %d no_counterexample_found, %d unsupported; %d not_a_match\n",
		vs.Matched, 100*vs.Decided, st[qeval.VerifyCounterexample], st[qeval.VerifyEquivalent], st[qeval.VerifyNoCounterexample], st[qeval.VerifyUnsupported], st[qeval.VerifyNotAMatch])
	fmt.Fprintf(w, "time per matched pair: median %.0f ms, total %.1f s\n", vs.MedianMS, vs.TotalMS/1000)
	if len(vs.Unsupported) > 0 {
		var names []string
		for k := range vs.Unsupported {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool {
			a, b := vs.Unsupported[names[i]], vs.Unsupported[names[j]]
			return a > b || a == b && names[i] < names[j]
		})
		fmt.Fprintln(w, "unsupported:")
		for _, n := range names[:min(len(names), 10)] {
			fmt.Fprintf(w, "  %4d  %s\n", vs.Unsupported[n], n)
		}
	}
	if len(vs.Flipped) > 0 {
		fmt.Fprintln(w, "flipped by a counterexample:")
		for _, f := range vs.Flipped[:min(len(vs.Flipped), maxFlipsPrinted)] {
			where := "(not written: no --out)"
			if f.Counterexample != nil {
				where = *f.Counterexample
			}
			fmt.Fprintf(w, "  item %d (%s): %s: %s\n", f.Index, f.DBID, where, f.Reason)
		}
		if len(vs.Flipped) > maxFlipsPrinted {
			fmt.Fprintf(w, "  … and %d more (see report.json or --items)\n", len(vs.Flipped)-maxFlipsPrinted)
		}
	}
}
