package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/sqlite"
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
	gold := fs.String("gold", "", "gold file: one `SQL<TAB>db_id` per line (Spider format)")
	db := fs.String("db", "", "database folder: DBDIR/<db_id>/<db_id>.sqlite")
	tables := fs.String("tables", "", "Spider tables.json: foreign keys the SQLite schemas do not declare")
	out := fs.String("out", "", "suite folder to write: SUITEDIR/<db_id>/ gets the original and the generated databases")
	perSchema := fs.Int("dbs-per-schema", testsuite.DefaultPerSchema, "most generated databases kept per database")
	candidates := fs.Int("candidates", testsuite.DefaultCandidates, "databases generated per database before distillation")
	seed := fs.Uint64("seed", 1, "random seed (the same seed builds the same suite)")
	mode := fs.String("mode", "spider-ts", "comparison mode that decides whether a neighbour query is told apart")
	timeout := fs.Duration("timeout", testsuite.DefaultTimeout, "deadline for each query run while building")
	workers := fs.Int("workers", 2, "databases built at once")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"--gold", *gold}, {"--db", *db}, {"--out", *out}} {
		if f.v == "" {
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
	set, err := suite.LoadSpider(*gold, *gold)
	if err != nil {
		return fail(e, err)
	}
	var keys map[string][]testsuite.ForeignKey
	if *tables != "" {
		if keys, err = testsuite.LoadTables(*tables); err != nil {
			return fail(e, err)
		}
	}
	if st, err := os.Stat(*db); err != nil || !st.IsDir() {
		return fail(e, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + *db, Message: "no such folder",
			Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"})
	}
	golds := make([]testsuite.Gold, len(set.Items))
	for i, it := range set.Items {
		golds[i] = testsuite.Gold{DBID: it.DBID, SQL: it.Gold, Ref: fmt.Sprintf("%s item %d", *gold, i+1)}
	}
	start := time.Now()
	man, err := testsuite.Build(ctx, golds, testsuite.Options{
		DBDir: *db, Out: *out, ForeignKeys: keys, PerSchema: *perSchema, Candidates: *candidates,
		Seed: *seed, Version: version, Timeout: *timeout, Workers: *workers, Mode: m,
		Open:   sqlite.Opener,
		Create: func(path, like string) (testsuite.TableWriter, error) { return sqlite.CreateLike(path, like) },
		Check:  sqlite.Check,
	})
	if man != nil {
		printManifest(e, man, time.Since(start))
	}
	if err != nil {
		return fail(e, err)
	}
	return exitOK
}

func printManifest(e *env, m *testsuite.Manifest, wall time.Duration) {
	failed := 0
	for _, d := range m.Databases {
		files := 0
		for _, f := range d.Files {
			if f.Generated {
				files++
			}
		}
		status := fmt.Sprintf("%d generated databases, %d/%d neighbours killed", files, d.Killed, d.Neighbours-d.Equivalent-d.Broken)
		if d.Error != "" {
			status = "error: " + d.Error
			failed++
		}
		fmt.Fprintf(e.stdout, "%-30s %s\n", d.DBID, status)
		for _, g := range d.Golds {
			if g.Error != "" {
				fmt.Fprintf(e.stderr, "warning: %s: %s\n", g.Ref, g.Error)
			}
		}
	}
	live := m.Neighbours - m.Equivalent - m.Broken
	fmt.Fprintf(e.stdout, "\nneighbours: %d made, %d equivalent under %s, %d failing; killed %d of %d (%.1f%%), of those any candidate told apart %d (%.1f%%)\n",
		m.Neighbours, m.Equivalent, m.Mode, m.Broken, m.Killed, live, percentOf(m.Killed, live), m.Killable, percentOf(m.Killed, m.Killable))
	fmt.Fprintf(e.stdout, "built %d databases (%d failed) in %.1fs; manifest.json in the suite folder\n", len(m.Databases), failed, wall.Seconds())
}

func percentOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
