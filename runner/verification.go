package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qeval/qeval"
)

// verifyCase verifies a case's match beyond its database (suite verify: true): on the
// SQLite file it names, or the original database of its test-suite folder.
func (r *run) verifyCase(ctx context.Context, c qeval.Case, db, gold, generated string, match bool) *qeval.Verification {
	if !match {
		return &qeval.Verification{Status: qeval.VerifyNotAMatch}
	}
	if r.cfg.Verifier == nil {
		return &qeval.Verification{Status: qeval.VerifyUnsupported, Reason: "verification is not available here"}
	}
	src, err := r.cfg.Catalog.Resolve(ctx, db, "sql")
	if err != nil {
		return &qeval.Verification{Status: qeval.VerifyUnsupported, Reason: qeval.ErrorMessage(err)}
	}
	file := ""
	for _, f := range src.Files {
		if len(src.Files) == 1 || qeval.IsOriginalDatabase(f) {
			file = f
		}
	}
	if src.Engine != "sqlite" || file == "" {
		return &qeval.Verification{Status: qeval.VerifyUnsupported, Reason: "verification needs a SQLite database file; " + src.Display + " is not one"}
	}
	id := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	vr := r.cfg.Verifier.Verify(ctx, qeval.VerifyPair{ID: c.ID, DBID: id, Database: file, Gold: gold, Pred: generated})
	vr.MS = float64(vr.Time.Microseconds()) / 1000
	return &vr
}

// verifAcc counts the cases whose matches were verified (qeval verify, --verify).
type verifAcc struct {
	n, single, suite, suiteN, eq int
	bound                        int
	statuses                     map[qeval.VerifyStatus]int
	ms                           []float64
	flipped                      []qeval.FlippedCase
}

func (va *verifAcc) add(c *qeval.CaseResult) {
	v := c.Verdict
	if v == nil || v.Verification == nil {
		return
	}
	vr := v.Verification
	if va.statuses == nil {
		va.statuses = map[qeval.VerifyStatus]int{}
	}
	va.n++
	original := v.Match
	if v.OriginalMatch != nil {
		original = *v.OriginalMatch
		va.suiteN++
		if v.Match {
			va.suite++
		}
	}
	if original {
		va.single++
	}
	va.statuses[vr.Status]++
	va.bound = max(va.bound, vr.Bound)
	switch vr.Status {
	case qeval.VerifyNotAMatch:
		return
	case qeval.VerifyEquivalent:
		va.eq++
	case qeval.VerifyCounterexample:
		va.flipped = append(va.flipped, qeval.FlippedCase{ID: c.ID, Database: vr.Counterexample, Explanation: v.Explanation})
	}
	va.ms = append(va.ms, vr.MS)
}

// summary is the three accuracies side by side, nil when nothing was verified.
func (va *verifAcc) summary() *qeval.VerificationSummary {
	if va.n == 0 {
		return nil
	}
	vs := &qeval.VerificationSummary{Cases: va.n, Bound: va.bound, Exec: proportion(va.single, va.n), Verified: proportion(va.eq, va.n),
		Matched: len(va.ms), Statuses: va.statuses, Flipped: slices.Clone(va.flipped)}
	if va.suiteN == va.n {
		vs.ExecTestSuite = proportion(va.suite, va.n)
	}
	if len(va.ms) > 0 {
		vs.Decided = float64(va.statuses[qeval.VerifyCounterexample]+va.statuses[qeval.VerifyEquivalent]) / float64(len(va.ms))
		ms := slices.Sorted(slices.Values(va.ms))
		vs.MedianMS = ms[len(ms)/2]
		if len(ms)%2 == 0 {
			vs.MedianMS = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
		}
	}
	return vs
}
