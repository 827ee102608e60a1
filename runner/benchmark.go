package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/qeval/qeval"
)

// BenchmarkOptions are how a benchmark run is run: the runner's concurrency, resume and
// results file.
type BenchmarkOptions struct {
	// Concurrency bounds the items judged at once (the run's own default when it has
	// one, else GOMAXPROCS).
	Concurrency int
	// Results is the results file each finished item goes to ("" for none); Resume a
	// results file whose finished items are kept (it is then the results file).
	Results, Resume string
	Version         string
	Now             func() time.Time
}

// RunBenchmark runs a benchmark's items as the cases of a suite, each scored by the
// benchmark's own verdict, and records the benchmark in the report. Its official
// summary is added by SummarizeBenchmark.
func RunBenchmark(ctx context.Context, b qeval.Benchmark, run qeval.BenchmarkRun, opt BenchmarkOptions) (*qeval.Report, error) {
	s := run.Suite()
	cfg := Config{Score: run.Score, Concurrency: opt.Concurrency, Version: opt.Version, Now: opt.Now}
	if w, ok := run.(interface{ Workers() int }); ok && opt.Concurrency <= 0 && w.Workers() > 0 {
		cfg.Concurrency = w.Workers() // a run that waits on other processes or servers
	}
	path := opt.Results
	var loaded *Results
	if opt.Resume != "" {
		var err error
		if loaded, err = LoadResults(opt.Resume); err != nil {
			return nil, err
		}
		cfg.Done, path = loaded.Done, opt.Resume
	}
	if path != "" {
		var results *ResultsWriter
		var err error
		if loaded != nil {
			results, err = ResumeResults(path, loaded)
		} else {
			os.Remove(path) // a new run starts a new results file
			results, err = CreateResults(path)
		}
		if err != nil {
			return nil, err
		}
		defer results.Close()
		cfg.Store = results
	}
	rep, err := Run(ctx, s, cfg)
	if err != nil {
		return nil, err
	}
	if rep.Store != nil {
		// read the cases back now: the store closes when this returns
		cases, err := Cases(rep)
		if err != nil {
			return nil, err
		}
		rep.Cases, rep.Store = cases, nil
	}
	rep.Run.ResumedFrom = opt.Resume
	if rep.Run.Mode == "" {
		rep.Run.Mode = s.Mode
	}
	rep.Run.Benchmark = &qeval.BenchmarkInfo{Name: b.Name(), Version: b.Version(), Metas: []json.RawMessage{run.Meta()}}
	return rep, nil
}

// Cases are a report's cases in full, in order.
func Cases(rep *qeval.Report) ([]qeval.CaseResult, error) {
	out := make([]qeval.CaseResult, len(rep.Cases))
	for i := range rep.Cases {
		c, err := rep.Case(i)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "read the run's results", Message: err.Error()}
		}
		out[i] = *c
	}
	return out, nil
}

// SummarizeBenchmark computes a benchmark run's official summary from its cases (a
// run, or the merged shards of one) and records it, with its printout, in the report.
func SummarizeBenchmark(b qeval.Benchmark, rep *qeval.Report, cases []qeval.CaseResult) (qeval.BenchmarkSummary, error) {
	sum, err := b.Summarize(rep.Run.Benchmark.Metas, cases)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(sum)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "encode the " + b.Name() + " summary", Message: err.Error()}
	}
	var tables bytes.Buffer
	sum.Print(&tables)
	rep.Run.Benchmark.Summary, rep.Run.Benchmark.Tables = raw, tables.String()
	return sum, nil
}
