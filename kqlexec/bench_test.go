package kqlexec_test

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkQuery_StormEvents translates and runs a typical summarize query on the
// 5,000-row example table.
func BenchmarkQuery_StormEvents(b *testing.B) {
	e := mustOpen(b, filepath.Join(moduleRoot(), "examples", "kql", "stormevents"))
	q := `StormEvents | where EventType has "flood" | summarize n=count(), d=sum(DamageProperty) by State, bin(StartTime, 30d) | top 10 by n`
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Query(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslate measures the translator alone.
func BenchmarkTranslate(b *testing.B) {
	e := mustOpen(b, filepath.Join(moduleRoot(), "examples", "kql", "stormevents"))
	q := `StormEvents | where State == "TEXAS" | extend d = EndTime - StartTime | summarize arg_max(d, *) by EventType | join kind=leftouter PopulationData on State | project EventType, d, Population`
	for b.Loop() {
		if _, _, err := e.Translate(q); err != nil {
			b.Fatal(err)
		}
	}
}
