package kqlexec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

var _ qeval.Executor = (*Executor)(nil)
var _ qeval.SchemaReader = (*Executor)(nil)

// Options configure an Executor. Zero fields take defaults.
type Options struct {
	// Now is the time now() and ago() read, pinned for every query of the executor so
	// that results are reproducible. Zero means the time Open was called.
	Now time.Time
	// Limits caps each query (timeout, rows, bytes).
	Limits qeval.Limits
	// MaxConns bounds the pooled SQLite connections (default GOMAXPROCS).
	MaxConns int
	// TempDir is where the loaded tables are stored while the executor is open
	// (default os.TempDir()).
	TempDir string
}

// Executor runs KQL queries locally: each query is translated to SQLite SQL and run
// on a private SQLite copy of the tables. It is safe for concurrent use.
type Executor struct {
	source string
	now    Datetime
	limits qeval.Limits
	tables map[string]*table
	order  []string
	dir    string
	ex     *sqlite.Executor
}

// Open loads the tables of source and returns an executor over them. source is a
// folder of data files (Table.csv, Table.csv.gz, Table.json, Table.jsonl; an optional
// schema.kql gives the column types, else they are inferred), a single such file, or
// a SQLite database file. An empty source gives an executor with no tables, for
// queries that bring their own data (print, datatable, range).
func Open(source string, opts Options) (*Executor, error) {
	var raws []*rawTable
	if source != "" {
		var err error
		if raws, err = readSource(source); err != nil {
			return nil, err
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	conns := opts.MaxConns
	if conns <= 0 {
		conns = runtime.GOMAXPROCS(0)
	}
	dir, err := os.MkdirTemp(opts.TempDir, "qeval-kql-")
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open kql engine", Message: err.Error(), Err: err}
	}
	e := &Executor{source: source, now: datetimeOf(now), limits: opts.Limits.WithDefaults(), tables: map[string]*table{}, dir: dir}
	path := filepath.Join(dir, "tables.sqlite")
	if err := e.store(path, raws); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The translated queries run on the embedded SQLite executor, in its sandbox, with
	// the KQL run-time functions installed on every connection.
	ex, err := sqlite.OpenWith(path, e.limits, conns, kqlRuntime)
	if err != nil {
		e.Close()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open kql engine", Message: qeval.ErrorMessage(err), Err: err}
	}
	e.ex = ex
	return e, nil
}

// OpenerAt returns an Opener whose executors all read now as the given time.
func OpenerAt(now time.Time) qeval.Opener {
	return func(path string, limits qeval.Limits) (qeval.Executor, error) {
		return Open(path, Options{Now: now, Limits: limits})
	}
}

// store writes the tables into a new SQLite file.
func (e *Executor) store(path string, raws []*rawTable) error {
	db := sqlite.OpenScratch(path)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE _qeval_kql(x)"); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "store tables", Message: err.Error(), Err: err}
	}
	for i, r := range raws {
		if _, dup := e.tables[r.name]; dup {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "open data " + e.source, Message: fmt.Sprintf("two files hold table %q", r.name)}
		}
		for k := range r.cols {
			if r.cols[k].Type == "" {
				r.cols[k].Type = inferType(r.rows, k)
			}
		}
		t := &table{name: r.name, sql: "t" + strconv.Itoa(i), cols: r.cols}
		if err := storeTable(ctx, db, t, r.rows); err != nil {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "store table " + r.name, Message: err.Error(), Err: err}
		}
		e.tables[r.name] = t
		e.order = append(e.order, r.name)
	}
	return nil
}

func storeTable(ctx context.Context, db *sql.DB, t *table, rows [][]any) error {
	var defs, marks []string
	for i, c := range t.cols {
		decl := "TEXT"
		switch c.Type {
		case TLong, TInt, TBool, TDatetime, TTimespan:
			decl = "INTEGER"
		case TReal, TDecimal:
			decl = "REAL"
		}
		defs = append(defs, colName(i)+" "+decl)
		marks = append(marks, "?")
	}
	defs = append(defs, "_o INTEGER")
	marks = append(marks, "?")
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+t.sql+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "INSERT INTO "+t.sql+" VALUES ("+strings.Join(marks, ", ")+")")
	if err != nil {
		return err
	}
	defer st.Close()
	args := make([]any, len(t.cols)+1)
	for n, r := range rows {
		for i, c := range t.cols {
			var v any
			if i < len(r) {
				v = r[i]
			}
			args[i] = storeValue(v, c.Type)
		}
		args[len(t.cols)] = int64(n)
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Close closes the engine and removes the stored tables.
func (e *Executor) Close() error {
	var err error
	if e.ex != nil {
		err = e.ex.Close()
	}
	if rerr := os.RemoveAll(e.dir); err == nil {
		err = rerr
	}
	return err
}

// Now returns the pinned time now() reads.
func (e *Executor) Now() time.Time { return e.now.Time() }

func (e *Executor) lookupTable(name string) (*rel, bool) {
	t, ok := e.tables[name]
	if !ok {
		return nil, false
	}
	return &rel{from: t.sql, cols: t.cols}, true
}

// tableNames lists the loaded tables in load order.
func (e *Executor) tableNames() []string { return e.order }

// Translate returns the SQLite statement a KQL query runs as, and its result columns.
func (e *Executor) Translate(query string) (string, []qeval.Column, error) {
	tr, err := translate(query, e.now, e.lookupTable, e.tableNames, e.probe(context.Background()))
	if err != nil {
		return "", nil, err
	}
	return tr.SQL, qevalColumns(tr.Columns), nil
}

func qevalColumns(cols []column) []qeval.Column {
	out := make([]qeval.Column, len(cols))
	for i, c := range cols {
		out[i] = qeval.Column{Name: c.Name, Type: string(c.Type)}
	}
	return out
}

// Query translates and runs one KQL query; see qeval.Executor. Column types are KQL
// type names. Datetimes are times; timespans are text as Kusto prints them
// ([-][d.]hh:mm:ss[.fffffff]); dynamic values are their JSON text; guids are text.
func (e *Executor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if strings.TrimSpace(query) == "" {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	ctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	tr, err := translate(query, e.now, e.lookupTable, e.tableNames, e.probe(ctx))
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	rs, err := e.run(ctx, tr)
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	return rs, nil
}

func (e *Executor) run(ctx context.Context, tr *translation) (*qeval.ResultSet, error) {
	raw, err := e.ex.Query(ctx, tr.SQL)
	if err != nil {
		return nil, err
	}
	rs := &qeval.ResultSet{Columns: qevalColumns(tr.Columns), Rows: make([][]qeval.Value, 0, len(raw.Rows))}
	for _, r := range raw.Rows {
		row := make([]qeval.Value, len(tr.Columns))
		for i, c := range tr.Columns {
			if i < len(r) {
				row[i] = toValue(stored(r[i]), c.Type)
			}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// stored turns a value as SQLite returned it back into the Go value the KQL decoders
// read (int64, float64, string, []byte or nil).
func stored(v qeval.Value) any {
	switch v.Kind {
	case qeval.KindInt, qeval.KindBool:
		return v.Int
	case qeval.KindFloat:
		return v.Float
	case qeval.KindText:
		return v.Str
	case qeval.KindBytes:
		return []byte(v.Str)
	}
	return nil
}

// toValue converts a stored SQLite value of a KQL type to a result value.
func toValue(v any, t Type) qeval.Value {
	switch x := decode(v, t).(type) {
	case nil:
		return qeval.Null
	case string:
		return qeval.Text(x)
	case int64:
		return qeval.Int(x)
	case float64:
		return qeval.Float(x)
	case bool:
		return qeval.Bool(x)
	case Datetime:
		// qeval times are Unix nanoseconds: years 1678 to 2261 fit
		if int64(x) > -92233720368547758 && int64(x) < 92233720368547758 {
			return qeval.Time(x.Time())
		}
		return qeval.Text(x.String())
	case Timespan:
		return qeval.Text(x.String())
	case Guid:
		return qeval.Text(string(x))
	case Dyn:
		if x.V == nil {
			return qeval.Null
		}
		return qeval.Text(jsonText(x.V))
	}
	return qeval.Null
}

// classify names why a query failed.
func (e *Executor) classify(ctx context.Context, err error) error {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: err}
	case context.Canceled:
		return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: err}
	}
	var qe *qeval.Error
	if errors.As(err, &qe) && qe.Code != qeval.CodeQuery {
		return err // the translator's own errors, and the sandbox's caps and refusals
	}
	if qe != nil && sqlite.FromEngine(err) {
		// the SQLite executor named the engine's error; a KQL function's refusal or a
		// fault in the translated SQL is ours to name
		msg := qe.Message
		if strings.HasPrefix(msg, "unsupported: ") {
			return &qeval.Error{Code: qeval.CodeUnsupported, Message: msg, Err: err}
		}
		if strings.HasPrefix(msg, "too large: ") {
			return &qeval.Error{Code: qeval.CodeTooLarge, Message: msg, Err: err}
		}
		if strings.Contains(msg, "syntax error") || strings.Contains(msg, "no such column") || strings.Contains(msg, "misuse") {
			return &qeval.Error{Code: qeval.CodeInternal, Message: "translated SQL failed: " + msg, Err: err}
		}
		return err
	}
	if qe != nil {
		return err
	}
	return &qeval.Error{Code: qeval.CodeQuery, Message: err.Error(), Err: err}
}

// Schema describes the loaded tables with their KQL column types.
func (e *Executor) Schema(ctx context.Context) (*qeval.Schema, error) {
	s := &qeval.Schema{}
	for _, n := range e.order {
		t := e.tables[n]
		s.Tables = append(s.Tables, qeval.TableSchema{Name: t.name, Columns: qevalColumns(t.cols)})
	}
	return s, nil
}

// probe returns the function the translator uses to look at the data while it
// translates (bag_unpack's columns); it runs under the query's context.
func (e *Executor) probe(ctx context.Context) func(string) ([][]any, error) {
	return func(q string) ([][]any, error) {
		rs, err := e.ex.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		if len(rs.Rows) > 10000 {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: "bag_unpack: more than 10000 distinct properties"}
		}
		out := make([][]any, len(rs.Rows))
		for i, r := range rs.Rows {
			vals := make([]any, len(r))
			for j, v := range r {
				vals[j] = stored(v)
			}
			out[i] = vals
		}
		return out, nil
	}
}
