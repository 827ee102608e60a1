package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/registry"
)

// crossEngine is qeval spider's --pred-engine: the databases the items use, mirrored
// into another engine, where the predictions run (the gold stays on SQLite).
type crossEngine struct {
	engine  string
	catalog *registry.Catalog
	cleanup func()
}

// mirrorForPredictions mirrors the databases of ids (DBDIR/<db_id>/<db_id>.sqlite) into
// engine: DuckDB files in a temporary folder (or the folder dsn names), a schema or
// database per db_id on a server. The catalog resolves DBDIR/<db_id> to the copy.
func mirrorForPredictions(ctx context.Context, e *env, engine, dsn string, keep bool, dbDir string, ids []string) (*crossEngine, error) {
	ce := &crossEngine{engine: engine, cleanup: func() {}}
	var srcs []registry.MirrorSource
	for _, id := range ids {
		// a missing database fails its gold queries on SQLite already: nothing to copy
		if p := filepath.Join(dbDir, id, id+".sqlite"); fileExists(p) {
			srcs = append(srcs, registry.MirrorSource{DBID: id, Path: p})
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].DBID < srcs[j].DBID })
	switch engine {
	case "duckdb":
		dir := ""
		if dsn != "" {
			if registry.EngineFor(dsn).Name != "duckdb" {
				return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--pred-dsn %s is not a DuckDB folder", dsn), Hint: "give --pred-dsn duckdb:DIR"}
			}
			dir = duckdb.Path(dsn) // the folder, without its duckdb: prefix
			if _, err := os.Stat(dir); err != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "--pred-dsn " + dsn, Message: err.Error()}
				}
			}
		} else if base, err := cache.DefaultDir(); err == nil {
			// mirrors kept in the user cache, by each database's content: a second run on
			// the same databases (another model, another shard) copies nothing
			done, err := registry.MirrorDuckDBCached(ctx, filepath.Join(base, "mirrors", "duckdb"), srcs)
			return ce.finish(e, dbDir, done, err, filepath.Join(base, "mirrors", "duckdb"))
		} else {
			tmp, err := os.MkdirTemp("", "qeval-duckdb-")
			if err != nil {
				return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "mirror into DuckDB", Message: err.Error()}
			}
			dir = tmp
			if !keep {
				ce.cleanup = func() { os.RemoveAll(tmp) }
			}
		}
		dsn = "duckdb:" + dir
	case "postgres", "mysql", "clickhouse":
		if dsn == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--pred-engine " + engine + " needs --pred-dsn, the server to mirror into",
				Hint: "for example --pred-dsn " + map[string]string{"postgres": "postgres://postgres@127.0.0.1:5432/test", "mysql": "mysql://root@127.0.0.1:3306/test",
					"clickhouse": "clickhouse://default@127.0.0.1:9000/default"}[engine]}
		}
		if got := registry.EngineFor(dsn).Name; got != engine {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--pred-dsn names a %s database, not %s", got, engine)}
		}
	default:
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --pred-engine %q (known: duckdb, postgres, mysql, clickhouse)", engine)}
	}
	done, err := registry.Mirror(ctx, dsn, srcs, registry.MirrorOptions{Replace: true})
	if engine != "duckdb" && !keep && len(done) > 0 {
		ce.cleanup = func() { registry.Unmirror(context.Background(), dsn, done) }
	}
	return ce.finish(e, dbDir, done, err, registry.EngineFor(dsn).Show(dsn))
}

// finish points the catalog at the mirrors; err (some databases not copied) is a
// warning when others were.
func (ce *crossEngine) finish(e *env, dbDir string, done []registry.Mirrored, err error, where string) (*crossEngine, error) {
	if err != nil && len(done) == 0 {
		ce.cleanup()
		return nil, err
	}
	if err != nil {
		// the items of a database that could not be copied fail as pred_error, naming it
		fmt.Fprintf(e.stderr, "warning: %s\n", qeval.ErrorMessage(err))
	}
	ce.catalog = &registry.Catalog{Connections: map[string]string{}}
	reused := 0
	for _, m := range done {
		ce.catalog.Connections[filepath.Join(dbDir, m.DBID)] = m.Target
		if len(m.Notes) > 0 && m.Notes[0] == registry.MirrorReused {
			reused++
		}
	}
	fmt.Fprintf(e.stderr, "mirrored %d databases into %s (%d reused from earlier runs)\n", len(done), where, reused)
	return ce, nil
}

// explainCrossEngine names the engine rule behind a mismatch of a prediction run on
// another engine than its gold.
func explainCrossEngine(gold, pred string, v qeval.Verdict) string {
	r := compare.ExplainEngineDifference(pred, v)
	return r.ID + ": " + r.Description
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
