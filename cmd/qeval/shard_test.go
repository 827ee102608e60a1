package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/report"
)

// withoutTimings drops what differs between two runs of the same items (the times).
func withoutTimings(t *testing.T, b []byte, keys ...string) string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		for _, k := range keys {
			delete(m, k)
		}
		c, _ := json.Marshal(m)
		out = append(out, string(c))
	}
	return strings.Join(out, "\n")
}

// checkShardsMerge runs the files whole and in n shards, merges the shards and checks
// the per-item verdicts and the report are the same.
func checkShardsMerge(t *testing.T, n int, gold, pred, db string, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	base := append([]string{"spider", "--gold", gold, "--pred", pred, "--db", db}, extra...)
	whole := filepath.Join(dir, "whole.jsonl")
	code, wholeJSON, stderr := runCLI(t, "", append(base, "--json", "--items", whole)...)
	if code != exitOK {
		t.Fatalf("whole run: code %d: %s", code, stderr)
	}
	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	for i := 1; i <= n; i++ {
		code, _, stderr := runCLI(t, "", append(base, "--shard", fmt.Sprintf("%d/%d", i, n), "--items", filepath.Join(shards, fmt.Sprintf("part%d.jsonl", i)))...)
		if code != exitOK {
			t.Fatalf("shard %d/%d: code %d: %s", i, n, code, stderr)
		}
	}
	merged := filepath.Join(dir, "merged.jsonl")
	code, mergedJSON, stderr := runCLI(t, "", "merge", "--json", "--items", merged, shards)
	if code != exitOK {
		t.Fatalf("merge: code %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(merged)
	if wa, wb := withoutTimings(t, a, "pred_ms", "gold_ms"), withoutTimings(t, b, "pred_ms", "gold_ms"); wa != wb {
		t.Errorf("the merged items differ from the whole run's:\nwhole:  %.400s\nmerged: %.400s", wa, wb)
	}
	if ra, rb := withoutTimings(t, []byte(compactJSON(t, wholeJSON)), "timings_ms"), withoutTimings(t, []byte(compactJSON(t, mergedJSON)), "timings_ms"); ra != rb {
		t.Errorf("the merged report differs from the whole run's:\nwhole:  %s\nmerged: %s", ra, rb)
	}
}

func compactJSON(t *testing.T, s string) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return buf.String()
}

func TestShard_SpiderExampleMerged(t *testing.T) {
	checkShardsMerge(t, 4, exampleDir+"/gold.sql", exampleDir+"/pred.txt", exampleDir+"/database",
		"--etype", "all", "--table", exampleDir+"/tables.json")
	checkShardsMerge(t, 3, exampleDir+"/gold.sql", exampleDir+"/pred.txt", exampleDir+"/database")
}

// A multi-turn file is sharded by interaction (turns stay together), empty
// interactions included, and joint accuracy comes out the same.
func TestShard_InteractionsMerged(t *testing.T) {
	dir := t.TempDir()
	g := "SELECT count(*) FROM singer\tconcert_singer\nSELECT name FROM singer\tconcert_singer\n\n" +
		"SELECT count(*) FROM stadium\tconcert_singer\n\n\nSELECT 1\tconcert_singer\nSELECT 2\tconcert_singer\n\nSELECT 3\tconcert_singer\n"
	p := "SELECT count(*) FROM singer\nSELECT name FROM singer WHERE 0\n\nSELECT count(*) FROM stadium\n\n\nSELECT 1\nSELECT 2\n\nSELECT 4\n"
	gold, pred := writeFile(t, dir, "gold.sql", g), writeFile(t, dir, "pred.txt", p)
	checkShardsMerge(t, 2, gold, pred, exampleDir+"/database")
	checkShardsMerge(t, 5, gold, pred, exampleDir+"/database")
}

// The Spider dev set with a real model's predictions, in four shards.
func TestShard_SpiderDevMerged(t *testing.T) {
	data := filepath.Join(testdata.SharedDir(t), "spider")
	checkShardsMerge(t, 4, filepath.Join(data, "dev_gold_no_wta1.sql"), filepath.Join(data, "predictions", "c3_chatgpt_no_wta1.txt"),
		filepath.Join(data, "database"), "--etype", "all", "--table", filepath.Join(data, "tables.json"))
}

func TestShard_BadInput(t *testing.T) {
	dir := t.TempDir()
	base := []string{"spider", "--gold", exampleDir + "/gold.sql", "--pred", exampleDir + "/pred.txt", "--db", exampleDir + "/database"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(base, "--shard", "5/4", "--items", filepath.Join(dir, "x.jsonl")), "--shard 5/4"},
		{append(base, "--shard", "a/b", "--items", filepath.Join(dir, "x.jsonl")), "not I/N"},
		{append(base, "--shard", "1/2"), "--shard needs --items"},
		{[]string{"merge"}, "no shards given"},
		{[]string{"merge", dir}, "no *.shard.json manifest"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code == exitOK || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	// a missing shard, and a shard given twice
	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	for i := 1; i <= 2; i++ {
		if code, _, stderr := runCLI(t, "", append(base, "--shard", fmt.Sprintf("%d/3", i), "--items", filepath.Join(shards, fmt.Sprintf("p%d.jsonl", i)))...); code != exitOK {
			t.Fatalf("shard %d: %s", i, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "merge", shards); code == exitOK || !strings.Contains(stderr, "missing shards: 3/3") {
		t.Errorf("missing shard: code %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "merge", shards, filepath.Join(shards, "p1.shard.json")); code == exitOK || !strings.Contains(stderr, "given twice") {
		t.Errorf("shard twice: code %d, %s", code, stderr)
	}
	// a torn shard report names the file and line
	if code, _, stderr := runCLI(t, "", append(base, "--shard", "3/3", "--items", filepath.Join(shards, "p3.jsonl"))...); code != exitOK {
		t.Fatal(stderr)
	}
	torn, _ := os.ReadFile(filepath.Join(shards, "p3.report.json"))
	os.WriteFile(filepath.Join(shards, "p3.report.json"), torn[:len(torn)/2], 0o644)
	if code, _, stderr := runCLI(t, "", "merge", shards); code == exitOK || !strings.Contains(stderr, "p3.report.json") {
		t.Errorf("torn items: code %d, %s", code, stderr)
	}
}

// TestSpider_GoldCache: a second run on the same databases runs no gold query and
// gives the same verdicts; the cache is a folder or Redis.
func TestSpider_GoldCache(t *testing.T) {
	caches := []string{t.TempDir()}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second); err == nil {
		c.Close()
		caches = append(caches, "redis://127.0.0.1:6379/0")
	} else {
		t.Logf("no Redis at 127.0.0.1:6379 (%v): only the folder cache is tested", err)
	}
	dir := t.TempDir()
	base := []string{"spider", "--gold", exampleDir + "/gold.sql", "--pred", exampleDir + "/pred.txt", "--db", exampleDir + "/database"}
	plain := filepath.Join(dir, "plain.jsonl")
	if code, _, stderr := runCLI(t, "", append(base, "--items", plain)...); code != exitOK {
		t.Fatal(stderr)
	}
	want, _ := os.ReadFile(plain)
	for _, c := range caches {
		for run := 1; run <= 2; run++ {
			items := filepath.Join(dir, fmt.Sprintf("run%d.jsonl", run))
			code, _, stderr := runCLI(t, "", append(base, "--cache", c, "--items", items)...)
			if code != exitOK {
				t.Fatalf("%s run %d: %s", c, run, stderr)
			}
			if run == 2 && !strings.Contains(stderr, "50 from the cache, 0 executed") {
				t.Errorf("%s: the second run executed gold queries: %s", c, stderr)
			}
			got, _ := os.ReadFile(items)
			if withoutTimings(t, got, "pred_ms", "gold_ms") != withoutTimings(t, want, "pred_ms", "gold_ms") {
				t.Errorf("%s run %d: verdicts differ from a run without the cache", c, run)
			}
		}
	}
}

// TestRun_GoldCache: qeval run --gold-cache runs no gold query the second time, and
// all of them again under another --cache-epoch.
func TestRun_GoldCache(t *testing.T) {
	cacheDir, dir := t.TempDir(), t.TempDir()
	var counts [3]int
	var total int
	for run := 0; run < 3; run++ {
		out := filepath.Join(dir, fmt.Sprint(run))
		epoch := map[bool]string{true: "2"}[run == 2]
		code, _, stderr := runCLI(t, "", "run", "../../examples/chinook/suite.yaml", "--judge", "none", "--gold-cache", "--cache-dir", cacheDir, "--cache-epoch", epoch, "-o", out)
		if code != exitOK && code != exitThreshold {
			t.Fatalf("run %d: code %d: %s", run, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		total = strings.Count(string(b), "\n")
		counts[run] = strings.Count(string(b), `"gold_cached":true`)
	}
	if total == 0 || counts[1] != total || counts[0] >= total || counts[2] != counts[0] {
		t.Fatalf("gold results from the cache: first run %d, second run %d, under a new epoch %d, of %d cases", counts[0], counts[1], counts[2], total)
	}
}

// TestRun_ShardsMerged: qeval run --shard 1/3 … 3/3 and qeval merge give the cases,
// verdicts and aggregates (bootstrap intervals included) of one unsharded run.
func TestRun_ShardsMerged(t *testing.T) {
	dir := t.TempDir()
	suitePath := "../../examples/chinook/suite.yaml"
	whole := filepath.Join(dir, "whole.json")
	if code, _, errOut := runCLI(t, "", "run", suitePath, "--quiet", "--judge", "none", "--json", whole); code != exitOK && code != exitThreshold && code != exitFailed {
		t.Fatalf("unsharded run: exit %d\n%s", code, errOut)
	}
	var shardDirs []string
	total := 0
	for i := 1; i <= 3; i++ {
		d := filepath.Join(dir, fmt.Sprintf("shard%d", i))
		code, _, errOut := runCLI(t, "", "run", suitePath, "--quiet", "--judge", "none", "--shard", fmt.Sprintf("%d/3", i), "-o", d)
		if code != exitOK && code != exitThreshold && code != exitFailed {
			t.Fatalf("shard %d: exit %d\n%s", i, code, errOut)
		}
		r, err := report.ReadFile(filepath.Join(d, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cases) == 0 {
			t.Errorf("shard %d has no cases: the hash should spread 56 cases over 3 shards", i)
		}
		total += len(r.Cases)
		shardDirs = append(shardDirs, d)
	}
	out := filepath.Join(dir, "merged")
	code, _, errOut := runCLI(t, "", append([]string{"merge", "-o", out}, shardDirs...)...)
	if code != exitOK && code != exitThreshold {
		t.Fatalf("merge: exit %d\n%s", code, errOut)
	}
	a, err := report.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cases) != len(b.Cases) || total != len(a.Cases) {
		t.Fatalf("%d cases merged from %d in the shards, %d unsharded", len(b.Cases), total, len(a.Cases))
	}
	for i := range a.Cases {
		x, y := a.Cases[i], b.Cases[i]
		if x.ID != y.ID || x.Status != y.Status || !sameScore(x.TotalScore, y.TotalScore) || (x.Verdict == nil) != (y.Verdict == nil) ||
			x.Verdict != nil && x.Verdict.Outcome != y.Verdict.Outcome {
			t.Errorf("case %d: unsharded %s %s, merged %s %s", i, x.ID, x.Status, y.ID, y.Status)
		}
	}
	a.Summary.Slowest, b.Summary.Slowest = nil, nil // durations differ from run to run
	sa, _ := json.Marshal(a.Summary)
	sb, _ := json.Marshal(b.Summary)
	if string(sa) != string(sb) {
		t.Errorf("summaries differ:\nunsharded %s\nmerged    %s", sa, sb)
	}
	// a shard given twice, or one missing, is refused with the reason
	if code, _, errOut := runCLI(t, "", "merge", shardDirs[0], shardDirs[0], shardDirs[1]); code == exitOK || !strings.Contains(errOut, "given twice") {
		t.Errorf("shard twice: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "merge", shardDirs[0], shardDirs[1]); code == exitOK || !strings.Contains(errOut, "missing shards: 3/3") {
		t.Errorf("shard missing: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "run", suitePath, "--shard", "1/3"); code != exitUsage || !strings.Contains(errOut, "must be written") {
		t.Errorf("shard without a report: exit %d %s", code, errOut)
	}
}

func sameScore(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
