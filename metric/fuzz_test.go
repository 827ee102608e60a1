package metric_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/qeval/qeval/metric"
)

// FuzzCalibrate: any JSONL input is either rejected line by line or calibrated, never a panic.
func FuzzCalibrate(f *testing.F) {
	f.Add(`{"confidence": "high", "correct": true}` + "\n" + `{"confidence": 0.2, "correct": 0}`)
	f.Add(`{"confidence": "0.5", "correct": 0.5}`)
	f.Add(`{"confidence": 1e-320, "correct": 1}` + "\n" + `{"confidence": 1, "correct": false}`)
	f.Add(`{"confidence": -0, "correct": 1}`)
	f.Fuzz(func(t *testing.T, in string) {
		var cases []metric.CalibrationCase
		sc := bufio.NewScanner(strings.NewReader(in))
		for sc.Scan() {
			var c metric.CalibrationCase
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				cases = append(cases, c)
			}
		}
		rep, err := metric.Calibrate(cases, metric.CalibrationOptions{Bootstrap: metric.BootstrapOptions{Resamples: 20}})
		if err != nil {
			t.Fatalf("cases that passed UnmarshalJSON were rejected: %v", err)
		}
		if rep.Score != nil && (*rep.Score < 0 || *rep.Score > 1) {
			t.Fatalf("score %v outside [0,1]", *rep.Score)
		}
		if rep.AUROC != nil && (*rep.AUROC < 0 || *rep.AUROC > 1) {
			t.Fatalf("auroc %v outside [0,1]", *rep.AUROC)
		}
	})
}

// FuzzResultsMatch: arbitrary JSON rows never panic and score in [0,1].
func FuzzResultsMatch(f *testing.F) {
	f.Add(`[{"a": 1, "B": "x"}]`, `[{"b": "X", "a": 1.0}]`)
	f.Add(`[{"a": null}, {"a": [1, 2]}]`, `[{"a": {"k": "v"}}]`)
	f.Fuzz(func(t *testing.T, gen, exp string) {
		var g, e []map[string]any
		if json.Unmarshal([]byte(gen), &g) != nil || json.Unmarshal([]byte(exp), &e) != nil {
			return
		}
		r := metric.ResultsMatch(g, e, 0)
		if *r.Score < 0 || *r.Score > 1 {
			t.Fatalf("score %v outside [0,1]", *r.Score)
		}
	})
}
