package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/report"
)

func cmdCalibrate(_ context.Context, args []string, e *env) int {
	fs := newFlags("calibrate", "[FILE|-] [flags]\n\nFILE holds one JSON object per line: "+
		`{"confidence": "high"|"medium"|"low"|<0..1>, "correct": <bool|0..1>}, or is a run's results.jsonl `+
		`(each case's stated confidence against its execution verdict); - or nothing reads stdin.`, e)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	bins := fs.Int("bins", metric.DefaultBins, "equal-width bins of ECE, MCE, Brier decomposition and reliability diagram")
	resamples := fs.Int("resamples", metric.DefaultResamples, "bootstrap resamples of the accuracy intervals (0 for none)")
	seed := fs.Uint64("seed", metric.DefaultSeed, "seed of the bootstrap")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "give one file (or - for stdin)",
			Hint: "qeval calibrate confidences.jsonl"})
	}
	name, r := "stdin", e.stdin
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			code := qeval.CodeInvalid
			msg := err.Error()
			if errors.Is(err, os.ErrNotExist) {
				code, msg = qeval.CodeNotFound, "no such file"
			}
			return fail(e, &qeval.Error{Code: code, Op: "open " + name, Message: msg})
		}
		defer f.Close()
		r = f
	}
	in, err := metric.ReadCalibrationCases(name, r)
	if err != nil {
		return fail(e, err)
	}
	cases := in.Cases
	if note := in.LeftOut(); note != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", note)
	}
	bo := metric.BootstrapOptions{Resamples: *resamples, Seed: *seed}
	if *resamples <= 0 {
		bo.Resamples = -1
	}
	rep, err := metric.Calibrate(cases, metric.CalibrationOptions{Bins: *bins, Bootstrap: bo})
	if err != nil {
		return fail(e, err)
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(e, err)
		}
		return exitOK
	}
	report.PrintCalibration(e.stdout, rep)
	return exitOK
}
