package metric_test

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"

	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/validate"
)

// spiderGold reads the gold queries of Spider dev from the shared data, or skips.
func spiderGold(b *testing.B) []string {
	b.Helper()
	path := filepath.Join(testdata.SharedDir(b), "spider", "dev_gold.sql")
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("Spider gold queries not available (%v)", err)
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q, _, ok := strings.Cut(sc.Text(), "\t"); ok {
			qs = append(qs, q)
		}
	}
	return qs
}

// BenchmarkTableAccuracy_Spider: parse one Spider gold query and score its tables
// against a given expected list (one op = one query).
func BenchmarkTableAccuracy_Spider(b *testing.B) {
	qs := spiderGold(b)
	expected := make([][]string, len(qs))
	for i, q := range qs {
		s, err := sqlparse.Parse("sqlite", q)
		if err != nil {
			b.Fatalf("gold %d: %v", i, err)
		}
		expected[i] = s.Tables
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := i % len(qs)
		s, err := sqlparse.Parse("sqlite", qs[k])
		if err != nil {
			b.Fatal(err)
		}
		if r := metric.TableAccuracy(s, expected[k]); *r.Score != 1 {
			b.Fatalf("gold %d against itself: %v", k, *r.Score)
		}
	}
}

// BenchmarkTableAccuracy_SpiderCase: the table_accuracy metric of a case through
// Evaluate, with the expected tables derived from the expected query (two parses).
func BenchmarkTableAccuracy_SpiderCase(b *testing.B) {
	qs := spiderGold(b)
	ms, _ := metric.Lookup(metric.NameTableAccuracy)
	opt := metric.Options{Metrics: ms}
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		r := metric.Evaluate(context.Background(), metric.Case{Generated: q, Expected: q}, opt)[metric.NameTableAccuracy]
		if r.Score == nil || *r.Score != 1 {
			b.Fatalf("gold %q against itself: %+v", q, r)
		}
	}
}

func BenchmarkSafetyValidation(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		metric.SafetyValidation(i&1 == 0, i&2 == 0)
	}
}

func BenchmarkValidationAccuracy(b *testing.B) {
	msgs := []string{"DROP statements are not allowed"}
	ref := &validate.Verdict{Category: "safety", Problems: []validate.Problem{{Category: "safety", Message: "DROP is a write"}}}
	for i := 0; b.Loop(); i++ {
		metric.ValidationAccuracy(i&1 == 0, i&2 == 0, msgs, ref)
	}
}

func calibrationCases(n int) []metric.CalibrationCase {
	r := rand.New(rand.NewPCG(1, 2))
	cs := make([]metric.CalibrationCase, n)
	for i := range cs {
		c := r.Float64()
		cs[i] = metric.CalibrationCase{Confidence: c}
		if r.Float64() < c {
			cs[i].Correct = 1
		}
	}
	return cs
}

// BenchmarkCalibrate_100k: every measure over 100,000 numeric confidences, without and
// with the bootstrap intervals of the accuracies (1,000 resamples each).
func BenchmarkCalibrate_100k(b *testing.B) {
	cs := calibrationCases(100_000)
	b.Run("NoIntervals", func(b *testing.B) {
		for b.Loop() {
			if _, err := metric.Calibrate(cs, metric.CalibrationOptions{Bootstrap: metric.BootstrapOptions{Resamples: -1}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Intervals", func(b *testing.B) {
		for b.Loop() {
			if _, err := metric.Calibrate(cs, metric.CalibrationOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	levels := make([]metric.CalibrationCase, len(cs))
	for i, c := range cs {
		l := metric.LevelOf(c.Confidence)
		v, _ := metric.LevelValue(l)
		levels[i] = metric.CalibrationCase{Level: l, Confidence: v, Correct: c.Correct}
	}
	b.Run("Levels", func(b *testing.B) {
		for b.Loop() {
			if _, err := metric.Calibrate(levels, metric.CalibrationOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
