package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/shard"
)

// cmdMerge combines the shards of a sharded run into the report of the whole run:
// the same aggregates and, with --items, the same per-item lines as one unsharded run.
func cmdMerge(ctx context.Context, args []string, e *env) int {
	fs := newFlags("merge", "[--json] [--items OUT.jsonl] [-o DIR] SHARD…", e)
	jsonOut := fs.Bool("json", false, "print the summary (for qeval run shards: the report) as JSON instead of the table")
	itemsPath := fs.String("items", "", "write the items of every shard, in order, to this file (- for stdout)")
	outDir := fs.String("o", "", "for qeval run shards: write the merged report.json, report.xlsx, junit.xml, report.html and summary.md to this folder")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "no shards given",
			Hint: "qeval merge shards/ (a folder of ITEMS.shard.json manifests), or the manifests or items files themselves"})
	}
	ms, err := shard.FindManifests(fs.Args())
	if err != nil {
		return fail(e, err)
	}
	return mergeRunShards(e, ms, *outDir, *itemsPath, *jsonOut)
}

// mergeRunShards combines the reports of qeval run --shard I/N into the report of the
// whole run and writes it as every report format (-o) or prints it.
func mergeRunShards(e *env, ms []*shard.Manifest, outDir, itemsPath string, asJSON bool) int {
	rep, missing, err := shard.Merge(ms)
	if err != nil {
		return fail(e, err)
	}
	if rep.Run.Benchmark != nil {
		if missing > 0 {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: fmt.Sprintf("%d items are missing from every shard (a shard stopped early?)", missing)})
		}
		return mergeBenchmark(e, ms, rep, outDir, itemsPath, asJSON)
	}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + outDir, Message: err.Error()})
		}
		var written []string
		for _, name := range registry.WriterNames() {
			w, _ := registry.NewWriter(name)
			p := filepath.Join(outDir, w.FileName())
			if err := writeReportFile(name, p, rep); err != nil {
				return fail(e, err)
			}
			written = append(written, p)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		report.Text{}.Write(e.stdout, rep)
	}
	fmt.Fprintf(e.stderr, "merged %d shards: %d cases\n", len(ms), len(rep.Cases))
	if missing > 0 {
		fmt.Fprintf(e.stderr, "incomplete: %d cases of the suite are in no shard's report (an interrupted shard?)\n", missing)
		return exitFailed
	}
	return gates(e, rep, -1, -1)
}

// mergeBenchmark finishes the merge of a benchmark run's shards: the official summary
// computed again from every item, the items and the reports written.
func mergeBenchmark(e *env, ms []*shard.Manifest, rep *qeval.Report, outDir, itemsPath string, asJSON bool) int {
	b, err := registry.LookupBenchmark(rep.Run.Benchmark.Name)
	if err != nil {
		return fail(e, err)
	}
	sum, err := runner.SummarizeBenchmark(b, rep, rep.Cases)
	if err != nil {
		return fail(e, err)
	}
	if outDir != "" {
		written, err := writeAllReports(outDir, rep)
		if err != nil {
			return fail(e, err)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if itemsPath != "" {
		if err := writeItemLines(itemsPath, e, rep.Cases); err != nil {
			return fail(e, err)
		}
	}
	printBenchmark(e, sum, asJSON, itemsPath == "-")
	fmt.Fprintf(e.stderr, "merged %d shards: %d items\n", len(ms), len(rep.Cases))
	return exitOK
}
