package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/qeval/qeval/internal/lines"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/sqlparse"
)

func cmdParse(ctx context.Context, args []string, e *env) int {
	fs := newFlags("parse", "[--dialect sqlite|postgres|mysql|kql|malloy] [--model FILE.malloy --db TARGET] [--field NAME] [FILE|-]", e)
	dialect := fs.String("dialect", sqlparse.SQLite, "query language: sqlite, postgres, mysql (SQL), kql, or malloy (compiled with --model against --db: the SQL and the structure the compiler describes)")
	field := fs.String("field", "query", "for a .jsonl FILE: the string field holding the query")
	var models modelFlag
	fs.Var(&models, "model", "malloy: the model's .malloy file (repeat for a model of several files)")
	db := fs.String("db", "", "malloy: the database the model's sources read (duckdb:FILE, postgres://…, mirror:duckdb:FILE.sqlite)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if strings.EqualFold(*dialect, qeval.DialectMalloy) {
		inputs, err := readQueries(fs.Arg(0), *field, e)
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
		out := parseOutput{Index: in.index, Tables: []string{}, Columns: []qeval.ColumnRef{}, Filters: []qeval.Filter{}, Aggregates: []qeval.Aggregate{}}
		if in.err != "" {
			out.Error = &queryError{Message: in.err}
		} else if s, err := parseShape(*dialect, in.query); err != nil {
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

// queryInput is one query read by parse or validate; err is set when the input line
// held no query (a JSONL line that is not an object with the string field).
type queryInput struct {
	index int
	query string
	err   string
}

// readQueries reads the queries of path ("" or "-" for stdin): one per line, or for a
// .jsonl file the string field of each object. Every line is an input, blank ones too,
// so output lines stay aligned with input lines.
func readQueries(path, field string, e *env) ([]queryInput, error) {
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
	jsonl := strings.HasSuffix(strings.ToLower(path), ".jsonl")
	sc := lines.New(r)
	var out []queryInput
	for i := 0; sc.Scan(); i++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		in := queryInput{index: i, query: line}
		if jsonl {
			in.query, in.err = jsonField(line, field)
			if in.err != "" {
				in.err = fmt.Sprintf("%s:%d: %s", name, i+1, in.err)
			}
		}
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + name, Message: err.Error(), Err: err}
	}
	return out, nil
}

func jsonField(line, field string) (string, string) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		return "", "not a JSON object: " + err.Error()
	}
	s, ok := obj[field].(string)
	if !ok {
		return "", fmt.Sprintf("no string field %q", field)
	}
	return s, ""
}
