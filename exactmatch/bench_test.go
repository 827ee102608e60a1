package exactmatch_test

import (
	"path/filepath"
	"testing"

	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/internal/testdata"
)

// BenchmarkMatch scores the 972 items of one shared prediction set (schemas read once).
func BenchmarkMatch(b *testing.B) {
	data := testdata.SharedDir(b)
	fks, dbs := spiderSchemas(b, data)
	lines := testdata.ReadJSONL[oracleLine](b, filepath.Join(data, "spider", "oracle", "c3_chatgpt.jsonl"))
	for _, o := range lines {
		dbs.get(b, o.DBID)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, o := range lines {
			if _, err := exactmatch.Match(dbs.get(b, o.DBID), fks[o.DBID], o.Gold, o.Pred); err != nil {
				b.Fatal(err)
			}
		}
	}
}
