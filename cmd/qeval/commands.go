package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// env is everything of the OS a command may touch. Tests build one with buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// now is the clock (time.Now when nil); the end-to-end tests pin it so a report is
	// the same on every run.
	now func() time.Time
}

// clock returns the environment's clock.
func (e *env) clock() func() time.Time {
	if e.now != nil {
		return e.now
	}
	return time.Now
}

// command is one subcommand: its one-line summary and its entry point, which returns
// an exit code (see exitcodes.go).
type command struct {
	summary string
	run     func(ctx context.Context, args []string, e *env) int
}

// commands is the one list of subcommands. A new subcommand is a file cmd/qeval/<name>.go
// and one line here.
var commands = map[string]command{
	"audit":     {"find gold queries whose verdicts cannot be trusted: failing, order-dependent, tied at a LIMIT, empty, weak, ambiguous, duplicated", cmdAudit},
	"run":       {"run a suite: generate or read queries, execute, score and report every case", cmdRun},
	"diff":      {"compare two report.json files: cases fixed and broken, accuracy change with its interval", cmdDiff},
	"score":     {"compute every metric its inputs allow for one generated query", cmdScore},
	"calibrate": {"report how well stated confidence predicts correctness (JSONL of confidence and correctness, or a run's results.jsonl)", cmdCalibrate},
	"merge":     {"combine the shards of a sharded run (qeval run, spider, bird, spider2 --shard I/N) into the report of the whole run", cmdMerge},
	"modes":     {"list the result comparison modes", cmdModes},
	"parse":     {"print the structure of SQL queries (kind, tables, columns, filters, aggregates) as JSON", cmdParse},
	"validate":  {"say whether SQL queries are valid, safe reads, and why not (JSON per query)", cmdValidate},
	"judge":     {"ask an LLM judge whether a generated query is correct, with its reasoning", cmdJudge},
	"db":        {"set up a database for qeval: setup-role creates a PostgreSQL role or MySQL user that can only read the evaluation schema or database", cmdDB},
	"exec":      {"run one query on any engine (SQL on SQLite, DuckDB, PostgreSQL, MySQL, ClickHouse; KQL on the local engine) and print its result", cmdExec},
	"mirror":    {"copy SQLite databases into DuckDB, PostgreSQL, MySQL or ClickHouse, keeping types, keys and row order", cmdMirror},
	"explain":   {"say why a predicted query is wrong: the differences and a minimal counterexample database", cmdExplain},
	"testsuite": {"build a test suite of generated databases that tell gold queries from their near misses", cmdTestsuite},
	"kql":       {"kql support: every name of the KQL reference and whether the local KQL engine runs it, and why not", cmdKQL},
	"serve":     {"serve the HTTP API and the web page: score queries, run suites with live results", cmdServe},
	"version":   {"print qeval's version, the commit it was built from and the Go version", cmdVersion},
}

// The benchmarks of registry.Benchmarks are commands of their names.
func init() {
	for _, b := range registry.Benchmarks() {
		commands[b.Name()] = benchmarkCommand(b)
	}
}

func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" {
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		hint := "run 'qeval help' for the list of commands"
		if m := qeval.DidYouMean(args[0], names); m != "" {
			hint = fmt.Sprintf("did you mean 'qeval %s'? (%s)", m, hint)
		}
		fmt.Fprintf(e.stderr, "error: unknown command %q\nhint: %s\n", args[0], hint)
		return exitUsage
	}
	return c.run(ctx, args[1:], e)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "qeval measures how good a text-to-query system is.")
	fmt.Fprintln(w, "\nUsage: qeval <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'qeval <command> -h' for the flags of a command.")
}

// newFlags returns a flag set that writes its usage to e.stderr and does not exit.
func newFlags(name, synopsis string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: qeval %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and returns the exit code to use when parsing failed (-1 when
// it did not). -h prints the usage and exits 0.
//
// Flags may come before or after positional arguments (`qeval calibrate FILE --json`),
// for every command alike; "--" ends the flags. fs.Args() holds the positional
// arguments afterwards.
func parseFlags(fs *flag.FlagSet, args []string) int {
	var pos []string
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package's own message and usage: said below
	defer fs.SetOutput(out)
	for {
		if err := fs.Parse(args); err != nil {
			fs.SetOutput(out)
			if errors.Is(err, flag.ErrHelp) {
				fs.Usage()
				return exitOK
			}
			// the error and a one-line hint, not the whole flag list
			fmt.Fprintf(out, "error: %v\n", err)
			hint := fmt.Sprintf("run 'qeval %s -h' for its flags", fs.Name())
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				var known []string
				fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
				if m := qeval.DidYouMean(strings.TrimLeft(name, "-"), known); m != "" {
					hint = fmt.Sprintf("did you mean --%s? (%s)", m, hint)
				}
			}
			fmt.Fprintf(out, "hint: %s\n", hint)
			return exitUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	fs.Parse(append([]string{"--"}, pos...)) // leaves the flags set, and Args() = pos
	return -1
}

// fail prints err as "error: ..." with its hint, and returns the exit code for it.
func fail(e *env, err error) int {
	fmt.Fprintf(e.stderr, "error: %s\n", strings.TrimSpace(qeval.ErrorMessage(err)))
	if h := qeval.ErrorHint(err); h != "" {
		fmt.Fprintf(e.stderr, "hint: %s\n", h)
	}
	switch qeval.ErrorCode(err) {
	case qeval.CodeInvalid, qeval.CodeForbidden:
		// a bad flag, a malformed file or a connection qeval refuses (a privileged role); a missing file or database exits 1, as the
		// run could not be done
		return exitUsage
	}
	return exitFailed
}

// writeTo writes an output file (- for stdout): its folder is made when missing, and
// what cannot be written is an error that names the flag and the file (exit 1: the
// run could not be done).
func writeTo(path string, e *env, flag string, write func(io.Writer) error) error {
	if path == "-" {
		return write(e.stdout)
	}
	fail := func(err error) error {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write " + flag + " " + path, Message: err.Error(), Err: err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fail(err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// splitList reads a comma-separated flag value: its items, trimmed, empty ones left out.
func splitList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
