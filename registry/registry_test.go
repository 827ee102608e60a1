package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

func TestRegistry_UnknownNamesListKnown(t *testing.T) {
	_, err := registry.NewWriter("csv")
	if err == nil || !strings.Contains(err.Error(), `unknown report format "csv" (known: html, json, junit, md, xlsx)`) {
		t.Errorf("NewWriter(csv) = %v", err)
	}
	_, err = registry.Opener("oracle")
	if err == nil || !strings.Contains(err.Error(), `unknown database engine "oracle" (known: clickhouse, duckdb, kql, kusto, mysql, postgres, sqlite)`) {
		t.Errorf("Opener(oracle) = %v", err)
	}
	if qeval.ErrorCode(err) != qeval.CodeInvalid {
		t.Errorf("code = %s", qeval.ErrorCode(err))
	}
}

func TestRegistry_EngineOf(t *testing.T) {
	for target, want := range map[string]string{
		"postgres://u:p@127.0.0.1:5432/test":     "postgres",
		"postgresql://127.0.0.1/test":            "postgres",
		"root:@tcp(127.0.0.1:3306)/test":         "mysql",
		"mysql://root@127.0.0.1/test":            "mysql",
		"examples/chinook/chinook.sqlite":        "sqlite",
		"https://help.kusto.windows.net/Samples": "kusto",
	} {
		if got := registry.EngineOf(target); got != want {
			t.Errorf("EngineOf(%q) = %s, want %s", target, got, want)
		}
	}
	for _, name := range []string{"json", "xlsx", "junit", "html", "md"} {
		w, err := registry.NewWriter(name)
		if err != nil || w.FileName() == "" {
			t.Errorf("NewWriter(%s) = %v, %v", name, w, err)
		}
	}
}

// A DuckDB file is named duckdb:PATH (or by its .duckdb suffix), relative to the suite
// like a SQLite file; its dialect is DuckDB's, and a missing file is reported by Resolve.
func TestCatalog_DuckDBTarget(t *testing.T) {
	dir := t.TempDir()
	c := &registry.Catalog{Dir: dir}
	for _, name := range []string{"duckdb:data/shop.db", "data/shop.duckdb"} {
		_, err := c.Resolve(context.Background(), name, "sql")
		if qeval.ErrorCode(err) != qeval.CodeNotFound || !strings.Contains(err.Error(), filepath.Join(dir, "data")) {
			t.Errorf("Resolve(%s) = %v, want not found naming the file under the suite's folder", name, err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "shop.db"), nil, 0o644)
	c = &registry.Catalog{Dir: dir} // a catalog resolves each name once per run
	src, err := c.Resolve(context.Background(), "duckdb:data/shop.db", "sql")
	if err != nil || src.Engine != "duckdb" || src.Dialect != "duckdb" || src.Files[0] != "duckdb:"+filepath.Join(dir, "data", "shop.db") {
		t.Errorf("Resolve = %+v, %v", src, err)
	}
}

// A catalog's opener for an engine replaces the engine's own for that engine only.
func TestCatalog_OpenersReplaceTheEngines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.duckdb"), nil, 0o644)
	var opened []string
	c := &registry.Catalog{Dir: dir, Openers: map[string]qeval.Opener{"duckdb": func(target string, _ qeval.Limits) (qeval.Executor, error) {
		opened = append(opened, target)
		return nil, &qeval.Error{Code: qeval.CodeInternal, Message: "counted"}
	}}}
	src, err := c.Resolve(context.Background(), "a.duckdb", "sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Open(src.Files[0], qeval.Limits{}); err == nil || len(opened) != 1 || opened[0] != "duckdb:"+filepath.Join(dir, "a.duckdb") && opened[0] != filepath.Join(dir, "a.duckdb") {
		t.Errorf("the catalog's DuckDB opener saw %v (%v)", opened, err)
	}
	os.WriteFile(filepath.Join(dir, "b.sqlite"), []byte("not a database"), 0o644)
	sq, err := c.Resolve(context.Background(), "b.sqlite", "sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sq.Open(sq.Files[0], qeval.Limits{}); err == nil || !strings.Contains(err.Error(), "SQLite") {
		t.Errorf("the SQLite file opened as %v, want SQLite's refusal", err)
	}
	if sq.Engine != "sqlite" || len(opened) != 1 {
		t.Errorf("a SQLite file (engine %s) went through the DuckDB opener: %v", sq.Engine, opened)
	}
}
