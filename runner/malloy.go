package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Compiler compiles a Malloy query of the model made of files, whose sources read
// conn, into SQL for conn (malloy.Compiler); ex is conn open, borrowed to read the
// schemas of its tables. A query it rejects is an error with
// qeval.CodeCompile; a model it cannot use, CodeNotFound, CodeInvalid or
// CodeUnsupported; a compiler that cannot run, CodeUnavailable. It is safe for
// concurrent use.
type Compiler interface {
	Compile(ctx context.Context, files []string, conn *qeval.Source, ex qeval.Executor, query string) (*qeval.CompiledQuery, error)
}

// noCompiler is why Malloy cases are unscorable in a run without a compiler.
const noCompiler = "this qeval has no Malloy compiler here (qeval run, serve, exec and parse have one; it needs Node.js 20 or later and npm)"

// executeMalloy compiles a Malloy case's generated query (and its expected query when
// that is Malloy too) with the case's model, runs the SQL on the model's connection
// and the expected query on the case's database (or the connection), and gives the
// metrics the compiler's descriptions of both. A query the compiler rejects is a
// compile_error; a model that cannot be used makes the case an ERROR naming it; no
// compiler (no Node.js) makes it unscorable.
func (r *run) executeMalloy(ctx context.Context, c qeval.Case, db, generated string, mc *metric.Case, res *qeval.CaseResult) {
	mc.Dialect = qeval.DialectMalloy
	verdict := func(o qeval.Outcome, msg string) *qeval.Verdict {
		v := &qeval.Verdict{Outcome: o, Error: msg, Mode: r.modeID()}
		mc.Execution, res.Verdict = v, v
		if mc.GeneratedShape == nil && mc.GeneratedError == nil {
			mc.GeneratedError = &qeval.Error{Code: qeval.CodeCompile, Message: "not compiled: " + msg}
		}
		return v
	}
	m := r.suite.MalloyModelFor(c)
	switch {
	case m == nil || len(m.Files) == 0:
		verdict(qeval.OutcomeGoldError, "no Malloy model: a Malloy suite names its model, malloy_model: {files: [model.malloy], connection: duckdb:…}")
		return
	case r.cfg.Malloy == nil:
		verdict(qeval.OutcomeUnscorable, noCompiler)
		return
	}
	connName, conn, ex, err := r.malloyConnection(ctx, m.Connection, db)
	if err != nil {
		verdict(qeval.OutcomeGoldError, "the Malloy model's connection "+m.Connection+": "+qeval.ErrorMessage(err))
		return
	}
	files := r.malloyFiles(m)
	res.Compiled = &qeval.CompiledCase{Connection: conn.Display}
	start := r.now()
	cq, err := r.cfg.Malloy.Compile(ctx, files, conn, ex, generated)
	res.Compiled.LatencyMS = float64(r.now().Sub(start).Microseconds()) / 1000
	if err != nil {
		msg, line, col := compileFailure(err)
		v := verdict(malloyOutcome(err, qeval.OutcomeCompileError), msg)
		if v.Outcome == qeval.OutcomeCompileError {
			v.ErrorLine, v.ErrorCol = line, col
			mc.GeneratedError = err
		}
		return
	}
	res.Compiled.Dialect, res.Compiled.GeneratedSQL, res.Compiled.CompileMS = cq.Dialect, cq.SQL, cq.CompileMS
	mc.GeneratedShape = cq.Shape
	if cq.Shape == nil {
		mc.GeneratedError = &qeval.Error{Code: qeval.CodeCompile, Message: cq.ShapeError}
	}
	g, ok := r.matchMalloyGolds(ctx, c, files, conn, ex, connName, db, cq.SQL, mc, res, verdict)
	if !ok {
		return
	}
	r.useMalloyMatch(ctx, &g, connName, cq.Shape, c.ExpectedColumns, mc, res)
}

// compileFailure is the message of a Malloy query the compiler did not compile, led
// by the line and column it gives (also returned; 0 when it gives none), and followed
// by the error's hint unless the compiler rejected the query itself.
func compileFailure(err error) (msg string, line, col int) {
	msg = qeval.ErrorMessage(err)
	line, col = lineCol(err)
	if line > 0 {
		msg = fmt.Sprintf("line %d, col %d: %s", line, col, msg)
	}
	if h := qeval.ErrorHint(err); h != "" && qeval.ErrorCode(err) != qeval.CodeCompile {
		msg += " (" + h + ")"
	}
	return msg, line, col
}

// useMalloyMatch gives a Malloy case's metrics and result the gold its answer was
// judged against: its text and verdict (the result's cut short for the report), the
// sources of both queries as their tables when both are Malloy, and, when the gold ran
// on another database than the model's connection, that database's dialect and the
// tables the gold reads. The case's expected columns name the gold result's columns.
func (r *run) useMalloyMatch(ctx context.Context, g *malloyMatch, connName string, generatedShape *qeval.Shape, expectedColumns []string,
	mc *metric.Case, res *qeval.CaseResult) {
	v, gold, goldDB, goldShape := g.verdict, g.gold, g.db, g.shape
	mc.Expected, res.ExpectedQuery = gold, gold
	if goldShape != nil {
		// both Malloy: sources play the role of tables
		mc.GeneratedShape, mc.ExpectedShape = sourcesAsTables(generatedShape), sourcesAsTables(goldShape)
	}
	mc.Execution = &v
	short := v
	short.Gold, short.Pred = v.Gold.Preview(reportRows, reportValueBytes), v.Pred.Preview(reportRows, reportValueBytes)
	res.Verdict = &short
	if goldDB != connName {
		// the expected SQL is parsed in its own database's dialect, and that database
		// says which tables it reads
		d := r.database(ctx, goldDB)
		if d.src != nil {
			mc.Dialect = d.src.Dialect
		}
		if d.reads != nil {
			mc.ExpectedReads, _ = d.reads.Reads(ctx, gold)
		}
	}
	if len(expectedColumns) > 0 && v.Gold != nil {
		cols := make([]qeval.Column, len(expectedColumns))
		for i, n := range expectedColumns {
			cols[i] = qeval.Column{Name: n}
		}
		mc.ExpectedResult = &qeval.ResultSet{Columns: cols, Rows: v.Gold.Rows}
	}
}

// malloyFiles are the model's files, relative ones read from the suite's folder.
func (r *run) malloyFiles(m *qeval.MalloyModel) []string {
	files := make([]string, len(m.Files))
	for i, f := range m.Files {
		if !filepath.IsAbs(f) && r.suite.Path != "" {
			f = filepath.Join(filepath.Dir(r.suite.Path), f)
		}
		files[i] = f
	}
	return files
}

// malloyMatch is the gold a Malloy case's answer is judged against: its verdict, its
// text, the database it ran on and, for a Malloy gold, its shape.
type malloyMatch struct {
	verdict qeval.Verdict
	gold    string
	db      string
	shape   *qeval.Shape
}

// matchMalloyGolds runs each gold of a Malloy case in turn against the compiled answer
// pred until one matches; the first gold's verdict stands when none does. A Malloy gold
// is compiled with the model and runs on the model's connection. It reports false when
// the first gold cannot be run (the case's verdict then set by fail, or execution
// skipped).
func (r *run) matchMalloyGolds(ctx context.Context, c qeval.Case, files []string, conn *qeval.Source, ex qeval.Executor,
	connName, db, pred string, mc *metric.Case, res *qeval.CaseResult, fail func(qeval.Outcome, string) *qeval.Verdict) (malloyMatch, bool) {
	var m malloyMatch
	for i, g := range c.Golds() {
		gsql, gdb, gshape, err := r.malloyGold(ctx, files, conn, ex, connName, db, g)
		switch {
		case err != nil && i == 0:
			fail(malloyOutcome(err, qeval.OutcomeGoldError), "the expected Malloy query: "+qeval.ErrorMessage(err))
			return m, false
		case gdb == "" && err == nil && i == 0:
			mc.ExecutionSkipped = "no database for the expected SQL query (database: the benchmark's own database, e.g. its SQLite file)"
			return m, false
		case err != nil || gdb == "":
			continue
		}
		w := r.eval.Match(ctx, qeval.Item{ID: c.ID, Database: gdb, PredDatabase: connName, Gold: gsql, Pred: pred})
		if i == 0 || w.Match {
			m = malloyMatch{verdict: w, gold: g, db: gdb, shape: gshape}
			res.Compiled.ExpectedSQL = ""
			if gshape != nil {
				res.Compiled.ExpectedSQL = gsql
			}
		}
		if w.Match {
			if len(c.OtherGolds) > 0 {
				res.MatchedGold = i + 1
			}
			break
		}
		if predFailed(w.Outcome) || ctx.Err() != nil {
			break
		}
	}
	return m, true
}

// malloyGold is what one gold of a Malloy case runs: a Malloy gold compiled with the
// model, on the model's connection, with its shape; a SQL gold as it is, on the case's
// database db ("" when the case names none).
func (r *run) malloyGold(ctx context.Context, files []string, conn *qeval.Source, ex qeval.Executor, connName, db, gold string) (string, string, *qeval.Shape, error) {
	if !qeval.IsMalloyQuery(gold) {
		return gold, db, nil, nil
	}
	gq, err := r.cfg.Malloy.Compile(ctx, files, conn, ex, gold)
	if err != nil {
		return "", "", nil, err
	}
	return gq.SQL, connName, gq.Shape, nil
}

// malloyConnection resolves a model's connection for a case on database db, and
// opens it through the evaluator (the executor the compiled SQL then runs on):
// mirror:duckdb is db copied into DuckDB; anything else is a name the catalog
// resolves.
func (r *run) malloyConnection(ctx context.Context, conn, db string) (string, *qeval.Source, qeval.Executor, error) {
	name := conn
	switch {
	case conn == "":
		return "", nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "malloy_model has no connection (the database its sources read)"}
	case conn == qeval.MirrorDuckDB && db == "":
		return "", nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "mirror:duckdb copies the case's database into DuckDB, and this case names none"}
	case conn == qeval.MirrorDuckDB:
		name = qeval.MirrorDuckDB + ":" + db
	}
	src, ex, err := r.eval.Describe(ctx, name)
	if err != nil {
		return "", nil, nil, err
	}
	return name, src, ex, nil
}

// malloyOutcome is the outcome of a Malloy query that did not compile: compiled is
// the outcome of a query its compiler rejected (compile_error for the generated
// query, gold_error for the expected one); a model that cannot be used is a gold_error
// (the case cannot be judged); no compiler, unscorable; a deadline or a cancel, a
// timeout or canceled.
func malloyOutcome(err error, compiled qeval.Outcome) qeval.Outcome {
	switch qeval.ErrorCode(err) {
	case qeval.CodeCompile:
		return compiled
	case qeval.CodeTooLarge:
		if compiled == qeval.OutcomeCompileError {
			return qeval.OutcomeTooLarge
		}
	case qeval.CodeTimeout:
		return qeval.OutcomeTimeout
	case qeval.CodeCanceled:
		return qeval.OutcomeCanceled
	case qeval.CodeUnavailable:
		return qeval.OutcomeUnscorable
	}
	return qeval.OutcomeGoldError
}

func lineCol(err error) (int, int) {
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return qe.Line, qe.Col
	}
	return 0, 0
}

// sourcesAsTables is a Malloy shape whose tables are its source and the joins it
// uses: between two Malloy queries, table accuracy compares the model's sources.
func sourcesAsTables(s *qeval.Shape) *qeval.Shape {
	if s == nil || s.Malloy == nil {
		return s
	}
	out := *s
	out.Tables = append([]string{s.Malloy.Source}, slices.Clone(s.Malloy.Joins)...)
	out.Aliases = nil
	return &out
}
