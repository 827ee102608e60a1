package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/report"
)

// cmdDiff compares two report.json files of the same suite: which cases were fixed
// and which broke, the change of the pass rate and execution accuracy with paired
// bootstrap intervals, McNemar's test, and the component means.
func cmdDiff(_ context.Context, args []string, e *env) int {
	fs := newFlags("diff", "BASE.json HEAD.json [flags]", e)
	format := fs.String("format", "text", "output: text (a table for the terminal), md (Markdown for a pull-request comment) or json")
	failOn := fs.Bool("fail-on-regression", false, "exit 3 when a case broke (PASS → FAIL or ERROR) or the pass rate or execution accuracy fell\n"+
		"beyond chance (the upper end of the 95% paired bootstrap interval of the change is below 0)")
	seed := fs.Uint64("seed", metric.DefaultSeed, "seed of the paired bootstrap")
	resamples := fs.Int("resamples", metric.DefaultResamples, "resamples of the paired bootstrap")
	files, code := parseInterspersed(fs, args)
	if code >= 0 {
		return code
	}
	write := map[string]func(*report.Diff) error{
		"text":     func(d *report.Diff) error { return d.WriteText(e.stdout) },
		"md":       func(d *report.Diff) error { return d.WriteMarkdown(e.stdout) },
		"markdown": func(d *report.Diff) error { return d.WriteMarkdown(e.stdout) },
		"json":     func(d *report.Diff) error { return d.WriteJSON(e.stdout) },
	}[*format]
	switch {
	case write == nil:
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --format %q (known: json, md, text)", *format)})
	case len(files) != 2:
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("diff needs two reports, BASE.json and HEAD.json (got %d)", len(files)),
			Hint: "qeval diff base/report.json head/report.json --format md"})
	case *resamples < 1:
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--resamples must be at least 1, not %d", *resamples)})
	}
	base, err := report.ReadFile(files[0])
	if err != nil {
		return fail(e, err)
	}
	head, err := report.ReadFile(files[1])
	if err != nil {
		return fail(e, err)
	}
	d, err := report.Compare(base, head, report.DiffOptions{BaseName: files[0], HeadName: files[1],
		Bootstrap: metric.BootstrapOptions{Seed: *seed, Resamples: *resamples}})
	if err != nil {
		return fail(e, err)
	}
	if err := write(d); err != nil {
		return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write diff", Err: err})
	}
	if *failOn && d.Regression {
		fmt.Fprintf(e.stderr, "regression: %s\n", strings.Join(d.Reasons, "; "))
		return exitThreshold
	}
	return exitOK
}

// parseInterspersed parses flags placed before, between or after the positional
// arguments (the flag package stops at the first non-flag), and returns the positional
// ones. Everything after "--" is positional. The code is -1 unless parsing failed or
// asked for help (see parseFlags).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, int) {
	if code := parseFlags(fs, args); code >= 0 {
		return nil, code
	}
	return fs.Args(), -1
}
