package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/suite"
)

func cmdParse(ctx context.Context, args []string, e *env) int {
	fs := newFlags("parse", "[--dialect sqlite|postgres|mysql|kql|malloy] [--model FILE.malloy --db TARGET] [--field NAME] (--query TEXT | FILE | -)", e)
	dialect := fs.String("dialect", sqlparse.SQLite, "query language: sqlite, postgres, mysql (SQL), kql, or malloy (compiled with --model against --db: the SQL and the structure the compiler describes)")
	field := fs.String("field", "query", "for a .jsonl FILE: the string field holding the query")
	query := fs.String("query", "", "one query to parse, instead of a FILE or stdin")
	var models modelFlag
	fs.Var(&models, "model", "malloy: the model's .malloy file (repeat for a model of several files)")
	db := fs.String("db", "", "malloy: the database the model's sources read (duckdb:FILE, postgres://…, mirror:duckdb:FILE.sqlite)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if strings.EqualFold(*dialect, qeval.DialectMalloy) {
		inputs, err := readQueries(*query, fs.Arg(0), *field, e)
		if err != nil {
			return fail(e, err)
		}
		m, err := openMalloy(ctx, e, *db, models, qeval.Limits{}, false)
		if err != nil {
			return fail(e, err)
		}
		defer m.Close()
		return parseMalloy(ctx, e, inputs, m)
	}
	if len(models) > 0 || *db != "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--model and --db are for --dialect malloy"})
	}
	if !strings.EqualFold(*dialect, "kql") {
		if _, err := sqlparse.Parse(*dialect, "SELECT 1"); qeval.ErrorCode(err) == qeval.CodeInvalid {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: qeval.ErrorMessage(err) + " (or kql, malloy)"})
		}
	}
	inputs, err := readQueries(*query, fs.Arg(0), *field, e)
	if err != nil {
		return fail(e, err)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, in := range inputs {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		out := parseOutput{Index: in.Index, Tables: []string{}, Columns: []qeval.ColumnRef{}, Filters: []qeval.Filter{}, Aggregates: []qeval.Aggregate{}}
		if in.Err != "" {
			out.Error = &queryError{Message: in.Err}
		} else if s, err := parseShape(*dialect, in.Text); err != nil {
			qe := &queryError{Message: qeval.ErrorMessage(err)}
			if x, ok := err.(*qeval.Error); ok {
				qe.Line, qe.Col = x.Line, x.Col
			}
			out.Error = qe
		} else {
			out.OK = true
			out.Kind, out.Tables, out.Columns, out.Filters, out.Aggregates = s.Kind, s.Tables, s.Columns, s.Filters, s.Aggregates
			out.Aliases, out.GroupBy, out.OrderBy, out.Limit = s.Aliases, s.GroupBy, s.OrderBy, s.Limit
		}
		if err := enc.Encode(out); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write output", Message: err.Error(), Err: err})
		}
	}
	return exitOK
}

// parseShape parses one query of a SQL dialect or KQL into its shape. KQL errors come
// back as *qeval.Error with the position of the first problem.
func parseShape(dialect, text string) (*qeval.Shape, error) {
	if strings.EqualFold(dialect, "kql") {
		s, err := kql.ParseShape(text)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return sqlparse.Parse(dialect, text)
}

// parseOutput is one line of qeval parse's output.
type parseOutput struct {
	Index      int               `json:"index"`
	OK         bool              `json:"ok"`
	Error      *queryError       `json:"error"`
	Kind       string            `json:"kind"`
	Tables     []string          `json:"tables"`
	Columns    []qeval.ColumnRef `json:"columns"`
	Filters    []qeval.Filter    `json:"filters"`
	Aggregates []qeval.Aggregate `json:"aggregates"`
	Aliases    map[string]string `json:"aliases,omitempty"`
	GroupBy    []string          `json:"group_by,omitempty"`
	OrderBy    []qeval.OrderTerm `json:"order_by,omitempty"`
	Limit      string            `json:"limit,omitempty"`
}

type queryError struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
}

// readQueries reads the queries to parse or validate: the one of --query, or those of
// path ("" or "-" for stdin), one per line or the string field of each line of a .jsonl.
func readQueries(query, path, field string, e *env) ([]suite.Query, error) {
	if query != "" {
		if path != "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "give --query or a FILE, not both"}
		}
		return []suite.Query{{Text: query}}, nil
	}
	var r io.Reader = e.stdin
	name := "stdin"
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + path, Message: "no such file", Err: err}
		}
		defer f.Close()
		r, name = f, path
	}
	return suite.ReadQueries(r, name, strings.HasSuffix(strings.ToLower(path), ".jsonl"), field)
}
