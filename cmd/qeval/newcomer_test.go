package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// An unknown flag, on any command, is the error and a one-line hint: at most five
// lines, not the command's whole usage (issue 46 counted 70).
func TestUnknownFlag_Short(t *testing.T) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	sub := map[string]string{"db": "setup-role", "kql": "support", "testsuite": "build"}
	for _, name := range names {
		args := []string{name, "--no-such-flag"}
		if s := sub[name]; s != "" {
			args = []string{name, s, "--no-such-flag"}
		}
		code, _, stderr := runCLI(t, "", args...)
		if n := strings.Count(strings.TrimRight(stderr, "\n"), "\n") + 1; code != exitUsage || n > 5 || !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("qeval %s --no-such-flag: code %d, %d lines:\n%s", name, code, n, stderr)
		}
	}
}

// A mistyped command or mode gets a "did you mean".
func TestDidYouMean(t *testing.T) {
	for _, args := range [][]string{{"rn"}, {"run", "--mode", "bags", filepath.Join(repoRoot, "examples", "chinook", "suite.yaml")}} {
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "did you mean") {
			t.Errorf("qeval %s: code %d, %s", strings.Join(args, " "), code, stderr)
		}
	}
}

// qeval spider --shard 1/2 --items new/dir/part1.jsonl makes the folders it writes into.
func TestSpider_ShardItemsIntoNewFolder(t *testing.T) {
	ex := filepath.Join(repoRoot, "examples", "spider")
	items := filepath.Join(t.TempDir(), "new", "dir", "part1.jsonl")
	code, _, stderr := runCLI(t, "", "spider", "--gold", filepath.Join(ex, "gold.sql"), "--pred", filepath.Join(ex, "pred.txt"),
		"--db", filepath.Join(ex, "database"), "--shard", "1/2", "--items", items)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	for _, f := range []string{items, strings.TrimSuffix(items, ".jsonl") + ".shard.json"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}
