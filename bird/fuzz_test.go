package bird_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval/bird"
)

// FuzzReaders: no input makes a reader panic.
func FuzzReaders(f *testing.F) {
	for _, s := range []string{`{"0": "SELECT 1\t----- bird -----\tdb"}`, `{"0": 1, "0": null}`, "SELECT 1\tdb\n", `[{"SQL": "x"}]`, "{\"SQL\": 1}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		bird.ReadPredictions(strings.NewReader(in), "p.json")
		bird.ReadGold(strings.NewReader(in), "g")
		bird.ReadDifficulties(strings.NewReader(in), "d")
	})
}
