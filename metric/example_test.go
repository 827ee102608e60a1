package metric_test

import (
	"fmt"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

func ExampleCalibrate() {
	var cases []metric.CalibrationCase
	add := func(level string, n, right int) {
		v, _ := metric.LevelValue(level)
		for i := range n {
			c := metric.CalibrationCase{Level: level, Confidence: v}
			if i < right {
				c.Correct = 1
			}
			cases = append(cases, c)
		}
	}
	add("high", 20, 19)
	add("medium", 15, 12)
	add("low", 10, 4)
	rep, _ := metric.Calibrate(cases, metric.CalibrationOptions{})
	fmt.Printf("%.2f %s\n", *rep.Score, rep.Interpretation)
	for _, g := range rep.Groups {
		fmt.Printf("%-6s %2d %.2f\n", g.Level, g.Count, g.Accuracy)
	}
	fmt.Printf("ECE %.3f Brier %.3f AUROC %.3f\n", rep.ECE, rep.Brier, *rep.AUROC)
	// Output:
	// 0.92 Confidence levels accurately predict correctness
	// high   20 0.95
	// medium 15 0.80
	// low    10 0.40
	// ECE 0.111 Brier 0.144 AUROC 0.807
}

func ExampleSemanticSimilarity() {
	sql := &qeval.Shape{
		Tables:     []string{"StormEvents"},
		Filters:    []qeval.Filter{{Clause: "where", Column: "State", Operator: "=", Value: "'TEXAS'"}},
		Aggregates: []qeval.Aggregate{{Func: "COUNT", Arg: "*"}},
	}
	kql := &qeval.Shape{ // StormEvents | where State == "TEXAS" | count
		Tables:     []string{"StormEvents"},
		Filters:    []qeval.Filter{{Clause: "where", Column: "State", Operator: "==", Value: `"TEXAS"`}},
		Aggregates: []qeval.Aggregate{{Func: "count"}},
	}
	r := metric.SemanticSimilarity(kql, sql)
	fmt.Printf("%.2f\n", *r.Score)
	// Output: 1.00
}
