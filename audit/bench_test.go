package audit_test

import (
	"context"
	"testing"

	"github.com/qeval/qeval/audit"
)

// BenchmarkAudit_SpiderDev audits the 972 Spider dev gold queries (target: ≤ 2 s per
// audit, see the gold-audit issue).
func BenchmarkAudit_SpiderDev(b *testing.B) {
	items := spiderItems(readSpiderGold(b))
	b.ResetTimer()
	for range b.N {
		if _, err := audit.Run(context.Background(), items, audit.Options{Reversed: reversed}); err != nil {
			b.Fatal(err)
		}
	}
}
