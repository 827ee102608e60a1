package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/validate"
)

func cmdValidate(ctx context.Context, args []string, e *env) int {
	fs := newFlags("validate", "[--dialect sqlite|postgres|mysql|kql] [--db FILE | --data DIR] [--allow-tables T1,T2] [--format json|sarif] [--rules] (--query TEXT | FILE | -)", e)
	dialect := fs.String("dialect", sqlparse.SQLite, "query language: sqlite, postgres, mysql, or kql (Kusto Query Language, checked by the KQL rules)")
	db := fs.String("db", "", "a database whose schema enables the schema checks (SQLite file; for kql a SQLite file or data file)")
	data := fs.String("data", "", "kql: a folder of data files (Table.csv, schema.kql) whose tables and datetime columns the KQL rules read")
	allow := fs.String("allow-tables", "", "comma-separated tables the queries may read (default: any)")
	field := fs.String("field", "query", "for a .jsonl FILE: the string field holding the query")
	query := fs.String("query", "", "one query to check, instead of a FILE or stdin")
	format := fs.String("format", "json", "output: json (a verdict per line) or sarif (a SARIF 2.1.0 log for code-scanning tools)")
	listRules := fs.Bool("rules", false, "print the KQL rules (id, name, level, description) and exit")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *listRules {
		enc := json.NewEncoder(e.stdout)
		for _, r := range validate.KQLRules {
			if err := enc.Encode(r); err != nil {
				return fail(e, err)
			}
		}
		return exitOK
	}
	if *format != "json" && *format != "sarif" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--format %q: want json or sarif", *format)})
	}
	opt, err := validateOptions(ctx, *dialect, *db, *data, *allow)
	if err != nil {
		return fail(e, err)
	}
	inputs, err := readQueries(*query, fs.Arg(0), *field, e)
	if err != nil {
		return fail(e, err)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	file := fs.Arg(0)
	if file == "" || file == "-" {
		file = "stdin"
	}
	var located []validate.Located
	for _, in := range inputs {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		out := validateOutput{Index: in.Index}
		if in.Err != "" {
			out.Verdict = validate.Verdict{Category: validate.Other, Problems: []validate.Problem{{Category: validate.Other, Message: in.Err}}}
		} else {
			out.Verdict = validate.Check(in.Text, opt)
		}
		if *format == "sarif" {
			located = append(located, validate.Located{File: file, Line: in.Index + 1, Verdict: out.Verdict})
			continue
		}
		if err := enc.Encode(out); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write output", Message: err.Error(), Err: err})
		}
	}
	if *format == "sarif" {
		if err := validate.WriteSARIF(e.stdout, version, located); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write SARIF", Message: err.Error(), Err: err})
		}
	}
	return exitOK
}

// validateOptions are qeval validate's checks: the dialect (a SQL dialect or kql), the
// tables the queries may read, and the schema of --db (or, for kql, --data).
func validateOptions(ctx context.Context, dialect, db, data, allow string) (validate.Options, error) {
	opt := validate.Options{Dialect: dialect}
	isKQL := strings.EqualFold(dialect, validate.KQL)
	if !isKQL {
		if _, err := sqlparse.Parse(dialect, "SELECT 1"); qeval.ErrorCode(err) == qeval.CodeInvalid {
			return opt, &qeval.Error{Code: qeval.CodeInvalid, Message: qeval.ErrorMessage(err) + " or kql"}
		}
		if data != "" {
			return opt, &qeval.Error{Code: qeval.CodeInvalid, Message: "--data is for --dialect kql"}
		}
	}
	opt.AllowTables = splitList(allow)
	var err error
	switch {
	case isKQL && (data != "" || db != ""):
		opt.Schema, err = readKQLSchema(ctx, data+db)
	case db != "":
		opt.Schema, err = readSchema(ctx, db)
	}
	return opt, err
}

// readKQLSchema reads the tables and column types of a KQL source (a data folder, a
// data file or a SQLite file) through the local KQL engine.
func readKQLSchema(ctx context.Context, source string) (*qeval.Schema, error) {
	return registry.ReadSchema(ctx, "kql:"+source)
}

// validateOutput is one line of qeval validate's output: the verdict and its input's index.
type validateOutput struct {
	Index int `json:"index"`
	validate.Verdict
}

// readSchema reads the tables and columns of a SQLite database file.
func readSchema(ctx context.Context, path string) (*qeval.Schema, error) {
	return registry.ReadSchema(ctx, path)
}
