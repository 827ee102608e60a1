package duckdb_test

import (
	"context"
	"testing"

	"github.com/qeval/qeval"
)

// BenchmarkQuery measures the cost of one small query through the sandbox.
func BenchmarkQuery(b *testing.B) {
	t := &testing.T{}
	e := newExecutor(t, []string{"CREATE TABLE t (a INTEGER, b VARCHAR)", "INSERT INTO t SELECT range, 'x' || range FROM range(100)"}, qeval.Limits{})
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Query(ctx, "SELECT b, count(*) FROM t WHERE a > 10 GROUP BY b ORDER BY b LIMIT 5"); err != nil {
			b.Fatal(err)
		}
	}
}
