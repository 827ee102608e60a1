package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
	"github.com/qeval/qeval/testsuite"
)

// cmdTestsuite builds a test suite of generated databases for gold queries.
func cmdTestsuite(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] != "build" {
		fmt.Fprintln(e.stderr, "Usage: qeval testsuite build --gold GOLD --db DBDIR --out SUITEDIR [flags]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return exitOK
		}
		return exitUsage
	}
	fs := newFlags("testsuite build", "--gold GOLD --db DBDIR --out SUITEDIR [flags]", e)
	gold := fs.String("gold", "", "gold queries: a Spider gold file (`SQL<TAB>db_id` per line) or a suite file (.yaml, .yml, .json, .jsonl, .csv) whose cases name SQLite files")
	db := fs.String("db", "", "database folder: DBDIR/<db_id>/<db_id>.sqlite (not needed for a suite file)")
	tables := fs.String("tables", "", "Spider tables.json: foreign keys the SQLite schemas do not declare")
	out := fs.String("out", "", "suite folder to write: SUITEDIR/<db_id>/ gets the original and the generated databases")
	perSchema := fs.Int("dbs-per-schema", testsuite.DefaultPerSchema, "most generated databases kept per database")
	candidates := fs.Int("candidates", testsuite.DefaultCandidates, "usable databases generated per database before distillation (rejected ones are made up for, up to 3 attempts each)")
	seed := fs.Uint64("seed", 1, "random seed (the same seed builds the same suite)")
	mode := fs.String("mode", qeval.OfficialMode, "comparison mode that decides whether a neighbour query is told apart")
	timeout := fs.Duration("timeout", testsuite.DefaultTimeout, "deadline for each query run while building")
	workers := fs.Int("workers", 2, "databases built at once")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"--gold", *gold}, {"--db", *db}, {"--out", *out}} {
		if f.v == "" && !(f.name == "--db" && isSuiteFile(*gold)) {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(missing, ", "),
			Hint: "qeval testsuite build --gold dev_gold.sql --db database/ --tables tables.json --out suite/"})
	}
	m, err := compare.Lookup(*mode)
	if err != nil {
		return fail(e, err)
	}
	golds, err := readGolds(*gold)
	if err != nil {
		return fail(e, err)
	}
	var keys map[string][]testsuite.ForeignKey
	if *tables != "" {
		if keys, err = testsuite.LoadTables(*tables); err != nil {
			return fail(e, err)
		}
	}
	if st, err := os.Stat(*db); *db != "" && (err != nil || !st.IsDir()) {
		return fail(e, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + *db, Message: "no such folder",
			Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"})
	}
	start := time.Now()
	man, err := testsuite.Build(ctx, golds, testsuite.Options{
		DBDir: *db, Out: *out, ForeignKeys: keys, PerSchema: *perSchema, Candidates: *candidates,
		Seed: *seed, Version: version, Timeout: *timeout, Workers: *workers, Mode: m,
		Open:   registry.OpenSQLite,
		Create: registry.CreateSQLiteLike,
		Check:  registry.CheckSQLite,
	})
	if man != nil {
		man.Print(e.stdout, e.stderr, time.Since(start))
	}
	if err != nil {
		return fail(e, err)
	}
	return exitOK
}

func isSuiteFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json", ".jsonl", ".csv":
		return true
	}
	return false
}

// readGolds reads gold queries from a Spider gold file, or from a suite file whose
// cases name SQLite database files (each file becomes one folder of the test suite,
// named after it).
func readGolds(path string) ([]testsuite.Gold, error) {
	if !isSuiteFile(path) {
		set, err := suite.LoadSpider(path, path)
		if err != nil {
			return nil, err
		}
		golds := make([]testsuite.Gold, len(set.Items))
		for i, it := range set.Items {
			golds[i] = testsuite.Gold{DBID: it.DBID, SQL: it.Gold, Ref: fmt.Sprintf("%s item %d", path, i+1)}
		}
		return golds, nil
	}
	s, err := suite.Load(path, suite.Options{})
	if err != nil {
		return nil, err
	}
	if d := strings.ToLower(s.Dialect); d != "" && d != "sql" && d != "sqlite" {
		return nil, &qeval.Error{Code: qeval.CodeUnsupported, Op: "read suite " + path,
			Message: fmt.Sprintf("dialect %q: test suites are built for SQLite databases", s.Dialect)}
	}
	return testsuite.SuiteGolds(context.Background(), s, &registry.Catalog{Dir: suite.Dir(s)}, path)
}
