package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/validate"
)

func cmdValidate(ctx context.Context, args []string, e *env) int {
	fs := newFlags("validate", "[--dialect sqlite|postgres|mysql] [--db FILE] [--allow-tables T1,T2] [FILE|-]", e)
	dialect := fs.String("dialect", sqlparse.SQLite, "SQL dialect: sqlite, postgres or mysql")
	db := fs.String("db", "", "SQLite database whose schema enables the schema checks (unknown tables and columns)")
	allow := fs.String("allow-tables", "", "comma-separated tables the queries may read (default: any)")
	field := fs.String("field", "query", "for a .jsonl FILE: the string field holding the query")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if _, err := sqlparse.Parse(*dialect, "SELECT 1"); qeval.ErrorCode(err) == qeval.CodeInvalid {
		return fail(e, err)
	}
	opt := validate.Options{Dialect: *dialect}
	for _, t := range strings.Split(*allow, ",") {
		if t = strings.TrimSpace(t); t != "" {
			opt.AllowTables = append(opt.AllowTables, t)
		}
	}
	if *db != "" {
		s, err := readSchema(ctx, *db)
		if err != nil {
			return fail(e, err)
		}
		opt.Schema = s
	}
	inputs, err := readQueries(fs.Arg(0), *field, e)
	if err != nil {
		return fail(e, err)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, in := range inputs {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		out := validateOutput{Index: in.index}
		if in.err != "" {
			out.Verdict = validate.Verdict{Category: validate.Other, Problems: []validate.Problem{{Category: validate.Other, Message: in.err}}}
		} else {
			out.Verdict = validate.Check(in.query, opt)
		}
		if err := enc.Encode(out); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write output", Message: err.Error(), Err: err})
		}
	}
	return exitOK
}

// validateOutput is one line of qeval validate's output: the verdict and its input's index.
type validateOutput struct {
	Index int `json:"index"`
	validate.Verdict
}

// readSchema reads the tables and columns of a SQLite database file.
func readSchema(ctx context.Context, path string) (*qeval.Schema, error) {
	ex, err := sqlite.Open(path, qeval.Limits{})
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	return ex.Schema(ctx)
}
