package registry

import (
	"context"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/malloy"
)

// MalloyCompiler is the compiler of Malloy suites and of qeval exec and parse
// --dialect malloy: the official Malloy compiler in one Node helper for the run,
// started on the first Malloy query and ended by Close. notify is told when the
// compiler is being installed (once, with npm).
func MalloyCompiler(notify func(string)) *malloy.Compiler {
	return &malloy.Compiler{Notify: notify}
}

// MalloyConn is a Malloy model's connection, open, with its compiler: what qeval exec
// and parse --dialect malloy compile and run against.
type MalloyConn struct {
	files []string
	src   *qeval.Source
	ex    qeval.Executor
	c     *malloy.Compiler
}

// OpenMalloy opens the database the model's sources read (db: a duckdb:FILE, a
// postgres:// or mysql:// DSN, or mirror:duckdb:FILE.sqlite) and a compiler for the
// model files; notify is told when the compiler is being installed.
func OpenMalloy(ctx context.Context, db string, models []string, p Params, notify func(string)) (*MalloyConn, error) {
	if len(models) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--dialect malloy needs the model: --model FILE.malloy",
			Hint: "qeval exec --dialect malloy --model model.malloy --db duckdb:data.duckdb --query 'run: t -> { aggregate: n is count() }'"}
	}
	if db == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--dialect malloy needs --db: the database the model's sources read (duckdb:FILE, postgres://…, mirror:duckdb:FILE.sqlite)"}
	}
	cat := &Catalog{AllowPrivileged: p.AllowPrivileged}
	src, err := cat.Resolve(ctx, db, "sql")
	if err != nil {
		return nil, err
	}
	ex, err := src.Open(src.Files[0], p.Limits)
	if err != nil {
		return nil, err
	}
	return &MalloyConn{files: models, src: src, ex: ex, c: MalloyCompiler(notify)}, nil
}

// Compile compiles one Malloy query with the model: a query the compiler rejects is a
// qeval.CodeCompile error with its line and column.
func (m *MalloyConn) Compile(ctx context.Context, query string) (*qeval.CompiledQuery, error) {
	return m.c.Compile(ctx, m.files, m.src, m.ex, query)
}

// Executor is the connection the compiled SQL runs on.
func (m *MalloyConn) Executor() qeval.Executor { return m.ex }

// Close ends the compiler's helper and the connection.
func (m *MalloyConn) Close() {
	m.c.Close()
	m.ex.Close()
}
