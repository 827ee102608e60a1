package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/runner"
	"github.com/qeval/qeval/shard"
)

// benchmarkCommand is the command of a benchmark of registry.Benchmarks: its own flags
// (its files) and the flags every benchmark run shares, run by the runner of suites.
func benchmarkCommand(b qeval.Benchmark) command {
	return command{b.Summary(), func(ctx context.Context, args []string, e *env) int { return cmdBenchmark(ctx, b, args, e) }}
}

// benchmarkFlags are the flags every benchmark command has.
type benchmarkFlags struct {
	outDir, items, shard, resume string
	json, unsafePriv             bool
	workers                      int
	maxBytes                     int64
	timeout                      time.Duration
}

func (f *benchmarkFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.outDir, "o", "", "also write report.json, report.html, report.xlsx, junit.xml, summary.md and results.jsonl to this folder")
	fs.StringVar(&f.items, "items", "", "write one JSON object per item to this file (- for stdout)")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON instead of the official tables")
	fs.IntVar(&f.workers, "workers", 0, "items judged at once (default: number of CPUs)")
	fs.Int64Var(&f.maxBytes, "max-result-bytes", qeval.DefaultMaxBytes, "a query whose result exceeds this many bytes is too_large")
	fs.StringVar(&f.shard, "shard", "", "judge only part `I/N` of the items (round-robin; interactions stay whole); needs --items or -o, beside which a manifest is written; combine the parts with qeval merge")
	fs.StringVar(&f.resume, "resume", "", "continue the run whose results file (DIR/results.jsonl of -o) this is: finished items are kept, the others run")
	fs.DurationVar(&f.timeout, "timeout", qeval.DefaultTimeout, "deadline for each query")
	fs.BoolVar(&f.unsafePriv, "unsafe-allow-privileged", false, "read server databases (a --pred-engine's copies, BIRD's PostgreSQL/MySQL database) even as a user that may read every database (ClickHouse before 20.4, which has no SQL users: the mirror's own user)")
}

// env is what the benchmark takes from the command: the official SQLite, the mirrors,
// the gold cache, the limits.
func (f *benchmarkFlags) env(e *env) qeval.BenchmarkEnv {
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return qeval.BenchmarkEnv{Stderr: e.stderr, Catalog: &registry.Catalog{Openers: registry.OfficialOpeners(), AllowPrivileged: f.unsafePriv},
		Opener: registry.OfficialOpener, Mirror: registry.MirrorForPredictions(e.stderr, f.unsafePriv), AllowPrivileged: f.unsafePriv,
		GoldCache: func(ctx context.Context, spec string) (qeval.Cache, func(), error) {
			o := registry.CacheOptions{Dir: spec, TTL: cache.DefaultTTL}
			if strings.HasPrefix(spec, "redis://") || strings.HasPrefix(spec, "rediss://") {
				o.Dir, o.URL = "", spec
			}
			if err := o.ResolveKey(e.getenv); err != nil { // QEVAL_CACHE_KEY
				return nil, nil, err
			}
			c, closers := registry.OpenCache(ctx, o, logger, true)
			return c, func() {
				for _, cl := range closers {
					cl.Close()
				}
			}, nil
		},
		Limits: qeval.Limits{Timeout: f.timeout, MaxBytes: f.maxBytes}, Workers: f.workers, Explain: f.items != "" || f.outDir != "",
		NewVerifier: registry.NewVerifier}
}

func cmdBenchmark(ctx context.Context, b qeval.Benchmark, args []string, e *env) int {
	fs := newFlags(b.Name(), b.Synopsis(), e)
	open := b.Flags(fs)
	var f benchmarkFlags
	f.declare(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	sh, err := shard.Parse(f.shard)
	if err != nil {
		return fail(e, err)
	}
	if sh != nil && (f.items == "" || f.items == "-") && f.outDir == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--shard needs --items FILE (or -o DIR)",
			Hint: "each shard writes its items and a manifest for qeval merge to combine: --shard 2/4 --items shard2.jsonl"})
	}
	run, err := open(ctx, f.env(e))
	if err != nil {
		return fail(e, err)
	}
	defer run.Close()
	var allIDs []string
	if sh != nil {
		allIDs = run.Shard(sh.I, sh.N)
	}
	rep, code := runBenchmark(ctx, e, b, run, f)
	if rep == nil {
		return code
	}
	sum, err := f.output(e, b, rep, sh, allIDs)
	if err != nil {
		return fail(e, err)
	}
	printBenchmark(e, sum, f.json, f.items == "-")
	if rep.Run.Interrupted {
		fmt.Fprintln(e.stderr, "error: interrupted; the scores above cover the items that finished")
		return exitFailed
	}
	return exitOK
}

// output computes the official summary and writes the reports, the items and a
// shard's manifest.
func (f *benchmarkFlags) output(e *env, b qeval.Benchmark, rep *qeval.Report, sh *shard.Part, allIDs []string) (qeval.BenchmarkSummary, error) {
	cases, err := runner.Cases(rep)
	if err != nil {
		return nil, err
	}
	sum, err := runner.SummarizeBenchmark(b, rep, cases)
	if err != nil {
		return nil, err
	}
	var written []string
	if f.outDir != "" {
		if written, err = writeAllReports(f.outDir, rep); err != nil {
			return nil, err
		}
	}
	if f.items != "" {
		if err := writeItemLines(f.items, e, cases); err != nil {
			return nil, err
		}
	}
	if sh != nil {
		// the shard's report beside its items (or in -o) and the manifest merge reads
		reportPath := filepath.Join(f.outDir, "report.json")
		anchor := reportPath
		if f.outDir == "" {
			anchor = f.items
			reportPath = strings.TrimSuffix(strings.TrimSuffix(f.items, ".jsonl"), ".json") + ".report.json"
			if err := writeReportFile("json", reportPath, rep); err != nil {
				return nil, err
			}
		}
		m := shard.Manifest{Kind: "run", Benchmark: b.Name(), Shard: sh.String(), Items: len(allIDs), Gold: rep.Run.SuitePath, Mode: rep.Run.Mode,
			Version: version, WallMS: rep.Run.DurationMS, CaseIDs: allIDs, Report: filepath.Base(reportPath)}
		if err := shard.WriteManifest(anchor, m); err != nil {
			return nil, err
		}
	}
	if len(written) > 0 {
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	return sum, nil
}

// runBenchmark runs a benchmark's items through the runner. A nil report comes with
// the exit code.
func runBenchmark(ctx context.Context, e *env, b qeval.Benchmark, run qeval.BenchmarkRun, f benchmarkFlags) (*qeval.Report, int) {
	opt := runner.BenchmarkOptions{Concurrency: f.workers, Resume: f.resume, Version: version, Now: e.clock()}
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return nil, fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + f.outDir, Message: err.Error()})
		}
		opt.Results = filepath.Join(f.outDir, "results.jsonl")
	}
	rep, err := runner.RunBenchmark(ctx, b, run, opt)
	if err != nil {
		return nil, fail(e, err)
	}
	return rep, exitOK
}

// printBenchmark prints the warnings and the official tables (or the summary as JSON).
func printBenchmark(e *env, sum qeval.BenchmarkSummary, asJSON, itemsOnStdout bool) {
	// the warnings first: on a terminal they read before the tables they qualify
	for _, w := range sum.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	switch {
	case asJSON:
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(sum)
	case !itemsOnStdout:
		sum.Print(e.stdout)
	}
}

// writeItemLines writes each case's benchmark line, in order (- for stdout).
func writeItemLines(path string, e *env, cases []qeval.CaseResult) error {
	return writeTo(path, e, "--items", func(w io.Writer) error {
		var buf bytes.Buffer
		for _, c := range cases {
			buf.Reset()
			line, err := c.ItemLine()
			if err != nil {
				return fmt.Errorf("case %s: %v", c.ID, err)
			}
			// a line read back from an indented report.json is compacted to one line again
			if err := json.Compact(&buf, line); err != nil {
				return fmt.Errorf("case %s: %v", c.ID, err)
			}
			buf.WriteByte('\n')
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAllReports writes every report format into dir.
func writeAllReports(dir string, rep *qeval.Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + dir, Message: err.Error()}
	}
	var written []string
	for _, name := range registry.WriterNames() {
		w, _ := registry.NewWriter(name)
		p := filepath.Join(dir, w.FileName())
		if err := writeReportFile(name, p, rep); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}
