package runner

import (
	"testing"

	"github.com/qeval/qeval"
)

// TestResultCap checks that the results of every case in flight fit the run's budget:
// each result's cap falls as concurrency grows, never above --max-result-bytes.
func TestResultCap(t *testing.T) {
	for _, c := range []struct {
		cfg         Config
		concurrency int
		want        int64
	}{
		{Config{}, 1, DefaultMaxRunBytes / 2},
		{Config{}, 2, DefaultMaxRunBytes / 4},
		{Config{}, 8, DefaultMaxRunBytes / 16},
		{Config{MaxResultBytes: 10 << 20}, 2, 10 << 20},
		{Config{MaxRunBytes: 4 << 30}, 8, qeval.DefaultMaxBytes},
		{Config{MaxRunBytes: 1}, 64, 1 << 20}, // never below 1 MiB
	} {
		if got := resultCap(c.cfg, c.concurrency); got != c.want {
			t.Errorf("resultCap(%+v, %d) = %d, want %d", c.cfg, c.concurrency, got, c.want)
		}
	}
}
