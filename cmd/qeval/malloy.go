package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
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

// openMalloy opens what compiling Malloy against --db needs.
func openMalloy(ctx context.Context, e *env, db string, models []string, limits qeval.Limits, unsafePriv bool) (*registry.MalloyConn, error) {
	return registry.OpenMalloy(ctx, db, models, registry.Params{Limits: limits, AllowPrivileged: unsafePriv},
		func(msg string) { fmt.Fprintln(e.stderr, msg) })
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
func parseMalloy(ctx context.Context, e *env, inputs []suite.Query, m *registry.MalloyConn) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, in := range inputs {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		out := malloyParseOutput{Index: in.Index}
		if in.Err != "" {
			out.Error = &queryError{Message: in.Err}
		} else if cq, err := m.Compile(ctx, in.Text); err != nil {
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

func lineColOf(err error) (int, int) {
	if x, ok := err.(*qeval.Error); ok {
		return x.Line, x.Col
	}
	return 0, 0
}
