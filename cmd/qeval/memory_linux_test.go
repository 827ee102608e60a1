//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/qeval/qeval/internal/residency"
)

func rssKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// exeReadOnlyKB is how much of each of the executable's read-only mappings is resident,
// by address range.
func exeReadOnlyKB(t *testing.T) map[string]int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("the test binary's path is unknown here: %v", err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	kb, mapping := map[string]int{}, ""
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 6 && strings.Contains(f[0], "-") {
			mapping = ""
			if f[5] == exe && !strings.Contains(f[1], "w") {
				mapping = f[0]
			}
			continue
		}
		if mapping != "" && len(f) == 3 && f[0] == "Rss:" {
			kb[mapping], _ = strconv.Atoi(f[1])
		}
	}
	return kb
}

// Releasing the start-up pages (internal/residency) gives back pages of each large
// read-only mapping of the executable, its data as well as its code (the data was once
// kept whole because its last file page is also the first of the relocated segment),
// and the program goes on working: the code it runs afterwards comes back from the page
// cache, and C code reached through the pointers the dynamic loader wrote still runs
// (this test binary is cgo-linked, as qeval is: releasing the relocated pages crashes it).
func TestReleaseStartupPages(t *testing.T) {
	before, beforeRO := rssKB(t), exeReadOnlyKB(t)
	residency.Release()
	after, afterRO := rssKB(t), exeReadOnlyKB(t)
	if after >= before {
		t.Errorf("VmRSS %d kB before, %d kB after: nothing released", before, after)
	}
	for m, kb := range beforeRO {
		// a large mapping: what the test itself touches again cannot fill it back
		if kb >= 16<<10 && afterRO[m] >= kb {
			t.Errorf("read-only mapping %s: %d kB resident before, %d kB after: not released", m, kb, afterRO[m])
		}
	}
	t.Logf("VmRSS %d -> %d kB; read-only mappings %v -> %v kB", before, after, beforeRO, afterRO)
	if code, out, _ := runCLI(t, "", "modes"); code != exitOK || !strings.Contains(out, "spider-ts@1") {
		t.Errorf("the CLI does not work after the release: %d %q", code, out)
	}
	db := abs(t, exampleDir+"/database/concert_singer/concert_singer.sqlite")
	if code, out, _ := runCLI(t, "", "exec", "--db", db, "--query", "SELECT count(*) FROM singer"); code != exitOK || !strings.Contains(out, "6") {
		t.Errorf("SQLite after the release: %d %q", code, out)
	}
}

// Results that are huge in bytes but few in rows (a hundred-megabyte blob per row, nine
// such columns, an 8-way cross join) are too_large, and the whole run stays under
// 512 MiB of peak resident memory.
func TestHostileResultsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test runs three hostile queries in a child process (up to 512 MiB)")
	}
	dir := t.TempDir()
	blob := "randomblob(100000000)"
	suite := writeFile(t, dir, "suite.yaml", `name: hostile results
database: `+abs(t, exampleDir+"/database/concert_singer/concert_singer.sqlite")+`
cases:
  - {id: blob20, question: q, expected_query: SELECT 1, generated_query: "SELECT `+blob+` FROM singer"}
  - {id: blob9, question: q, expected_query: SELECT 1, generated_query: "SELECT `+strings.Repeat(blob+", ", 8)+blob+` FROM singer"}
  - {id: cross, question: q, expected_query: SELECT 1, generated_query: "SELECT * FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h"}
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "--", "run", suite, "-o", out)
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	b, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %s", err, b)
	}
	peakKB := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	results, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if n := strings.Count(string(results), `"outcome":"too_large"`); n < 3 {
		t.Errorf("%d too_large outcomes, want one per case at least:\n%s", n, results)
	}
	if peakKB > 512<<10 {
		t.Errorf("peak RSS %d MiB, want under 512 MiB", peakKB>>10)
	}
	t.Logf("peak RSS %d MiB", peakKB>>10)
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A run of hostile queries of every kind stays under 512 MiB of peak resident memory:
// results just under the byte cap (cross joins, rows of megabyte blobs) finishing while
// a slow case holds the head of the suite (their previews once kept each whole result
// alive until it ended), a 200 KB chain of 100,000 `+` (hundreds of megabytes of parser
// stack), and the garbage all of it leaves (the soft memory limit follows the run's
// results budget).
func TestHostileRunMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test runs a dozen hostile queries in a child process (up to 512 MiB)")
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("name: hostile run\ndatabase: " + abs(t, "../../examples/chinook/chinook.sqlite") + "\nconcurrency: 2\ncases:\n")
	add := func(id, q string) {
		fmt.Fprintf(&b, "  - {id: %s, question: q, expected_query: SELECT 1, generated_query: %q}\n", id, q)
	}
	add("slow", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT count(*) FROM c")
	for i, t := range []string{"Genre", "Artist", "Employee", "MediaType", "Playlist", "Genre", "Artist", "Employee"} {
		add(fmt.Sprintf("cross%d", i), "SELECT * FROM "+t+" x, Artist y, Employee z")
	}
	for i := range 4 {
		add(fmt.Sprintf("blobs%d", i), "SELECT zeroblob(1000000), randomblob(1000000) FROM Genre")
	}
	add("plus", "SELECT 1"+strings.Repeat("+1", 100_000))
	add("not", "SELECT "+strings.Repeat("NOT ", 200_000)+"1")
	suite := writeFile(t, dir, "suite.yaml", b.String())
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "--", "run", suite, "-o", out)
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=", "GOMEMLIMIT=", "GOGC=")
	o, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %s", err, o)
	}
	peakKB := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	results, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if n := strings.Count(string(results), "\n"); n != 15 {
		t.Errorf("%d cases in results.jsonl, want 15:\n%s", n, o)
	}
	if !strings.Contains(string(results), "query too complex (100000 operators") {
		t.Errorf("the + chain was not refused as too complex")
	}
	if len(results) > 4<<20 {
		t.Errorf("results.jsonl is %d bytes: the explanations copy whole values", len(results))
	}
	if peakKB > 512<<10 {
		t.Errorf("peak RSS %d MiB, want under 512 MiB", peakKB>>10)
	}
	t.Logf("peak RSS %d MiB", peakKB>>10)
}

// A DuckDB value built outside DuckDB's memory_limit (one 8 GB block, then more) fails
// its query under the address-space cap; the system no longer kills the process (it
// grew to 24 GB and was killed before the cap).
func TestAddressSpaceCap_DuckDBMemoryBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test runs a memory bomb in a child process (capped at 4 GiB of address space)")
	}
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "", "mirror", "--to", "duckdb:"+dir, abs(t, "../../examples/chinook/chinook.sqlite")); code != exitOK {
		t.Fatalf("mirror: %d %s", code, stderr)
	}
	db := filepath.Join(dir, "chinook.duckdb")
	cmd := exec.Command(os.Args[0], "--", "exec", "--db", "duckdb:"+db, "--timeout", "10s", "--query", "SELECT length(list_value(range(1000000000)))")
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "QEVAL_MAX_MEMORY=4GiB")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || !ee.Exited() || ee.ExitCode() == 0 {
		t.Fatalf("want the query to fail and qeval to exit by itself: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "out of memory") {
		t.Errorf("output %q, want an out-of-memory error for the query", out)
	}
	if peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; peak > 1<<20 {
		t.Errorf("peak RSS %d MiB, want far under the cap", peak>>10)
	}
}

// The address-space cap bounds qeval's engines, not the system under test: a target
// command starts with the limit qeval started with (a model server reserving more
// address space than the cap would fail under it).
func TestAddressSpaceCap_TargetCommandUncapped(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "target.sh", "#!/bin/sh\ncat >/dev/null\necho \"{\\\"query\\\": \\\"SELECT '$(ulimit -v)' AS v\\\"}\"\n")
	if err := os.Chmod(target, 0o755); err != nil {
		t.Fatal(err)
	}
	suite := writeFile(t, dir, "suite.yaml", "name: limits\ndatabase: "+abs(t, "../../examples/chinook/chinook.sqlite")+
		"\ncases:\n  - {id: a, question: q, expected_query: \"SELECT 'unlimited' AS v\"}\n")
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "--", "run", suite, "--target-command", target, "--judge", "none", "-o", out)
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "QEVAL_MAX_MEMORY=4GiB")
	b, _ := cmd.CombinedOutput()
	results, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var want syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_AS, &want)
	limit := "unlimited"
	if want.Cur != ^uint64(0) {
		limit = strconv.FormatUint(want.Cur/1024, 10)
	}
	if !strings.Contains(string(results), `"generated_query":"SELECT '`+limit+`' AS v"`) {
		t.Errorf("the target command ran with another address-space limit than qeval's own start (want %s):\n%s", limit, results)
	}
}
