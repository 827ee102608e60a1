package execmatch_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/testdata"
)

// benchSet is the prediction set the speed targets are stated on.
const benchSet = "dailsql_gpt4"

// BenchmarkFloor is the physical floor of a Spider execution-accuracy run: the same
// 1,944 queries (972 gold + 972 predictions, as written) executed one after another with
// the same driver, every row fetched, one connection per database reused, no rewriting,
// no comparison. `qeval spider` must stay within 1.5x of it.
func BenchmarkFloor(b *testing.B) {
	data := testdata.SharedDir(b)
	oracle := readOracle(b, filepath.Join(data, "spider", "oracle", benchSet+".jsonl"))
	dbs := map[string]*sql.DB{}
	for _, o := range oracle {
		if dbs[o.DBID] == nil {
			path := filepath.Join(data, "spider", "database", o.DBID, o.DBID+".sqlite")
			db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
			if err != nil {
				b.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			defer db.Close()
			dbs[o.DBID] = db
		}
	}
	b.ResetTimer()
	for b.Loop() {
		rows := 0
		for _, o := range oracle {
			for _, q := range []string{o.Gold, o.Pred} {
				rs, err := dbs[o.DBID].Query(q)
				if err != nil {
					continue
				}
				cols, _ := rs.Columns()
				dest := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range dest {
					ptrs[i] = &dest[i]
				}
				for rs.Next() {
					rs.Scan(ptrs...)
					rows++
				}
				rs.Close()
			}
		}
	}
}

// BenchmarkRun is execmatch's whole judgement of the same set: rewrites, execution on
// every database, comparison, with the default concurrency.
func BenchmarkRun(b *testing.B) {
	data := testdata.SharedDir(b)
	oracle := readOracle(b, filepath.Join(data, "spider", "oracle", benchSet+".jsonl"))
	items := make([]qeval.Item, len(oracle))
	for i, o := range oracle {
		items[i] = qeval.Item{Database: filepath.Join(data, "spider", "database", o.DBID), Gold: o.Gold, Pred: o.Pred}
	}
	e, err := execmatch.New(spiderOpts(execmatch.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ResetTimer()
	for b.Loop() {
		_, s := e.Run(context.Background(), items, 0, nil)
		if s.Correct != 809 {
			b.Fatalf("correct = %d, want 809", s.Correct)
		}
	}
}
