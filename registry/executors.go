package registry

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/kqlexec"
	"github.com/qeval/qeval/kusto"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/validate"
)

// Engine is everything qeval knows of one database engine, chosen once per database:
// the dialect its queries are parsed in, how a target names it, and how to open it.
// sqlc's config.Engine switch is the model. Adding an engine is a package of its own
// and one line in engines.
type Engine struct {
	// Name is the engine's name in flags and reports.
	Name string
	// Dialect is the query language the metrics parse its queries in.
	Dialect string
	// Accepts reports whether a target (a DSN, a URL, a path) is this engine's. The
	// first engine of the list that accepts a target opens it; sqlite, last, takes paths.
	Accepts func(target string) bool
	// Open opens a target with limits. It never returns a non-nil Executor with an error.
	Open qeval.Opener
	// OpenAt, when set, opens a target with "now" pinned (the local KQL engine); Open is
	// then OpenAt(time.Now()).
	OpenAt func(now time.Time) qeval.Opener
	// Display, when set, returns the target as it may be printed (a DSN's password masked).
	Display func(target string) string
	// OpenPrivileged, when set, is Open without the refusal of a privileged role (a
	// superuser, a role that reads server files): --unsafe-allow-privileged.
	OpenPrivileged qeval.Opener
	// File, when set, says the engine's targets are files on this machine: it returns
	// the file a target names (after any prefix such as duckdb:), so a suite may name
	// it relative to its own folder and a missing file is reported before the run.
	File func(target string) string
}

// relativeTo names a file target relative to dir, keeping its prefix.
func (e Engine) relativeTo(dir, target string) string {
	if e.File == nil || dir == "" {
		return target
	}
	f := e.File(target)
	if f == "" || filepath.IsAbs(f) {
		return target
	}
	return target[:len(target)-len(f)] + filepath.Join(dir, f)
}

// engines is the one list of database engines, in the order targets are tried.
var engines = []Engine{
	{Name: "postgres", Dialect: "postgres", Accepts: prefixes("postgres://", "postgresql://"), Open: postgresOpener(false),
		OpenPrivileged: postgresOpener(true), Display: postgres.MaskDSN},
	{Name: "mysql", Dialect: "mysql", Accepts: isMySQL, Open: mysqlOpener(false),
		OpenPrivileged: mysqlOpener(true), Display: mysql.MaskDSN},
	{Name: "kusto", Dialect: "kql", Accepts: isKusto, Open: kustoOpener},
	{Name: "kql", Dialect: "kql", Accepts: prefixes("kql:"), OpenAt: kqlOpenerAt},
	{Name: "clickhouse", Dialect: "clickhouse", Accepts: clickhouse.IsTarget, Open: clickhouseOpener(false),
		OpenPrivileged: clickhouseOpener(true), Display: clickhouse.MaskDSN},
	{Name: "duckdb", Dialect: "duckdb", Accepts: duckdb.IsTarget, Open: opener(duckdb.Open), File: duckdb.Path},
	{Name: "sqlite", Dialect: "sqlite", Accepts: func(string) bool { return true }, Open: opener(sqlite.Open), File: func(t string) string { return t }},
}

// opener turns an adapter's Open into a qeval.Opener that returns a nil interface on
// error: a typed nil *Executor inside a non-nil interface made Close panic (issue 22).
func opener[E qeval.Executor](open func(string, qeval.Limits) (E, error)) qeval.Opener {
	return func(target string, l qeval.Limits) (qeval.Executor, error) {
		ex, err := open(target, l)
		if err != nil {
			return nil, err
		}
		return ex, nil
	}
}

// postgresOpener opens PostgreSQL with the parse-tree statement guard, refusing a
// privileged role unless allowPrivileged.
func postgresOpener(allowPrivileged bool) qeval.Opener {
	guard := validate.Guard("postgres")
	return opener(func(target string, l qeval.Limits) (*postgres.Executor, error) {
		return postgres.OpenWith(target, l, postgres.Options{AllowPrivileged: allowPrivileged, Guard: guard})
	})
}

// mysqlOpener opens MySQL or MariaDB with the parse-tree statement guard, refusing a
// user that holds more than reading unless allowPrivileged.
func mysqlOpener(allowPrivileged bool) qeval.Opener {
	return guarded(opener(func(target string, l qeval.Limits) (*mysql.Executor, error) {
		return mysql.OpenWith(target, l, mysql.Options{AllowPrivileged: allowPrivileged})
	}), validate.Guard("mysql"))
}

// clickhouseOpener opens ClickHouse, refusing a user that may read every database or
// write unless allowPrivileged.
func clickhouseOpener(allowPrivileged bool) qeval.Opener {
	return opener(func(target string, l qeval.Limits) (*clickhouse.Executor, error) {
		return clickhouse.OpenWith(target, l, clickhouse.Options{AllowPrivileged: allowPrivileged})
	})
}

// guarded runs guard on each query before the executor sees it: the parser-backed
// statement check injected into an executor that has no option for it.
func guarded(open qeval.Opener, guard func(string) error) qeval.Opener {
	return func(target string, l qeval.Limits) (qeval.Executor, error) {
		ex, err := open(target, l)
		if err != nil {
			return nil, err
		}
		return &guardedExecutor{Executor: ex, guard: guard}, nil
	}
}

type guardedExecutor struct {
	qeval.Executor
	guard func(string) error
}

func (g *guardedExecutor) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if err := g.guard(query); err != nil {
		return nil, err
	}
	return g.Executor.Query(ctx, query)
}

// Schema passes through to the executor when it can describe its database.
func (g *guardedExecutor) Schema(ctx context.Context) (*qeval.Schema, error) {
	sr, ok := g.Executor.(qeval.SchemaReader)
	if !ok {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "this engine cannot describe its schema"}
	}
	return sr.Schema(ctx)
}

func kqlOpenerAt(now time.Time) qeval.Opener {
	open := kqlexec.OpenerAt(now)
	return func(target string, l qeval.Limits) (qeval.Executor, error) {
		ex, err := open(strings.TrimPrefix(target, "kql:"), l)
		if err != nil {
			return nil, err
		}
		return ex, nil
	}
}

func prefixes(ps ...string) func(string) bool {
	return func(t string) bool {
		t = strings.ToLower(t)
		for _, p := range ps {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
		return false
	}
}

// isMySQL: a mysql:// URL or a go-sql-driver DSN (user@tcp(host)/db, user@unix(sock)/db).
func isMySQL(t string) bool {
	l := strings.ToLower(t)
	return strings.HasPrefix(l, "mysql://") || strings.Contains(l, "@tcp(") || strings.Contains(l, "@unix(")
}

func isKusto(t string) bool {
	l := strings.ToLower(t)
	return strings.HasPrefix(l, "https://") && strings.Contains(l, ".kusto.")
}

// kustoOpener opens an Azure Data Explorer database named as
// https://<cluster>/<database>, signing in with the SDK's default credential chain.
func kustoOpener(target string, limits qeval.Limits) (qeval.Executor, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("kusto target %q must look like https://<cluster>/<database>", target)}
	}
	ex, err := kusto.New(kusto.Config{ClusterURL: u.Scheme + "://" + u.Host, Database: strings.Trim(u.Path, "/"), Auth: kusto.AuthDefault, Limits: limits})
	if err != nil {
		return nil, err
	}
	return ex, nil
}

// LookupEngine returns the engine of a name; an unknown name lists the known ones.
func LookupEngine(name string) (Engine, error) {
	for _, e := range engines {
		if e.Name == strings.ToLower(name) {
			return e.withOpen(), nil
		}
	}
	return Engine{}, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown database engine %q (known: %s)", name, strings.Join(Engines(), ", "))}
}

// Opener returns the opener of an engine; an unknown name lists the known ones.
func Opener(engine string) (qeval.Opener, error) {
	e, err := LookupEngine(engine)
	if err != nil {
		return nil, err
	}
	return e.Open, nil
}

// Engines lists the engine names, sorted.
func Engines() []string {
	out := make([]string, 0, len(engines))
	for _, e := range engines {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// EngineFor returns the engine of a database target: a postgres:// URL is postgres, a
// mysql:// URL or a go-sql-driver DSN is mysql, https://<cluster>.kusto.… is Azure Data
// Explorer, kql:PATH is the local KQL engine, anything else is a SQLite path.
func EngineFor(target string) Engine {
	for _, e := range engines {
		if e.Accepts(target) {
			return e.withOpen()
		}
	}
	return engines[len(engines)-1].withOpen()
}

// EngineOf returns the name of the engine of a target (see EngineFor).
func EngineOf(target string) string { return EngineFor(target).Name }

// OpenAny opens a database target with the engine EngineFor names.
func OpenAny(target string, limits qeval.Limits) (qeval.Executor, error) {
	return EngineFor(target).Open(target, limits)
}

// Show returns target as it may be printed.
func (e Engine) Show(target string) string {
	if e.Display != nil {
		return e.Display(target)
	}
	return target
}

func (e Engine) withOpen() Engine {
	if e.Open == nil && e.OpenAt != nil {
		e.Open = e.OpenAt(time.Now())
	}
	return e
}

// ReversedOpener opens a source's database with its scans in reverse order, for the
// gold audit's scan-order and float checks: SQLite files have one; other engines none
// (nil). Its sums add floats one by one in scan order, as the official evaluators'
// SQLite (3.40) does: today's SQLite sums with compensation, which hides a gold whose
// official result changes with the scan order (Spider dev item 425).
func ReversedOpener(src *qeval.Source) qeval.Opener {
	if src.Engine != "sqlite" {
		return nil
	}
	return func(path string, l qeval.Limits) (qeval.Executor, error) {
		return sqlite.OpenWith(path, l, 1, sqlite.Options{ReverseScanOrder: true, PlainSums: true})
	}
}
