package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
)

// cmdExec runs one query and prints its result: KQL on the local engine (over a data
// folder, a data file or a SQLite file) or SQL on the engine --db names (a SQLite or
// DuckDB file, a PostgreSQL, MySQL or ClickHouse DSN), read-only and within the limits.
func cmdExec(ctx context.Context, args []string, e *env) int {
	fs := newFlags("exec", "[--dialect kql|sql|malloy] (--query TEXT | --query-file F) [--db TARGET | --data DIR] [--model FILE.malloy] [--now TIME] [--json]", e)
	dialect := fs.String("dialect", "", "query language: kql (the local KQL engine), sql (on the engine of --db) or malloy (compiled with --model, run on --db); default: sql when --db names a database, else kql")
	var models modelFlag
	fs.Var(&models, "model", "malloy: the model's .malloy file (repeat for a model of several files)")
	queryText := fs.String("query", "", "the query text")
	queryFile := fs.String("query-file", "", "a file holding the query (- for standard input)")
	db := fs.String("db", "", "a database: SQLite file, duckdb:FILE, postgres://…, mysql://…, clickhouse://… (for kql a SQLite file or a .csv/.json data file)")
	data := fs.String("data", "", "kql: a folder of data files, one table each (Table.csv[.gz], Table.json, Table.jsonl; schema.kql for types)")
	nowText := fs.String("now", "", "kql: the time now() and ago() read, RFC 3339 or a date (default: now)")
	asJSON := fs.Bool("json", false, `print {"columns": [{"name", "type"}], "rows": [...], "error": ...} instead of a table`)
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "stop the query after this long")
	maxRows := fs.Int("max-rows", qeval.DefaultMaxRows, "fail when the result has more rows than this")
	maxBytes := fs.Int64("max-result-bytes", qeval.DefaultMaxBytes, "fail when the result has more bytes than this")
	unsafePriv := fs.Bool("unsafe-allow-privileged", false, "run the query on a server even as a superuser or a user that may read every database (see qeval db setup-role)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), Hint: "pass the query with --query or --query-file"})
	}
	text, err := execQueryText(*queryText, *queryFile, e)
	if err != nil {
		return fail(e, err)
	}
	limits := qeval.Limits{Timeout: *timeout, MaxRows: *maxRows, MaxBytes: *maxBytes}
	d := strings.ToLower(*dialect)
	if len(models) > 0 && d != "malloy" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--model is for --dialect malloy"})
	}
	if d == "" {
		d = "kql"
		if *db != "" && *data == "" && !registry.IsKQLDataFile(*db) {
			d = "sql"
		}
	}
	if d == "malloy" {
		if *data != "" || *nowText != "" {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--data and --now are for --dialect kql"})
		}
		return execMalloy(ctx, e, *db, models, text, limits, *unsafePriv, *asJSON)
	}
	ex, err := openExecTarget(d, *db, *data, *nowText, limits, *unsafePriv)
	if err != nil {
		return fail(e, err)
	}
	defer ex.Close()
	rs, qerr := ex.Query(ctx, text)
	return execPrint(e, *asJSON, text, "", rs, qerr)
}

// openExecTarget opens what qeval exec runs a query on: the local KQL engine over
// --data or --db (its clock pinned by --now), or the SQL engine --db names.
func openExecTarget(d, db, data, nowText string, limits qeval.Limits, unsafePriv bool) (qeval.Executor, error) {
	switch d {
	case "kql":
		now, err := parseNow(nowText)
		if err != nil {
			return nil, err
		}
		if db != "" && data != "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "give --db or --data, not both"}
		}
		source := data
		if source == "" {
			source = db
		}
		kql, _ := registry.LookupEngine("kql")
		return kql.New(source, registry.Params{Now: now, Limits: limits})
	case "sql", "sqlite", "postgres", "mysql", "duckdb", "clickhouse":
		if db == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--dialect " + d + " needs --db TARGET"}
		}
		if data != "" || nowText != "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--data and --now are for --dialect kql"}
		}
		engine := registry.EngineFor(db)
		if engine.Dialect == "kql" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--db %s is a KQL source: use --dialect kql", engine.Show(db))}
		}
		return engine.New(db, registry.Params{Limits: limits, AllowPrivileged: unsafePriv})
	}
	return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown dialect %q (known: kql, sql, malloy)", d)}
}

// execMalloy compiles a Malloy query with the model and runs its SQL on --db; a query
// the compiler rejects is printed as the query's error.
func execMalloy(ctx context.Context, e *env, db string, models []string, text string, limits qeval.Limits, unsafePriv, asJSON bool) int {
	m, err := openMalloy(ctx, e, db, models, limits, unsafePriv)
	if err != nil {
		return fail(e, err)
	}
	defer m.Close()
	cq, cerr := m.Compile(ctx, text)
	if cerr != nil && qeval.ErrorCode(cerr) != qeval.CodeCompile && qeval.ErrorCode(cerr) != qeval.CodeTooLarge {
		return fail(e, cerr) // the model or the compiler, not the query
	}
	var rs *qeval.ResultSet
	qerr := cerr
	sql := ""
	if cerr == nil {
		sql = cq.SQL
		rs, qerr = m.Executor().Query(ctx, sql)
	}
	return execPrint(e, asJSON, text, sql, rs, qerr)
}

// execPrint prints a query's result or its error, as a table or as JSON.
// sql is the SQL that ran when it is not text (a Malloy query's compiled SQL).
func execPrint(e *env, asJSON bool, text, sql string, rs *qeval.ResultSet, qerr error) int {
	if asJSON {
		if err := report.WriteResultJSON(e.stdout, rs, qerr, sql); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInternal, Op: "write output", Message: err.Error(), Err: err})
		}
		if qerr != nil {
			return exitFailed
		}
		return exitOK
	}
	if qerr != nil {
		report.WriteQueryError(e.stderr, text, qerr)
		return exitFailed
	}
	report.WriteResultTable(e.stdout, rs)
	return exitOK
}

func execQueryText(text, file string, e *env) (string, error) {
	switch {
	case text != "" && file != "":
		return "", &qeval.Error{Code: qeval.CodeInvalid, Message: "give --query or --query-file, not both"}
	case text != "":
		return text, nil
	case file == "-":
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", &qeval.Error{Code: qeval.CodeInvalid, Op: "read standard input", Message: err.Error(), Err: err}
		}
		return string(b), nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", &qeval.Error{Code: qeval.CodeNotFound, Op: "read query file " + file, Message: err.Error(), Err: err}
		}
		return string(b), nil
	}
	return "", &qeval.Error{Code: qeval.CodeInvalid, Message: "no query", Hint: "pass the query with --query TEXT or --query-file FILE"}
}

// parseNow reads --now: RFC 3339 or a date, in UTC; empty means the current time.
func parseNow(s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--now %q is not a time", s), Hint: "write it as RFC 3339 (2007-12-31T00:00:00Z) or a date (2007-12-31)"}
}
