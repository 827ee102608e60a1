package metric_test

import (
	"context"
	"math"
	"testing"

	"github.com/qeval/qeval/metric"
)

// evalOne runs one metric of the table on c.
func evalOne(tb testing.TB, name string, c metric.Case) metric.Result {
	tb.Helper()
	ms, err := metric.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	return metric.Evaluate(context.Background(), c, metric.Options{Metrics: ms})[name]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// round2 rounds to 2 decimals, as the seed numbers are given.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func boolp(b bool) *bool { return &b }
