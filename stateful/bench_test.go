package stateful_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/runner"
)

// The speed targets of stateful cases (issue 43): a stateful case on a Spider-size
// SQLite database costs at most 3× a read-only case (the copies are the cost), and
// 1,000 stateful cases run in at most 60 s on this machine. Each benchmark runs a whole
// suite per iteration through the runner, as `qeval run` does, and reports ms/case.
//
//   go test ./stateful -run X -bench 'Case_' -benchtime 3x

// spiderWorld is Spider's largest dev database (world_1, 312 KB), from the shared data.
func spiderWorld(b *testing.B) string {
	p := filepath.Join("..", "..", "shared", "data", "spider", "database", "world_1", "world_1.sqlite")
	if _, err := os.Stat(p); err != nil {
		b.Skipf("Spider's world_1 is not at %s (the shared data folder): %v", p, err)
	}
	abs, _ := filepath.Abs(p)
	return abs
}

func runSuite(b *testing.B, s *qeval.Suite) {
	b.Helper()
	rep, err := runner.Run(context.Background(), s, runner.Config{Catalog: &registry.Catalog{}, Concurrency: 2})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range rep.Cases {
		if c.Status != qeval.StatusPass {
			b.Fatalf("case %s: %s %s", c.ID, c.Status, c.Reason)
		}
	}
}

// benchCases makes n cases of one kind on db: read-only (a SELECT) or stateful (an
// UPDATE of one city, judged by the table it leaves).
func benchCases(db string, n int, stateful bool) *qeval.Suite {
	s := &qeval.Suite{Name: "bench", Database: db, PassRequires: []string{"execution"}}
	for i := range n {
		id := 1 + i%4000
		c := qeval.Case{ID: fmt.Sprint(i), Question: "q"}
		if stateful {
			c.ExpectedQuery = fmt.Sprintf("UPDATE city SET Population = Population + 1 WHERE ID = %d", id)
			c.CompareState = &qeval.StateCompare{Tables: []string{"city"}}
		} else {
			c.ExpectedQuery = fmt.Sprintf("SELECT Name, Population FROM city WHERE ID = %d", id)
		}
		pred := c.ExpectedQuery
		c.GeneratedQuery = &pred
		s.Cases = append(s.Cases, c)
	}
	return s
}

func benchmarkCases(b *testing.B, stateful bool) {
	db := spiderWorld(b)
	const n = 50
	s := benchCases(db, n, stateful)
	b.ResetTimer()
	for range b.N {
		runSuite(b, s)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*n), "ms/case")
}

func BenchmarkCase_ReadOnlySpider(b *testing.B) { benchmarkCases(b, false) }
func BenchmarkCase_StatefulSpider(b *testing.B) { benchmarkCases(b, true) }

// BenchmarkCase_Stateful1000Chinook runs 1,000 stateful cases on Chinook (1 MB), each an
// UPDATE judged by the table it leaves, two at a time.
func BenchmarkCase_Stateful1000Chinook(b *testing.B) {
	db, err := filepath.Abs("../examples/chinook/chinook.sqlite")
	if err != nil {
		b.Fatal(err)
	}
	s := &qeval.Suite{Name: "bench", Database: db, PassRequires: []string{"execution"}}
	for i := range 1000 {
		q := fmt.Sprintf("UPDATE Track SET UnitPrice = UnitPrice + 1 WHERE TrackId = %d", 1+i%3500)
		s.Cases = append(s.Cases, qeval.Case{ID: fmt.Sprint(i), Question: "q", ExpectedQuery: q, GeneratedQuery: &q,
			CompareState: &qeval.StateCompare{Tables: []string{"Track"}}})
	}
	b.ResetTimer()
	for range b.N {
		runSuite(b, s)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/1000cases")
}
