package verify_test

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/registry"
)

// oracleItem is a line of ../shared/data/spider/oracle/<set>.jsonl: the pair and the
// official evaluator's verdict on its database.
type oracleItem struct {
	Line int    `json:"line"`
	DBID string `json:"db_id"`
	Exec int    `json:"exec"`
	Pred string `json:"pred"`
	Gold string `json:"gold"`
}

// spiderMatches are the pairs of a prediction set that match on their database (the
// official verdicts), each with its database file.
func spiderMatches(tb testing.TB, set string) []qeval.VerifyPair {
	data := testdata.SharedDir(tb)
	var out []qeval.VerifyPair
	for _, o := range testdata.ReadJSONL[oracleItem](tb, filepath.Join(data, "spider", "oracle", set+".jsonl")) {
		if o.Exec == 1 {
			out = append(out, qeval.VerifyPair{ID: strconv.Itoa(o.Line), DBID: o.DBID, Gold: o.Gold, Pred: o.Pred,
				Database: qeval.BenchmarkFile(filepath.Join(data, "spider", "database"), o.DBID)})
		}
	}
	return out
}

// sameText reports whether two queries differ only in case, spacing and a final ';'.
func sameText(a, b string) bool {
	norm := func(q string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.TrimRight(strings.TrimSpace(q), ";"))), " ")
	}
	return norm(a) == norm(b)
}

func spiderVerifier(tb testing.TB, out string) qeval.Verifier {
	tb.Helper()
	v, err := registry.NewVerifier(qeval.VerifierConfig{Mode: qeval.OfficialMode, Out: out, Timeout: 30 * time.Second,
		Tables: filepath.Join(testdata.SharedDir(tb), "spider", "tables.json")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

// BenchmarkVerify verifies, one after the other, the first 60 pairs of a real
// prediction set (c3_chatgpt) that match on their Spider database and are not the same
// query as the gold: the pairs that cost something. It reports the median and mean
// time per pair (target: median ≤ 1 s on 2 cores) and the share decided.
func BenchmarkVerify(b *testing.B) {
	var pairs []qeval.VerifyPair
	for _, p := range spiderMatches(b, "c3_chatgpt") {
		if len(pairs) < 60 && !sameText(p.Gold, p.Pred) {
			pairs = append(pairs, p)
		}
	}
	var times []float64
	decided := 0
	for b.Loop() {
		v := spiderVerifier(b, "")
		times, decided = times[:0], 0
		for _, p := range pairs {
			r := v.Verify(context.Background(), p)
			times = append(times, float64(r.Time.Microseconds())/1000)
			if r.Status == qeval.VerifyCounterexample || r.Status == qeval.VerifyEquivalent {
				decided++
			}
		}
	}
	sort.Float64s(times)
	total := 0.0
	for _, t := range times {
		total += t
	}
	b.ReportMetric(times[len(times)/2], "median-ms/pair")
	b.ReportMetric(total/float64(len(times)), "mean-ms/pair")
	b.ReportMetric(100*float64(decided)/float64(len(pairs)), "%decided")
}
