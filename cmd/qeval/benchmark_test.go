package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/server"
)

// benchmarkRuns are the bundled examples of each benchmark command.
var benchmarkRuns = map[string][]string{
	"spider": {"spider", "--gold", exampleDir + "/gold.sql", "--pred", exampleDir + "/pred.txt", "--db", exampleDir + "/database",
		"--etype", "all", "--table", exampleDir + "/tables.json"},
	"bird": {"bird", "--pred", "../../examples/bird/predict_dev.json", "--gold", "../../examples/bird/dev.sql",
		"--diff", "../../examples/bird/dev.json", "--db", exampleDir + "/database"},
	"spider2": {"spider2", "--mode", "sql", "--result-dir", "../../examples/spider2/pred_sql", "--gold-dir", "../../examples/spider2/gold",
		"--db", exampleDir + "/database", "--metadata", "../../examples/spider2/spider2-lite.jsonl"},
}

// Each benchmark command with -o writes every report beside the official printout: the
// report carries the benchmark, its official tables (the printout itself) and a case
// per item whose line is the --items line.
func TestBenchmark_ReportsBesideThePrintout(t *testing.T) {
	for name, args := range benchmarkRuns {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			items := filepath.Join(dir, "items.jsonl")
			code, plain, stderr := runCLI(t, "", append(args, "--items", items)...)
			if code != exitOK {
				t.Fatalf("code %d: %s", code, stderr)
			}
			out := filepath.Join(dir, "out")
			code, withO, stderr := runCLI(t, "", append(args, "-o", out)...)
			if code != exitOK {
				t.Fatalf("-o: code %d: %s", code, stderr)
			}
			if withO != plain {
				t.Errorf("the printout changed with -o:\n%s\nwant\n%s", withO, plain)
			}
			for _, f := range []string{"report.json", "report.html", "report.xlsx", "junit.xml", "summary.md", "results.jsonl"} {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			rep, err := report.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Run.Benchmark == nil || rep.Run.Benchmark.Name != name || rep.Run.Benchmark.Tables != plain {
				t.Fatalf("report.json's benchmark: %+v; want %s with the printout as its tables", rep.Run.Benchmark, name)
			}
			lines, _ := os.ReadFile(items)
			want := strings.Split(strings.TrimSpace(string(lines)), "\n")
			if len(rep.Cases) != len(want) || len(want) == 0 {
				t.Fatalf("%d cases, %d items", len(rep.Cases), len(want))
			}
			passed := 0
			for i, c := range rep.Cases {
				if got, w := withoutTimings(t, []byte(compactJSON(t, string(c.Item))), "pred_ms", "gold_ms"), withoutTimings(t, []byte(want[i]), "pred_ms", "gold_ms"); got != w {
					t.Errorf("case %d: item %s, want %s", i, got, w)
				}
				if c.Status == "PASS" {
					passed++
				}
			}
			if rep.Summary.Passed != passed || passed == 0 || passed == len(want) {
				t.Errorf("summary passed %d, cases passed %d of %d", rep.Summary.Passed, passed, len(want))
			}
		})
	}
}

// Shards of every benchmark merge into the unsharded run: the same items, the same
// official tables, the same report cases.
func TestBenchmark_ShardsMerge(t *testing.T) {
	for name, args := range benchmarkRuns {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole.jsonl")
			code, wholeOut, stderr := runCLI(t, "", append(args, "--items", whole)...)
			if code != exitOK {
				t.Fatalf("code %d: %s", code, stderr)
			}
			for i := 1; i <= 3; i++ {
				code, _, stderr := runCLI(t, "", append(args, "--shard", fmt.Sprintf("%d/3", i), "-o", filepath.Join(dir, "shards", fmt.Sprint(i)))...)
				if code != exitOK {
					t.Fatalf("shard %d: code %d: %s", i, code, stderr)
				}
			}
			merged := filepath.Join(dir, "merged.jsonl")
			code, mergedOut, stderr := runCLI(t, "", "merge", "--items", merged, "-o", filepath.Join(dir, "all"),
				filepath.Join(dir, "shards", "1"), filepath.Join(dir, "shards", "2"), filepath.Join(dir, "shards", "3"))
			if code != exitOK {
				t.Fatalf("merge: code %d: %s", code, stderr)
			}
			if mergedOut != wholeOut {
				t.Errorf("merged tables:\n%s\nwant\n%s", mergedOut, wholeOut)
			}
			a, _ := os.ReadFile(whole)
			b, _ := os.ReadFile(merged)
			if wa, wb := withoutTimings(t, a, "pred_ms", "gold_ms"), withoutTimings(t, b, "pred_ms", "gold_ms"); wa != wb {
				t.Errorf("merged items differ:\n%.300s\nwant\n%.300s", wb, wa)
			}
			if _, err := report.ReadFile(filepath.Join(dir, "all", "report.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

// A benchmark run's report.json, imported into the server, is listed with its runs and
// opens at /runs/{id}.
func TestBenchmark_RunOnTheServer(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "", append(benchmarkRuns["spider"], "-o", dir)...); code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	rep, err := report.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id, err := srv.Import(context.Background(), rep)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	get := func(path string, v any) int {
		res, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if v != nil {
			json.NewDecoder(res.Body).Decode(v)
		}
		return res.StatusCode
	}
	var list struct {
		Runs []struct {
			ID, Suite, Status string
			Done, Passed      int
		}
	}
	get("/api/runs", &list)
	if len(list.Runs) != 1 || list.Runs[0].ID != id || list.Runs[0].Suite != "spider" || list.Runs[0].Done != 50 || list.Runs[0].Passed != rep.Summary.Passed {
		t.Fatalf("run list %+v; want run %s of spider with 50 cases", list.Runs, id)
	}
	if code := get("/runs/"+id, nil); code != http.StatusOK {
		t.Errorf("/runs/%s: %d", id, code)
	}
	var view map[string]any
	if code := get("/api/runs/"+id, &view); code != http.StatusOK || view["status"] != "finished" {
		t.Errorf("/api/runs/%s: %d %v", id, code, view["status"])
	}
}

// --db means the same in every command: a folder of <db_id>/<db_id>.sqlite names each
// database by its db_id, for a suite as for a benchmark.
func TestRun_DBFolderNamesEachDatabase(t *testing.T) {
	dir := t.TempDir()
	suite := writeFile(t, dir, "suite.jsonl",
		`{"id":"a","question":"how many singers","database":"concert_singer","expected_query":"SELECT count(*) FROM singer","generated_query":"SELECT count(*) FROM singer"}`+"\n"+
			`{"id":"b","question":"how many pets","database":"pets_1","expected_query":"SELECT count(*) FROM Pets","generated_query":"SELECT count(*) FROM Pets WHERE 0"}`+"\n")
	code, _, stderr := runCLI(t, "", "run", suite, "--db", exampleDir+"/database", "--judge", "none", "--json", filepath.Join(dir, "r.json"), "--quiet")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	rep, err := report.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 2 || rep.Cases[0].Verdict == nil || !rep.Cases[0].Verdict.Match || rep.Cases[1].Verdict == nil || rep.Cases[1].Verdict.Match {
		t.Fatalf("cases %+v", rep.Cases)
	}
	if code, _, stderr := runCLI(t, "", "run", suite, "--db", filepath.Join(dir, "nowhere")); code != exitUsage || !strings.Contains(stderr, "NAME=TARGET") {
		t.Errorf("a missing folder: code %d, %s", code, stderr)
	}
}
