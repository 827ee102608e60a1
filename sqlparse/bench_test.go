package sqlparse_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/sqlparse"
)

func goldQueries(b *testing.B) []string {
	lines := readLines(b, filepath.Join(spiderDir(b), "dev_gold.sql"))
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Split(l, "\t")[0]
	}
	return out
}

// BenchmarkParse_SpiderGold is table extraction on the Spider gold queries, one query
// per op (the budget: 50 µs/op).
func BenchmarkParse_SpiderGold(b *testing.B) {
	for _, d := range sqlparse.Dialects {
		b.Run(d, func(b *testing.B) {
			qs := goldQueries(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sqlparse.Parse(d, qs[i%len(qs)])
			}
		})
	}
}

func BenchmarkHardness_SpiderGold(b *testing.B) {
	qs := goldQueries(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sqlparse.Hardness(qs[i%len(qs)])
	}
}
