package registry

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/spider"
	"github.com/qeval/qeval/spider2"
	"github.com/qeval/qeval/sqlite"
)

// benchmarks is the one table of benchmarks: a new benchmark is its folder and a line
// here. Each is a command of the same name.
var benchmarks = []qeval.Benchmark{
	spider.Benchmark{},
	spider.Verify{},
	bird.Benchmark{},
	spider2.Benchmark{},
}

// Benchmarks lists the benchmarks, in the table's order.
func Benchmarks() []qeval.Benchmark { return append([]qeval.Benchmark(nil), benchmarks...) }

// LookupBenchmark returns the benchmark of this name.
func LookupBenchmark(name string) (qeval.Benchmark, error) {
	for _, b := range benchmarks {
		if b.Name() == name {
			return b, nil
		}
	}
	return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown benchmark %q", name)}
}

// OfficialOpeners are the drop-ins the official evaluators' scorers run SQLite files
// with: their SQLite's functions only (Python's SQLite 3.40: none added since).
func OfficialOpeners() map[string]qeval.Opener {
	return map[string]qeval.Opener{"sqlite": sqlite.OfficialOpener}
}

// OfficialOpener returns an engine's opener, SQLite's as the official evaluators run it.
func OfficialOpener(engine string) (qeval.Opener, error) {
	if o := OfficialOpeners()[engine]; o != nil {
		return o, nil
	}
	return Opener(engine)
}

// MirrorForPredictions returns what copies a benchmark's SQLite databases into another
// engine for its predictions (qeval spider --pred-engine): DuckDB files in the user
// cache by content (or the folder dsn names), a schema or database per db_id on a
// server. The catalog it returns resolves each database's folder (the file's parent) to
// its copy; DuckDB copies share one instance. Progress and copy failures of some
// databases go to w.
func MirrorForPredictions(w io.Writer, allowPrivileged bool) func(ctx context.Context, engine, dsn string, keep bool, files map[string]string) (qeval.Catalog, func(), error) {
	return func(ctx context.Context, engine, dsn string, keep bool, files map[string]string) (qeval.Catalog, func(), error) {
		var srcs []MirrorSource
		for id, p := range files {
			// a missing database fails its gold queries on SQLite already: nothing to copy
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				srcs = append(srcs, MirrorSource{DBID: id, Path: p})
			}
		}
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].DBID < srcs[j].DBID })
		pm := &predMirror{w: w, engine: engine, cleanup: func() {}, files: files, allowPrivileged: allowPrivileged}
		switch engine {
		case "duckdb":
			dir := ""
			if dsn != "" {
				if EngineFor(dsn).Name != "duckdb" {
					return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--pred-dsn %s is not a DuckDB folder", dsn), Hint: "give --pred-dsn duckdb:DIR"}
				}
				dir = duckdb.Path(dsn) // the folder, without its duckdb: prefix
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "--pred-dsn " + dsn, Message: err.Error()}
				}
			} else if base, err := cache.DefaultDir(); err == nil {
				// mirrors kept in the user cache, by each database's content: a second run on
				// the same databases (another model, another shard) copies nothing
				where := filepath.Join(base, "mirrors", "duckdb")
				done, err := MirrorDuckDBCached(ctx, where, srcs)
				return pm.finish(done, err, where)
			} else {
				tmp, err := os.MkdirTemp("", "qeval-duckdb-")
				if err != nil {
					return nil, nil, &qeval.Error{Code: qeval.CodeInternal, Op: "mirror into DuckDB", Message: err.Error()}
				}
				dir = tmp
				if !keep {
					pm.cleanup = func() { os.RemoveAll(tmp) }
				}
			}
			dsn = "duckdb:" + dir
		case "postgres", "mysql", "clickhouse":
			if dsn == "" {
				return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--pred-engine " + engine + " needs --pred-dsn, the server to mirror into",
					Hint: "for example --pred-dsn " + map[string]string{"postgres": "postgres://postgres@127.0.0.1:5432/test", "mysql": "mysql://root@127.0.0.1:3306/test",
						"clickhouse": "clickhouse://default@127.0.0.1:9000/default"}[engine]}
			}
			if got := EngineFor(dsn).Name; got != engine {
				return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--pred-dsn names a %s database, not %s", got, engine)}
			}
		default:
			return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --pred-engine %q (known: duckdb, postgres, mysql, clickhouse)", engine)}
		}
		done, err := Mirror(ctx, dsn, srcs, MirrorOptions{Replace: true})
		if engine != "duckdb" && !keep && len(done) > 0 {
			pm.cleanup = func() { Unmirror(context.Background(), dsn, done) }
		}
		return pm.finish(done, err, EngineFor(dsn).Show(dsn))
	}
}

type predMirror struct {
	w       io.Writer
	engine  string
	files   map[string]string
	cleanup func()
	// allowPrivileged reads the copies even as a user that may read every database:
	// a ClickHouse server without SQL users cannot make a reader for them
	allowPrivileged bool
}

// finish points a catalog at the mirrors; err (some databases not copied) is a
// warning when others were.
func (pm *predMirror) finish(done []Mirrored, err error, where string) (qeval.Catalog, func(), error) {
	if err != nil && len(done) == 0 {
		pm.cleanup()
		return nil, nil, err
	}
	if err != nil {
		// the items of a database that could not be copied fail as pred_error, naming it
		fmt.Fprintf(pm.w, "warning: %s\n", qeval.ErrorMessage(err))
	}
	cat := &Catalog{Connections: map[string]string{}, AllowPrivileged: pm.allowPrivileged}
	reused := 0
	for _, m := range done {
		// each copy is its own DuckDB instance (or database on a server): a prediction
		// reads its own database and no other
		cat.Connections[filepath.Dir(pm.files[m.DBID])] = m.Target
		if len(m.Notes) > 0 && m.Notes[0] == MirrorReused {
			reused++
		}
	}
	cleanup := pm.cleanup
	fmt.Fprintf(pm.w, "mirrored %d databases into %s (%d reused from earlier runs)\n", len(done), where, reused)
	return cat, cleanup, nil
}
