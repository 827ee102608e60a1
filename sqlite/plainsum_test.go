package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// TestPlainSums: with PlainSums, sum adds floats in scan order as SQLite 3.40 did, so
// the last digits move when the scan is reversed (Spider dev item 425 sums
// 570.84 one way and 570.8399999999999 the other under the official SQLite); the
// compensated sum of today's SQLite gives one value both ways.
func TestPlainSums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.sqlite")
	w, err := sqlite.Create(path, "CREATE TABLE t (x REAL, n INT)")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]qeval.Value
	for _, x := range []float64{0.1, 0.2, 0.3, 1e16, -1e16, 0.7} {
		rows = append(rows, []qeval.Value{qeval.Float(x), qeval.Int(3)})
	}
	rows = append(rows, []qeval.Value{qeval.Null, qeval.Null})
	if _, err := w.Insert("t", []string{"x", "n"}, rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	q := "SELECT sum(x), total(x), avg(x), sum(n), avg(n), sum(x) FILTER (WHERE 0) FROM t"
	run := func(o sqlite.Options) []qeval.Value {
		ex, err := sqlite.OpenWith(path, qeval.Limits{}, 1, o)
		if err != nil {
			t.Fatal(err)
		}
		defer ex.Close()
		rs, err := ex.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return rs.Rows[0]
	}
	fwd, rev := run(sqlite.Options{PlainSums: true}), run(sqlite.Options{PlainSums: true, ReverseScanOrder: true})
	if fwd[0] == rev[0] || fwd[0].Kind != qeval.KindFloat {
		t.Errorf("plain sum forward %v, reversed %v: want two floats that differ", fwd[0], rev[0])
	}
	if fwd[0] != fwd[1] || fwd[2] != qeval.Float(fwd[0].Float/6) {
		t.Errorf("total %v and avg %v do not follow sum %v", fwd[1], fwd[2], fwd[0])
	}
	if fwd[3] != qeval.Int(18) || fwd[4] != qeval.Float(3) || fwd[5] != qeval.Null {
		t.Errorf("sum(n)=%v avg(n)=%v empty sum=%v, want 18, 3.0, NULL", fwd[3], fwd[4], fwd[5])
	}
	if a, b := run(sqlite.Options{}), run(sqlite.Options{ReverseScanOrder: true}); a[0] != b[0] {
		t.Logf("note: this SQLite's own sum moves too (%v, %v)", a[0], b[0])
	}
}
