package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/registry"
)

func cmdScore(ctx context.Context, args []string, e *env) int {
	fs := newFlags("score", "--generated SQL [--expected SQL] [flags]", e)
	generated := fs.String("generated", "", "the generated query (required)")
	expected := fs.String("expected", "", "the expected (gold) query")
	tables := fs.String("expected-tables", "", "comma-separated tables the query should read (default: those of --expected)")
	db := fs.String("db", "", "database: a SQLite file or test-suite folder, or a DSN (postgres://…, mysql://…); run both queries for execution_match, results_match and schema_match")
	question := fs.String("question", "", "the question the query answers (for the LLM judge)")
	dialect := fs.String("dialect", "sqlite", "SQL dialect of the queries: sqlite, postgres or mysql (default: the --db engine's)")
	mode := fs.String("mode", "", "comparison mode of execution_match (default "+qeval.DefaultMode+"; see 'qeval modes')")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline of each query with --db")
	var safetyValid, isValid, shouldPass optBool
	fs.Var(&safetyValid, "safety-valid", "the validator's safety flag (`BOOL`: true if it found the query safe)")
	fs.Var(&isValid, "is-valid", "the validator's overall verdict (`BOOL`)")
	fs.Var(&shouldPass, "should-pass", "whether the validator should accept the query (`BOOL`)")
	var validatorErrors stringList
	fs.Var(&validatorErrors, "validator-error", "a message of the validator (repeat for several)")
	jsonOut := fs.Bool("json", false, "print the metrics as JSON")
	unsafePriv := fs.Bool("unsafe-allow-privileged", false, "run the queries on a server even as a privileged role")
	jf := addJudgeFlags(fs, registry.DefaultProvider)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0)),
			Hint: "quote each query: qeval score --generated 'SELECT ...' --expected 'SELECT ...'"})
	}
	if strings.TrimSpace(*generated) == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --generated",
			Hint: "qeval score --generated 'SELECT name FROM users' --expected 'SELECT name FROM users'"})
	}
	c := metric.Case{
		Dialect: *dialect, Question: *question, Generated: *generated, Expected: *expected,
		SafetyValid: safetyValid.p, IsValid: isValid.p, ShouldPass: shouldPass.p, ValidatorErrors: validatorErrors,
	}
	if *tables != "" {
		c.ExpectedTables = append([]string{}, splitList(*tables)...)
	}
	switch {
	case *db == "":
		c.ExecutionSkipped = "no --db given"
	case strings.TrimSpace(*expected) == "":
		c.ExecutionSkipped = "no --expected query to compare with"
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	if *db != "" {
		closeDB, err := scoreOnDatabase(ctx, &c, *db, *mode, *timeout, *unsafePriv, flagSet(fs, "dialect"))
		if err != nil {
			return fail(e, err)
		}
		defer closeDB()
	}
	askOnMatch, err := jf.askOnExecMatch("", true)
	if err != nil {
		return fail(e, err)
	}
	js, err := jf.open(ctx, e, logger)
	if err != nil {
		return fail(e, err)
	}
	defer js.Close()
	results := metric.Score(ctx, c, metric.Config{Options: metric.Options{Logger: logger, Judge: js.Judge, JudgeOnExecMatch: askOnMatch}, JudgeSkipped: js.Skipped}).Metrics
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"metrics": results}); err != nil {
			return fail(e, err)
		}
	} else {
		metric.WriteTable(e.stdout, results)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "error: interrupted")
		return exitFailed
	}
	return exitOK
}

// scoreOnDatabase resolves and opens --db once for qeval score: a missing or broken
// database is a usage fault, not a failed metric. Its schema feeds the reference check
// of validation_accuracy, its engine says which dialect the queries are in (unless
// --dialect was given) and which tables each reads, and both queries run on it unless
// execution is skipped.
func scoreOnDatabase(ctx context.Context, c *metric.Case, db, mode string, timeout time.Duration, unsafePriv, dialectGiven bool) (func(), error) {
	ev, err := execmatch.New(execmatch.Options{Mode: mode, Catalog: &registry.Catalog{AllowPrivileged: unsafePriv}, Limits: qeval.Limits{Timeout: timeout}})
	if err != nil {
		return nil, err
	}
	src, ex, err := ev.Describe(ctx, db)
	if err != nil {
		ev.Close()
		return nil, err
	}
	if !dialectGiven {
		c.Dialect = src.Dialect
	}
	if sr, ok := ex.(qeval.SchemaReader); ok {
		if c.Schema, err = sr.Schema(ctx); err != nil {
			ev.Close()
			return nil, err
		}
	}
	// the engine's own answer to which tables each query reads (a query the engine
	// rejects keeps the parser's answer)
	if rr, ok := ex.(interface {
		Reads(context.Context, string) (*qeval.Shape, error)
	}); ok {
		c.GeneratedReads, _ = rr.Reads(ctx, c.Generated)
		if strings.TrimSpace(c.Expected) != "" {
			c.ExpectedReads, _ = rr.Reads(ctx, c.Expected)
		}
	}
	if c.ExecutionSkipped == "" {
		v := ev.Match(ctx, qeval.Item{Database: db, Pred: c.Generated, Gold: c.Expected})
		c.Execution = &v
	}
	return func() { ev.Close() }, nil
}

// optBool is a boolean flag that takes its value as the next argument
// (--should-pass false) and remembers whether it was given.
type optBool struct{ p *bool }

func (b *optBool) String() string {
	if b == nil || b.p == nil {
		return ""
	}
	return strconv.FormatBool(*b.p)
}

func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a boolean (true or false)", s)
	}
	b.p = &v
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, "; ") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}
