package metric_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qeval/qeval/metric"
)

// levelCases builds n cases of a level, the first right of them correct.
func levelCases(level string, n, right int) []metric.CalibrationCase {
	v, _ := metric.LevelValue(level)
	cs := make([]metric.CalibrationCase, n)
	for i := range cs {
		cs[i] = metric.CalibrationCase{Level: level, Confidence: v}
		if i < right {
			cs[i].Correct = 1
		}
	}
	return cs
}

func seed(h, hr, m, mr, l, lr int) []metric.CalibrationCase {
	return slices.Concat(levelCases("high", h, hr), levelCases("medium", m, mr), levelCases("low", l, lr))
}

func mustCalibrate(tb testing.TB, cs []metric.CalibrationCase) metric.CalibrationReport {
	tb.Helper()
	rep, err := metric.Calibrate(cs, metric.CalibrationOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// The two seed scenarios of MC-REQ-05.
func TestCalibrate_SeedWellCalibrated(t *testing.T) {
	rep := mustCalibrate(t, seed(20, 19, 15, 12, 10, 4))
	if rep.Score == nil || round2(*rep.Score) != 0.92 {
		t.Fatalf("score=%v, want 0.92", ptr(rep.Score))
	}
	if rep.Interpretation != "Confidence levels accurately predict correctness" {
		t.Errorf("interpretation=%q", rep.Interpretation)
	}
	if slices.Contains(rep.Warnings, metric.WarnOverconfident) {
		t.Errorf("warnings=%q, want no overconfidence warning", rep.Warnings)
	}
	// agreement: worst gap is medium, |0.6-0.8| = 0.2.
	if !near(*rep.Agreement, 0.8) {
		t.Errorf("agreement=%v, want 0.8", *rep.Agreement)
	}
	want := []struct {
		level string
		count int
		acc   float64
	}{{"high", 20, 0.95}, {"medium", 15, 0.8}, {"low", 10, 0.4}}
	if len(rep.Groups) != 3 {
		t.Fatalf("groups=%+v, want 3", rep.Groups)
	}
	for i, w := range want {
		g := rep.Groups[i]
		if g.Level != w.level || g.Count != w.count || !near(g.Accuracy, w.acc) {
			t.Errorf("group %d=%+v, want %s %d %.2f", i, g, w.level, w.count, w.acc)
		}
		if g.AccuracyCI == nil || g.AccuracyCI.Lower > g.Accuracy || g.AccuracyCI.Upper < g.Accuracy {
			t.Errorf("group %s interval=%+v does not hold %v", g.Level, g.AccuracyCI, g.Accuracy)
		}
	}
}

func TestCalibrate_SeedNotPredictive(t *testing.T) {
	rep := mustCalibrate(t, seed(20, 10, 15, 8, 10, 5))
	if rep.Score == nil || round2(*rep.Score) != 0.15 {
		t.Fatalf("score=%v, want 0.15", ptr(rep.Score))
	}
	if rep.Interpretation != "Confidence does not predict correctness" {
		t.Errorf("interpretation=%q", rep.Interpretation)
	}
	if !slices.Contains(rep.Warnings, metric.WarnOverconfident) {
		t.Errorf("warnings=%q, want the overconfidence warning", rep.Warnings)
	}
	if *rep.Ordering != 0 || !near(*rep.Agreement, 0.6) {
		t.Errorf("ordering=%v agreement=%v, want 0 and 0.6", *rep.Ordering, *rep.Agreement)
	}
}

func TestCalibrate_InsufficientData(t *testing.T) {
	rep := mustCalibrate(t, seed(10, 9, 5, 3, 4, 1)) // 19 cases
	if rep.Score != nil {
		t.Errorf("score=%v, want null below 20 cases", *rep.Score)
	}
	if !slices.Contains(rep.Warnings, metric.WarnInsufficientData) {
		t.Errorf("warnings=%q", rep.Warnings)
	}
	if rep.N != 19 || rep.ECE == 0 {
		t.Errorf("n=%d ece=%v: the other measures should still be computed", rep.N, rep.ECE)
	}
	empty := mustCalibrate(t, nil)
	if empty.Score != nil || len(empty.Warnings) != 1 {
		t.Errorf("empty report=%+v", empty)
	}
}

// The standard measures of the well-calibrated seed, worked out by hand:
// ECE = (20·0.05 + 15·0.2 + 10·0.1)/45, Brier = (19·0.01+0.81 + 12·0.16+3·0.36 +
// 4·0.49+6·0.09)/45, AUROC = (243 concordant + 79/2 tied)/(35·10) pairs.
func TestCalibrate_Measures(t *testing.T) {
	rep := mustCalibrate(t, seed(20, 19, 15, 12, 10, 4))
	base := 35.0 / 45
	checks := []struct {
		name      string
		got, want float64
	}{
		{"ece", rep.ECE, 5.0 / 45},
		{"mce", rep.MCE, 0.2},
		{"brier", rep.Brier, 6.5 / 45},
		{"reliability", rep.Reliability, (20*0.0025 + 15*0.04 + 10*0.01) / 45},
		{"resolution", rep.Resolution, (20*sq(0.95-base) + 15*sq(0.8-base) + 10*sq(0.4-base)) / 45},
		{"uncertainty", rep.Uncertainty, base * (1 - base)},
		{"decomposition", rep.Reliability - rep.Resolution + rep.Uncertainty, rep.Brier},
		{"auroc", *rep.AUROC, 282.5 / 350},
		{"accuracy", rep.Accuracy, base},
		{"mean_confidence", rep.MeanConfidence, (20*0.9 + 15*0.6 + 10*0.3) / 45},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s=%v, want %v", c.name, c.got, c.want)
		}
	}
	if len(rep.Bins) != 3 {
		t.Errorf("reliability diagram has %d bins, want the 3 non-empty ones", len(rep.Bins))
	}
	last := rep.RiskCoverage[len(rep.RiskCoverage)-1]
	if last.Coverage != 1 || !near(last.Risk, 10.0/45) {
		t.Errorf("risk at full coverage=%+v, want risk 10/45", last)
	}
}

func sq(x float64) float64 { return x * x }

func TestCalibrate_RankMeasures(t *testing.T) {
	t.Run("NoTies", func(t *testing.T) {
		// Confidence 0.9 right, 0.8 wrong, 0.7 right, 0.6 wrong: risks 0, 1/2, 1/3, 2/4.
		rep := mustCalibrate(t, []metric.CalibrationCase{{Confidence: 0.7, Correct: 1}, {Confidence: 0.8}, {Confidence: 0.9, Correct: 1}, {Confidence: 0.6}})
		if !near(rep.AURC, (0+0.5+1.0/3+0.5)/4) || !near(*rep.AUROC, 0.75) {
			t.Errorf("aurc=%v auroc=%v, want %v and 0.75", rep.AURC, *rep.AUROC, (0+0.5+1.0/3+0.5)/4)
		}
	})
	t.Run("Ties", func(t *testing.T) {
		rep := mustCalibrate(t, []metric.CalibrationCase{{Confidence: 0.5, Correct: 1}, {Confidence: 0.5}})
		if !near(rep.AURC, 0.5) || !near(*rep.AUROC, 0.5) {
			t.Errorf("aurc=%v auroc=%v, want 0.5 and 0.5", rep.AURC, *rep.AUROC)
		}
	})
	t.Run("OneClass", func(t *testing.T) {
		rep := mustCalibrate(t, levelCases("high", 3, 3))
		if rep.AUROC != nil || rep.AURC != 0 {
			t.Errorf("auroc=%v aurc=%v, want null and 0", ptr(rep.AUROC), rep.AURC)
		}
	})
	// Large inputs take the radix sort; check AUROC and AURC against brute force.
	t.Run("BruteForce", func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 7))
		cs := make([]metric.CalibrationCase, 1500)
		for i := range cs {
			c := math.Round(r.Float64()*50) / 50 // many ties
			cs[i] = metric.CalibrationCase{Confidence: c}
			if r.Float64() < c {
				cs[i].Correct = 1
			}
		}
		rep := mustCalibrate(t, cs)
		var wins, pairs float64
		for _, a := range cs {
			for _, b := range cs {
				if a.Correct == 1 && b.Correct == 0 {
					pairs++
					switch {
					case a.Confidence > b.Confidence:
						wins++
					case a.Confidence == b.Confidence:
						wins += 0.5
					}
				}
			}
		}
		if !near(*rep.AUROC, wins/pairs) {
			t.Errorf("auroc=%v, brute force %v", *rep.AUROC, wins/pairs)
		}
		// AURC with ties: the mean over random orders within equal confidences; average
		// many shuffles of a stable sort to estimate it.
		est := 0.0
		const trials = 200
		for range trials {
			p := slices.Clone(cs)
			r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			slices.SortStableFunc(p, func(a, b metric.CalibrationCase) int { return -cmpF(a.Confidence, b.Confidence) })
			loss, sum := 0.0, 0.0
			for k, c := range p {
				loss += 1 - c.Correct
				sum += loss / float64(k+1)
			}
			est += sum / float64(len(p)) / trials
		}
		if math.Abs(rep.AURC-est) > 0.002 {
			t.Errorf("aurc=%v, shuffled estimate %v", rep.AURC, est)
		}
		if n := len(rep.RiskCoverage); n > metric.DefaultCurvePoints || n < 10 {
			t.Errorf("risk-coverage curve has %d points, want 10..%d", n, metric.DefaultCurvePoints)
		}
	})
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestCalibrate_NumericGroups(t *testing.T) {
	cs := []metric.CalibrationCase{{Confidence: 0.95, Correct: 1}, {Confidence: 0.75, Correct: 1}, {Confidence: 0.5}, {Confidence: 0.44, Correct: 0.5}}
	rep := mustCalibrate(t, cs)
	if len(rep.Groups) != 3 || rep.Groups[0].Count != 2 || !near(rep.Groups[0].Confidence, 0.85) || rep.Groups[2].Count != 1 || !near(rep.Groups[2].Accuracy, 0.5) {
		t.Errorf("groups=%+v, want high {0.95, 0.75}, medium {0.5}, low {0.44 at 0.5}", rep.Groups)
	}
}

func TestCalibrate_Invalid(t *testing.T) {
	for _, c := range []metric.CalibrationCase{{Confidence: 1.5}, {Confidence: math.NaN()}, {Confidence: 0.5, Correct: 2}, {Level: "very", Confidence: 0.5}} {
		_, err := metric.Calibrate([]metric.CalibrationCase{{Confidence: 0.5}, c}, metric.CalibrationOptions{})
		if err == nil || !strings.Contains(err.Error(), "case 2") {
			t.Errorf("Calibrate(%+v) error=%v, want one naming case 2", c, err)
		}
	}
}

func TestCalibrationCase_UnmarshalJSON(t *testing.T) {
	good := map[string]metric.CalibrationCase{
		`{"confidence": "high", "correct": true}`: {Level: "high", Confidence: 0.9, Correct: 1},
		`{"confidence": "Low", "correct": false}`: {Level: "low", Confidence: 0.3},
		`{"confidence": 0.72, "correct": 0.5}`:    {Confidence: 0.72, Correct: 0.5},
		`{"confidence": "0.4", "correct": 1}`:     {Confidence: 0.4, Correct: 1},
		`{"confidence": "medium", "correct": 0}`:  {Level: "medium", Confidence: 0.6},
	}
	for in, want := range good {
		var c metric.CalibrationCase
		if err := json.Unmarshal([]byte(in), &c); err != nil || c != want {
			t.Errorf("Unmarshal(%s)=%+v, %v, want %+v", in, c, err, want)
		}
	}
	bad := map[string]string{
		`{"confidence": "very", "correct": true}`: `"confidence"`,
		`{"confidence": 1.2, "correct": true}`:    "outside [0,1]",
		`{"confidence": 0.5}`:                     `missing field "correct"`,
		`{"correct": true}`:                       `missing field "confidence"`,
		`{"confidence": 0.5, "correct": "yes"}`:   `"correct"`,
		`{"confidence": 0.5, "correct": -1}`:      "outside [0,1]",
	}
	for in, want := range bad {
		var c metric.CalibrationCase
		if err := json.Unmarshal([]byte(in), &c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Unmarshal(%s) error=%v, want one containing %s", in, err, want)
		}
	}
}

// The interpretation follows the measured gaps and never contradicts ECE (a model right
// 100/99/98% at high/medium/low, ECE 0.39, once read as "accurately predict").
func TestCalibrate_UnderconfidentIsNamed(t *testing.T) {
	var cases []metric.CalibrationCase
	add := func(level string, n, right int) {
		for i := 0; i < n; i++ {
			y := 0.0
			if i < right {
				y = 1
			}
			cases = append(cases, metric.CalibrationCase{Level: level, Confidence: map[string]float64{"high": 0.9, "medium": 0.6, "low": 0.3}[level], Correct: y})
		}
	}
	add("high", 100, 100)
	add("medium", 100, 99)
	add("low", 100, 98)
	rep, err := metric.Calibrate(cases, metric.CalibrationOptions{Bootstrap: metric.BootstrapOptions{Resamples: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ECE < 0.3 || strings.Contains(rep.Interpretation, "accurately") || !strings.Contains(rep.Interpretation, "under-confident") {
		t.Errorf("ECE %.2f, interpretation %q", rep.ECE, rep.Interpretation)
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, "underconfident: its low-confidence")
	}
	if !found {
		t.Errorf("warnings %q lack the under-confident low level", rep.Warnings)
	}
}
