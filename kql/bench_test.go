package kql_test

import (
	"testing"

	"github.com/qeval/qeval/kql"
)

// BenchmarkParseSamples parses the samples corpus (community and StormEvents queries)
// and reports queries per second; the target is 20,000/s on one core.
func BenchmarkParseSamples(b *testing.B) {
	dir := dataDir(b)
	var qs []string
	for _, c := range corpora[:2] {
		for _, q := range loadCorpus(b, dir, c.Path, c.Field) {
			qs = append(qs, q.KQL)
		}
	}
	bytes := 0
	for _, q := range qs {
		bytes += len(q)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			if _, err := kql.Parse(q); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(qs))/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkShapeSamples measures ParseShape (parse plus shape extraction).
func BenchmarkShapeSamples(b *testing.B) {
	dir := dataDir(b)
	var qs []string
	for _, c := range corpora[:2] {
		for _, q := range loadCorpus(b, dir, c.Path, c.Field) {
			qs = append(qs, q.KQL)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			if _, err := kql.ParseShape(q); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(qs))/b.Elapsed().Seconds(), "queries/s")
}
