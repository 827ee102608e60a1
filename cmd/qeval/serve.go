package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/proclimit"
	"github.com/qeval/qeval/judge"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/server"
)

// cmdServe runs the HTTP API and the page until interrupted. Runs in progress are
// canceled on the way out and recorded as interrupted.
func cmdServe(ctx context.Context, args []string, e *env) int {
	fs := newFlags("serve", "[--addr 127.0.0.1:8080] [--data-dir DIR] [--token T] [--suite NAME=PATH ...] [--db NAME=TARGET ...] [--db-root DIR] [--cache redis://…]", e)
	addr := fs.String("addr", server.DefaultAddr, "address to listen on; anything but loopback needs --token")
	dataDir := fs.String("data-dir", "qeval-data", "folder of the run store (runs.db), created when missing")
	token := fs.String("token", "", "bearer token every API call must send (default: $QEVAL_TOKEN); required to bind beyond 127.0.0.1")
	suites := namedPaths{}
	fs.Var(suites, "suite", "a suite runs may name: `NAME=PATH` (repeat for several)")
	var imports stringList
	fs.Var(&imports, "import", "store this finished run's report.json (of qeval run -o, qeval spider -o, …) as a run of the server, listed and opened like its own (repeat)")
	dbs := newDBFlag()
	fs.Var(dbs, "db", "a database suites may name: `NAME=TARGET`, TARGET a DSN (postgres://…, mysql://…), a Kusto https://cluster/db, or a SQLite file or test-suite folder; or a folder of <db_id>/<db_id>.sqlite, each named by its db_id (repeat); as qeval run --db")
	dbRoot := fs.String("db-root", "", "a benchmark folder: every `DIR`/<db_id>/<db_id>.sqlite (or test-suite folder) is a database named by its db_id (--db names win)")
	execMode := fs.String("exec-mode", qeval.OfficialMode, "comparison mode of POST /api/exec-match pairs that name none (see qeval modes)")
	maxPairs := fs.Int("max-pairs", server.DefaultMaxPairs, "largest batch POST /api/exec-match takes")
	perDB := fs.Int("exec-per-db", 0, "exec-match pairs running at once on one database (default: twice the CPUs)")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline of each query (a pair's timeout_ms can only shorten it)")
	maxResultBytes := fs.Int64("max-result-bytes", qeval.DefaultMaxBytes, "largest result one query may fetch, in bytes")
	maxBody := fs.Int64("max-body", server.DefaultMaxBodyBytes, "largest request body, in bytes")
	maxRuns := fs.Int("max-runs", server.DefaultMaxActiveRuns, "runs in progress at once")
	maxRunBytes := fs.Int64("max-run-bytes", server.DefaultMaxRunBytes, "the results all runs in progress hold at once: each run may hold this / --max-runs, shared by its cases in flight; the exec-match pairs in flight share it too")
	concurrency := fs.Int("concurrency", 0, "cases a run runs at once (default: the suite's, else the number of CPUs)")
	cacheEpoch := fs.String("cache-epoch", "", "a word mixed into every gold-result key: a server database (PostgreSQL, MySQL, ClickHouse) is cached by its target, not its data, so give a new one after its data changed (files are keyed by their content); POST /api/exec-match/flush forgets them all")
	unsafePriv := fs.Bool("unsafe-allow-privileged", false, "run queries on a server even as a superuser or a role that reads server files (see qeval db setup-role)")
	jf := addJudgeFlags(fs, registry.DefaultProvider)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0)),
			Hint: "qeval serve --suite chinook=examples/chinook/suite.yaml"})
	}
	if *token == "" && e.getenv != nil {
		*token = e.getenv("QEVAL_TOKEN")
	}
	if err := server.CheckAddr(*addr, *token); err != nil {
		return fail(e, err)
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	js, err := jf.open(ctx, e, logger)
	if err != nil {
		return fail(e, err)
	}
	defer js.Close()
	goldCache, closers, err := jf.openGoldCache(ctx, e, logger)
	if err != nil {
		return fail(e, err)
	}
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	cfg := server.Config{DBRoot: *dbRoot, ExecMatchMode: *execMode, MaxPairs: *maxPairs, ExecMatchPerDB: *perDB,
		Limits: qeval.Limits{Timeout: *timeout, MaxBytes: *maxResultBytes}, SharedCache: goldCache, CacheEpoch: *cacheEpoch,
		DataDir: *dataDir, Token: *token, Suites: suites, Databases: dbs.connections(), Judge: js.Judge,
		JudgeSkipped: js.Skipped, JudgeStats: js.Stats, MaxBodyBytes: *maxBody, MaxActiveRuns: *maxRuns, MaxRunBytes: *maxRunBytes,
		Concurrency: *concurrency, Version: version, Logger: logger, AllowPrivileged: *unsafePriv}
	if js.Judge != nil {
		cfg.JudgeInfo = &qeval.JudgeInfo{Provider: js.Provider, Model: js.Model, PromptVersion: judge.PromptVersions()}
	}
	cfg.JudgeFor = registry.JudgeForModel(jf.options(e, logger), js)
	mc := registry.MalloyCompiler(func(msg string) { logger.Info(msg) })
	defer mc.Close()
	cfg.Malloy = mc
	proclimit.TuneForServer(e.getenv, *maxRunBytes)
	srv, err := server.New(cfg)
	if err != nil {
		return fail(e, err)
	}
	if err := importRuns(ctx, e, srv, imports); err != nil {
		srv.Close()
		return fail(e, err)
	}
	return serveUntilDone(ctx, e, srv, *addr, *dataDir, js, logger)
}

// importRuns stores each --import report.json as a run of the server.
func importRuns(ctx context.Context, e *env, srv *server.Server, imports []string) error {
	for _, p := range imports {
		rep, err := report.ReadFile(p)
		if err == nil {
			var id string
			if id, err = srv.Import(ctx, rep); err == nil {
				fmt.Fprintf(e.stderr, "imported %s as run %s\n", p, id)
			}
		}
		if err != nil {
			return &qeval.Error{Code: qeval.ErrorCode(err), Op: "--import " + p, Message: qeval.ErrorMessage(err), Hint: qeval.ErrorHint(err)}
		}
	}
	return nil
}

// serveUntilDone listens on addr and serves until ctx ends or the listener fails;
// then it stops the runs (their event streams end with them), then the connections.
func serveUntilDone(ctx context.Context, e *env, srv *server.Server, addr, dataDir string, js *registry.JudgeSetup, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		srv.Close()
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "listen on " + addr, Message: err.Error(), Err: err})
	}
	hs := srv.HTTPServer(addr)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(e.stderr, "qeval serving on http://%s/ (runs kept in %s)\n", ln.Addr(), dataDir)
	if js.Judge == nil {
		fmt.Fprintf(e.stderr, "llm_grading is skipped: %s\n", js.Skipped)
	}
	code := exitOK
	select {
	case <-ctx.Done():
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(e.stderr, "error: serve: %v\n", err)
			code = exitFailed
		}
	}
	if err := srv.Close(); err != nil {
		logger.Error("close run store", "err", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return code
}

// namedPaths is a repeatable NAME=PATH flag.
type namedPaths map[string]string

func (m namedPaths) String() string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

func (m namedPaths) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if !ok || name == "" || path == "" {
		return fmt.Errorf("%q: write NAME=PATH", s)
	}
	if strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("%q: a name cannot hold / or \\", s)
	}
	if _, dup := m[name]; dup {
		return fmt.Errorf("%q: %s is given twice", s, name)
	}
	m[name] = path
	return nil
}

// dbFlag is --db, the same in every command: `NAME=TARGET` names one database, and a
// folder of databases laid out as a benchmark's (DIR/<db_id>/<db_id>.sqlite) names each
// by its db_id. A NAME=TARGET wins over a folder's database of the same name.
type dbFlag struct {
	named   namedPaths
	folders map[string]string // db_id → path, from folders
}

func newDBFlag() *dbFlag { return &dbFlag{named: namedPaths{}, folders: map[string]string{}} }

func (d *dbFlag) String() string { return d.named.String() }

func (d *dbFlag) Set(s string) error {
	if !strings.Contains(s, "=") {
		if st, err := os.Stat(s); err == nil && st.IsDir() {
			found, err := registry.DatabasesUnder(s)
			if err != nil {
				return fmt.Errorf("%q: %s", s, qeval.ErrorMessage(err))
			}
			for id, p := range found {
				d.folders[id] = p
			}
			return nil
		}
		return fmt.Errorf("%q: write NAME=TARGET, or give a folder of <db_id>/<db_id>.sqlite", s)
	}
	return d.named.Set(s)
}

// connections are the named databases, the folders' under the names not given.
func (d *dbFlag) connections() map[string]string {
	out := make(map[string]string, len(d.named)+len(d.folders))
	for k, v := range d.folders {
		out[k] = v
	}
	for k, v := range d.named {
		out[k] = v
	}
	return out
}
