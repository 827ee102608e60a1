package duckdb

import (
	"context"
	"testing"

	"github.com/qeval/qeval"
)

// BenchmarkWorkerRoundTrip compares one small query run in this process with the same
// query run in a worker process: the difference is the cost of the isolation.
func BenchmarkWorkerRoundTrip(b *testing.B) {
	path := workerDB(b, "CREATE TABLE t (a INTEGER, b VARCHAR)", "INSERT INTO t SELECT range, 'x' || range FROM range(100)")
	const q = "SELECT b, count(*) FROM t WHERE a > 10 GROUP BY b ORDER BY b LIMIT 5"
	for _, c := range []struct {
		name string
		open func(string, qeval.Limits) (*Executor, error)
	}{{"in-process", func(p string, l qeval.Limits) (*Executor, error) { return openLocal(p, l, "") }}, {"worker", Open}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := c.open(path, qeval.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			for _, q := range []string{"SELECT 1", q} {
				b.Run(map[bool]string{true: "select-1", false: "group-by"}[q == "SELECT 1"], func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if _, err := e.Query(ctx, q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
