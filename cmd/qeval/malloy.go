package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/malloy"
	"github.com/qeval/qeval/registry"
)

// modelFlag is --model, given once per model file (or comma-separated).
type modelFlag []string

func (m *modelFlag) String() string { return strings.Join(*m, ",") }

func (m *modelFlag) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*m = append(*m, f)
		}
	}
	return nil
}

// malloyConn is a Malloy model's connection, open: the database --db names (a
// duckdb:FILE, a postgres:// or mysql:// DSN, or mirror:duckdb:FILE.sqlite), and the
// compiler.
type malloyConn struct {
	files []string
	src   *qeval.Source
	ex    qeval.Executor
	c     *malloy.Compiler
}

// openMalloy opens what compiling Malloy against --db needs.
func openMalloy(ctx context.Context, e *env, db string, models []string, limits qeval.Limits, unsafePriv bool) (*malloyConn, error) {
	if len(models) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--dialect malloy needs the model: --model FILE.malloy", Hint: "qeval exec --dialect malloy --model model.malloy --db duckdb:data.duckdb --query 'run: t -> { aggregate: n is count() }'"}
	}
	if db == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--dialect malloy needs --db: the database the model's sources read (duckdb:FILE, postgres://…, mirror:duckdb:FILE.sqlite)"}
	}
	cat := &registry.Catalog{AllowPrivileged: unsafePriv}
	src, err := cat.Resolve(ctx, db, "sql")
	if err != nil {
		return nil, err
	}
	ex, err := src.Open(src.Files[0], limits)
	if err != nil {
		return nil, err
	}
	return &malloyConn{files: models, src: src, ex: ex, c: registry.MalloyCompiler(func(msg string) { fmt.Fprintln(e.stderr, msg) })}, nil
}

func (m *malloyConn) Close() {
	m.c.Close()
	m.ex.Close()
}

// malloyParseOutput is one line of qeval parse --dialect malloy: the compiled SQL and
// the query's structure as the compiler describes it.
type malloyParseOutput struct {
	Index   int          `json:"index"`
	OK      bool         `json:"ok"`
	Error   *queryError  `json:"error"`
	SQL     string       `json:"sql,omitempty"`
	Dialect string       `json:"dialect,omitempty"`
	Shape   *qeval.Shape `json:"shape,omitempty"`
}

// parseMalloy compiles each input query with the model and prints its SQL and shape.
func parseMalloy(ctx context.Context, e *env, inputs []queryInput, m *malloyConn) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, in := range inputs {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		out := malloyParseOutput{Index: in.index}
		if in.err != "" {
			out.Error = &queryError{Message: in.err}
		} else if cq, err := m.c.Compile(ctx, m.models(), m.src, m.ex, in.query); err != nil {
			if code := qeval.ErrorCode(err); code != qeval.CodeCompile && code != qeval.CodeTooLarge {
				return fail(e, err) // the model or the compiler, not this query
			}
			qe := &queryError{Message: qeval.ErrorMessage(err)}
			qe.Line, qe.Col = lineColOf(err)
			out.Error = qe
		} else {
			out.OK, out.SQL, out.Dialect, out.Shape = true, cq.SQL, cq.Dialect, cq.Shape
			if cq.Shape == nil {
				out.Error = &queryError{Message: cq.ShapeError}
			}
		}
		if err := enc.Encode(out); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write output", Message: err.Error(), Err: err})
		}
	}
	return exitOK
}

func (m *malloyConn) models() []string { return m.files }

// compileForExec compiles the query of qeval exec --dialect malloy; a query the
// compiler rejects is printed as a query error.
func (m *malloyConn) compile(ctx context.Context, text string) (string, error) {
	cq, err := m.c.Compile(ctx, m.files, m.src, m.ex, text)
	if err != nil {
		return "", err
	}
	return cq.SQL, nil
}

func lineColOf(err error) (int, int) {
	if x, ok := err.(*qeval.Error); ok {
		return x.Line, x.Col
	}
	return 0, 0
}
