package main

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/registry"
)

// BenchmarkSpider is the whole `qeval spider` command on one 972-item prediction set,
// in process (start-up excluded): reading the files, judging every item, grading the
// hardness of every gold query and printing the table.
func BenchmarkSpider(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	args := []string{"spider", "--gold", sp + "/dev_gold_no_wta1.sql", "--pred", sp + "/predictions/dailsql_gpt4_no_wta1.txt", "--db", sp + "/database"}
	for b.Loop() {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkVerifySpider is the whole `qeval verify` command on one 972-item prediction
// set (c3_chatgpt, the set with most matches to decide), in process: execution match,
// then for each of its 805 matches a counterexample or a bounded proof, two at a time.
// Target: at most 10 minutes on 2 cores.
func BenchmarkVerifySpider(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	for b.Loop() {
		args := []string{"verify", "--gold", sp + "/dev_gold_no_wta1.sql", "--pred", sp + "/predictions/c3_chatgpt_no_wta1.txt", "--db", sp + "/database",
			"--table", sp + "/tables.json", "--out", b.TempDir()}
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkSpiderMatch is `qeval spider --etype match` on the same set, in process:
// the official evaluator's exact-set-match, compared side by side in the README.
func BenchmarkSpiderMatch(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	args := []string{"spider", "--gold", sp + "/dev_gold_no_wta1.sql", "--pred", sp + "/predictions/c3_chatgpt_no_wta1.txt", "--db", sp + "/database",
		"--table", sp + "/tables.json", "--etype", "match"}
	for b.Loop() {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkSpiderDuckDB is `qeval spider --pred-engine duckdb` on the set of
// BenchmarkSpider, in process: the predictions run on DuckDB copies of the databases
// (mirrored into the user's cache once, as the command does), the gold on SQLite.
func BenchmarkSpiderDuckDB(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	args := []string{"spider", "--gold", sp + "/dev_gold_no_wta1.sql", "--pred", sp + "/predictions/dailsql_gpt4_no_wta1.txt", "--db", sp + "/database",
		"--pred-engine", "duckdb"}
	for b.Loop() {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkDuckDBFloor is what DuckDB itself needs for the predictions of
// BenchmarkSpiderDuckDB, without qeval: each query run through database/sql on the
// official driver, in-process, on a warm connection per database, as many at once as
// there are CPUs, every row read. Against BenchmarkSpider it bounds from below what
// any cross-engine run can cost.
func BenchmarkDuckDBFloor(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	gold, err := os.ReadFile(sp + "/dev_gold_no_wta1.sql")
	if err != nil {
		b.Fatal(err)
	}
	pred, err := os.ReadFile(sp + "/predictions/dailsql_gpt4_no_wta1.txt")
	if err != nil {
		b.Fatal(err)
	}
	golds, preds := strings.Split(strings.TrimSpace(string(gold)), "\n"), strings.Split(strings.TrimSpace(string(pred)), "\n")
	ctx := context.Background()
	var ids []string
	seen := map[string]bool{}
	for _, g := range golds {
		id := g[strings.LastIndexByte(g, '\t')+1:]
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var srcs []registry.MirrorSource
	for _, id := range ids {
		s, err := registry.MirrorSources(filepath.Join(sp, "database", id, id+".sqlite"))
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, s...)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	done, err := registry.MirrorDuckDBCached(ctx, filepath.Join(cache, "qeval", "mirrors", "duckdb"), srcs)
	if err != nil {
		b.Fatal(err)
	}
	dbs := map[string]*sql.DB{}
	for _, m := range done {
		db, err := sql.Open("duckdb", duckdb.Path(m.Target)+"?access_mode=read_only&threads=1")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		dbs[m.DBID] = db
	}
	runAll := func() {
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					id := golds[i][strings.LastIndexByte(golds[i], '\t')+1:]
					rows, err := dbs[id].QueryContext(ctx, preds[i])
					if err != nil {
						continue // an error costs what it costs, as in the run
					}
					for rows.Next() {
					}
					rows.Close()
				}
			})
		}
		for i := range golds {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	runAll() // warm: every database open, its catalog read
	for b.Loop() {
		runAll()
	}
}
