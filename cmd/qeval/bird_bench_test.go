package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"
)

// BenchmarkBird is the whole `qeval bird` command (EX and soft-F1) in process, start-up
// excluded, on the items clients/python/bench_bird.py times against BIRD's official
// scripts: DAIL-SQL's 972 Spider predictions written in BIRD's formats, the
// difficulties simple, moderate, challenging in turn.
func BenchmarkBird(b *testing.B) {
	sp := filepath.Join(testdata.SharedDir(b), "spider")
	dir := b.TempDir()
	if err := writeBirdItems(sp, "predictions/dailsql_gpt4_no_wta1.txt", dir); err != nil {
		b.Fatal(err)
	}
	args := []string{"bird", "--pred", dir + "/pred.json", "--gold", dir + "/gold.sql", "--diff", dir + "/diff.jsonl", "--db", sp + "/database"}
	for b.Loop() {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// writeBirdItems writes a Spider prediction file and the Spider gold in BIRD's formats
// into dir (pred.json, gold.sql, diff.jsonl), as bench_bird.py does.
func writeBirdItems(spider, pred, dir string) error {
	gold, err := os.ReadFile(filepath.Join(spider, "dev_gold_no_wta1.sql"))
	if err != nil {
		return err
	}
	p, err := os.ReadFile(filepath.Join(spider, pred))
	if err != nil {
		return err
	}
	golds, preds := strings.Split(strings.TrimSpace(string(gold)), "\n"), strings.Split(strings.TrimSpace(string(p)), "\n")
	if len(golds) != len(preds) {
		return fmt.Errorf("%s: %d lines, the gold has %d", pred, len(preds), len(golds))
	}
	items := map[string]string{}
	var diff strings.Builder
	for i, g := range golds {
		items[fmt.Sprint(i)] = preds[i] + "\t----- bird -----\t" + g[strings.LastIndexByte(g, '\t')+1:]
		fmt.Fprintf(&diff, `{"question_id": %d, "difficulty": %q}`+"\n", i, []string{"simple", "moderate", "challenging"}[i%3])
	}
	raw, err := json.Marshal(items)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"pred.json": raw, "gold.sql": []byte(strings.Join(golds, "\n") + "\n"), "diff.jsonl": []byte(diff.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
