package testdata

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Mutation is one item of spider_mutations.jsonl.gz, made for differential tests of
// the Spider scorers: a Spider dev gold query and a prediction for it that is another
// item's gold query or real model prediction (from the shared prediction sets) on the
// same database, or one of those with random edits (case, spacing, quotes, aliases,
// joins, operators, signs, limits, semicolons, truncation …), with the official
// evaluator's verdicts on the pair: evaluation.py's exact-set match, the prediction's
// parse outcome, the gold's hardness and the ten partial scores (acc, rec, f1), and
// exec_eval.py's execution match without and with --plug_value (nil where not run),
// and BIRD's EX and soft-F1 (bird-bench/mini_dev evaluation_ex.py, evaluation_f1.py)
// of the prediction as written.
// The verdicts were produced by the unmodified official code (taoyds/test-suite-sql-eval
// and bird-bench/mini_dev, with Debian's NLTK 3.8, sqlparse and Python's SQLite 3.40),
// NLTK's sentence splitter aside: its punkt model is not installed here, so it was
// replaced by one that splits nothing, and no prediction in the file has a period
// before white space or at its end, the only places the model could split. The
// queries derive from Spider (Yu et al., 2018, CC BY-SA 4.0) and the prediction sets
// described in ../shared/data/README.md.
type Mutation struct {
	DBID     string                `json:"db_id"`
	Gold     string                `json:"gold"`
	Pred     string                `json:"pred"`
	Hardness string                `json:"hardness"`
	Exact    int                   `json:"exact"`
	Parsed   bool                  `json:"parsed"`
	Partial  map[string][3]float64 `json:"partial"`
	Exec     *int                  `json:"exec"`
	ExecPlug *int                  `json:"exec_plug"`
	BirdEX   int                   `json:"bird_ex"`
	BirdF1   float64               `json:"bird_soft_f1"`
}

// SpiderMutations reads spider_mutations.jsonl.gz.
func SpiderMutations(tb testing.TB) []Mutation {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	return ReadJSONL[Mutation](tb, filepath.Join(filepath.Dir(file), "spider_mutations.jsonl.gz"))
}

// ReadJSONL reads a file of one JSON value per line (gzip-compressed when its name
// ends in .gz), failing tb with the line of the first that does not decode.
func ReadJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		r = zr
	}
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			tb.Fatalf("%s:%d: %v", path, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return out
}
