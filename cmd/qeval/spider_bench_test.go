package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"
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
