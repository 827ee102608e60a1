package sqlparse_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

// orChain is a query whose WHERE is n OR-ed comparisons on one line.
func orChain(n int) string {
	var b strings.Builder
	b.WriteString("SELECT a FROM t WHERE ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("a = 12345")
	}
	return b.String()
}

// Inputs that killed the process with a fatal stack overflow, or took gigabytes, are
// refused before any recursive parser sees them.
func TestParse_HostileSizes(t *testing.T) {
	for name, q := range map[string]string{
		"NestedParens":  "SELECT " + strings.Repeat("(", 4_000_000) + "1" + strings.Repeat(")", 4_000_000),
		"PlusChain":     "SELECT 1" + strings.Repeat("+1", 1_000_000),
		"OrChain10MB":   orChain(800_000),
		"InList10MB":    "SELECT 1 WHERE 1 IN (" + strings.Repeat("1,", 5_000_000) + "1)",
		"DeepUnderSize": "SELECT " + strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000),
		// 200 KB, under the size bound: PostgreSQL's parser library overflowed its C
		// stack on it (SIGSEGV, the process gone), the others took 200-250 MB
		"PlusChainUnderSize":   "SELECT 1" + strings.Repeat("+1", 100_000),
		"ConcatChainUnderSize": "SELECT 'a'" + strings.Repeat("||'a'", 50_000),
		"NotChainUnderSize":    "SELECT " + strings.Repeat("NOT ", 200_000) + "1",
	} {
		t.Run(name, func(t *testing.T) {
			for _, d := range sqlparse.Dialects {
				start := time.Now()
				_, err := sqlparse.Parse(d, q)
				if !qeval.IsTooLarge(err) {
					t.Fatalf("%s: %v, want a too_large error", d, err)
				}
				if el := time.Since(start); el > 2*time.Second {
					t.Errorf("%s: refused after %s", d, el)
				}
			}
		})
	}
}

// Positions cost O(log n) each: parsing an OR chain grows linearly with its length
// (a 1.7 MB chain once took 27 s in MySQL and 48 s in PostgreSQL). The test
// compares a chain with one four times as long, which a quadratic cost would make
// about 16 times slower.
func TestParse_LinearInLength(t *testing.T) {
	lim := sqlparse.Limits{MaxBytes: 8 << 20, MaxOperators: 1 << 30}
	small, big := orChain(10_000), orChain(40_000)
	for _, d := range sqlparse.Dialects {
		// a machine busy with other tests can stall one measurement: a quadratic parser
		// fails every attempt, a linear one passes one of them
		var ts, tb time.Duration
		for attempt := 0; attempt < 4; attempt++ {
			runtime.GC()
			ts, tb = timeParse(t, d, small, lim), timeParse(t, d, big, lim)
			if tb <= 10*ts+50*time.Millisecond {
				break
			}
		}
		if tb > 10*ts+50*time.Millisecond {
			t.Errorf("%s: %d bytes took %s, %d bytes %s: not linear", d, len(small), ts, len(big), tb)
		}
	}
}

func timeParse(t *testing.T, d, q string, lim sqlparse.Limits) time.Duration {
	t.Helper()
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		if _, err := sqlparse.ParseStatementsWithin(d, q, nil, lim); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// BenchmarkParse_OrChain17MB is the 1.7 MB OR chain (target: under 1 s per
// dialect; the default size bound is lifted for it).
func BenchmarkParse_OrChain17MB(b *testing.B) {
	q := orChain(130_000)
	for _, d := range sqlparse.Dialects {
		b.Run(d, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sqlparse.ParseStatementsWithin(d, q, nil, sqlparse.Limits{MaxBytes: 4 << 20, MaxOperators: 1 << 30}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
