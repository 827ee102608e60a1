package compare_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/qeval/qeval/compare"
)

func TestZZScratchDistinct(t *testing.T) {
	var qs, want []string
	b, _ := os.ReadFile("/tmp/diff/corpus.json")
	json.Unmarshal(b, &qs)
	b, _ = os.ReadFile("/tmp/diff/want.json")
	json.Unmarshal(b, &want)
	seen := map[string]bool{}
	for i, q := range qs {
		got := compare.RemoveDistinct(q)
		if got != want[i] && !seen[q] {
			seen[q] = true
			t.Errorf("%q\n got  %q\n want %q", q, got, want[i])
		}
	}
}
