package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/suite"
	"golang.org/x/sync/errgroup"
)

// exactScores holds the exact-set-match verdict of each item; a nil result is an item
// whose gold query the official parser cannot read (the official evaluator stops there).
type exactScores struct {
	results  []*exactmatch.Result
	goldErrs []string
}

// scoreExact judges every item with Spider's exact-set-match rules, on all CPUs, and
// grades the difficulty of each gold query from the same parse.
func scoreExact(ctx context.Context, dbDir string, set *suite.Spider, loadFKs func() (exactmatch.ForeignKeys, error), hardness []*string, workers int) (*exactScores, error) {
	em := &exactScores{results: make([]*exactmatch.Result, len(set.Items)), goldErrs: make([]string, len(set.Items))}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// tables.json is read while the databases' schemas are (each on its own goroutine)
	// and while the queries are parsed: only the scoring needs its foreign keys
	var fks exactmatch.ForeignKeys
	var fkErr error
	fksRead := make(chan struct{})
	go func() { fks, fkErr = loadFKs(); close(fksRead) }()
	var g errgroup.Group
	g.SetLimit(workers)
	ids := set.DBIDs()
	read := make([]*exactmatch.Schema, len(ids))
	for i, id := range ids {
		g.Go(func() (err error) { read[i], err = readSpiderSchema(ctx, dbDir, id); return err })
	}
	if err := g.Wait(); err != nil {
		<-fksRead
		return nil, err
	}
	schemas := make(map[string]*exactmatch.Schema, len(ids))
	for i, id := range ids {
		schemas[id] = read[i]
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(set.Items) && ctx.Err() == nil; i += workers {
				it := set.Items[i]
				p, err := exactmatch.ParsePair(schemas[it.DBID], it.Gold, it.Pred)
				if err != nil {
					em.goldErrs[i] = fmt.Sprintf("gold query of item %d: %v", i, err)
					if h, err := hardnessOf(it.Gold); err == nil {
						hardness[i] = &h
					}
					continue
				}
				if <-fksRead; fkErr != nil {
					return
				}
				r := p.Score(fks[it.DBID])
				hardness[i] = &r.Hardness
				em.results[i] = &r
			}
		})
	}
	wg.Wait()
	if <-fksRead; fkErr != nil {
		return nil, fkErr
	}
	return em, nil
}

func readSpiderSchema(ctx context.Context, dbDir, dbID string) (*exactmatch.Schema, error) {
	path := filepath.Join(dbDir, dbID, dbID+".sqlite")
	e, err := sqlite.Open(path, qeval.Limits{})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	s, err := e.Schema(ctx)
	if err != nil {
		return nil, err
	}
	return exactmatch.NewSchema(s), nil
}

// printMismatches prints each exact-match miss as the official evaluator does.
func printMismatches(w io.Writer, set *suite.Spider, em *exactScores, hardness []*string) {
	for i, r := range em.results {
		if r != nil && r.Exact {
			continue
		}
		h := ""
		if hardness[i] != nil {
			h = *hardness[i]
		}
		fmt.Fprintf(w, "%s pred: %s\n%s gold: %s\n\n", h, strings.ReplaceAll(set.Items[i].Pred, "value", "1"), h, set.Items[i].Gold)
	}
}

// printExactTable prints the official exact and partial matching rows.
func printExactTable(w io.Writer, rep *spiderReport, row func(string, []string)) {
	cells := func(f func(*levelScore) string) []string {
		out := make([]string, len(rep.levelOrder))
		for i, l := range rep.levelOrder {
			out[i] = f(rep.Levels[l])
		}
		return out
	}
	fmt.Fprintln(w, "\n====================== EXACT MATCHING ACCURACY =====================")
	row("exact match", cells(func(l *levelScore) string { return fmt.Sprintf("%-20.3f", *l.Exact) }))
	for _, part := range []struct{ title, key string }{
		{"\n---------------------PARTIAL MATCHING ACCURACY----------------------", "acc"},
		{"---------------------- PARTIAL MATCHING RECALL ----------------------", "rec"},
		{"---------------------- PARTIAL MATCHING F1 --------------------------", "f1"},
	} {
		fmt.Fprintln(w, part.title)
		for _, c := range exactmatch.Components {
			row(c, cells(func(l *levelScore) string {
				s := l.Partial[c]
				v := map[string]float64{"acc": s.Acc, "rec": s.Rec, "f1": s.F1}[part.key]
				return fmt.Sprintf("%-20.3f", v)
			}))
		}
	}
}

type spiderExecFlags struct {
	mode                    string
	keepDistinct, plugValue bool
	maxCands, workers       int
	timeout                 time.Duration
	maxBytes                int64
	predEngine, predDSN     string
	keep                    bool
	unsafePriv              bool // --unsafe-allow-privileged: the mirrors may be read as the administrator
	db                      string
	cache                   string // --cache: a folder or redis:// URL for gold results
	explain                 bool   // the items are written (--items): each mismatch says how
}

// officialSQLite has the drop-ins for the official evaluators run SQLite files as those
// run them (on Python's SQLite 3.40: no function added since).
var officialSQLite = map[string]qeval.Opener{"sqlite": sqlite.OfficialOpener}

// runSpiderExec judges every item by execution. Unless the exact-match pass already
// graded them, the workers also grade each gold query's difficulty.
func runSpiderExec(ctx context.Context, e *env, set *suite.Spider, hardness []*string, graded bool, f spiderExecFlags) ([]qeval.Verdict, execmatch.Summary, *crossEngine, error) {
	opts := execmatch.Options{Mode: f.mode, KeepDistinct: f.keepDistinct, PlugValue: f.plugValue,
		MaxCandidates: f.maxCands, Limits: qeval.Limits{Timeout: f.timeout, MaxBytes: f.maxBytes}, Catalog: &registry.Catalog{Openers: officialSQLite}, DiscardResults: true, NoExplanations: !f.explain}
	var cross *crossEngine
	if f.predEngine != "" {
		var err error
		if cross, err = mirrorForPredictions(ctx, e, f.predEngine, f.predDSN, f.keep, f.unsafePriv, f.db, set.DBIDs()); err != nil {
			return nil, execmatch.Summary{}, nil, err
		}
		opts.PredCatalog = cross.catalog
	}
	if f.cache != "" {
		jf := &judgeFlags{cacheDir: f.cache, cacheTTL: cache.DefaultTTL}
		if strings.HasPrefix(f.cache, "redis://") || strings.HasPrefix(f.cache, "rediss://") {
			jf.cacheDir, jf.cacheURL = "", f.cache
		}
		logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		shared, closers := jf.openCache(ctx, logger, true)
		defer func() {
			for _, c := range closers {
				c.Close()
			}
		}()
		opts.CacheGold, opts.SharedCache = true, shared
		opts.OnSharedCacheError = func(err error) {
			logger.Warn("the gold-result cache failed; gold queries run as usual", "err", err)
		}
	}
	ev, err := execmatch.New(opts)
	if err != nil {
		if cross != nil {
			cross.cleanup()
		}
		return nil, execmatch.Summary{}, nil, err
	}
	defer ev.Close()
	items := set.Items
	workers := f.workers
	if workers <= 0 && cross != nil {
		// an item waits while its prediction runs in a DuckDB worker process or on a
		// server: twice as many items in flight keep both sides busy (972 Spider items
		// on DuckDB, two cores: 1.05 s with 2, 0.93 s with 4)
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	verdicts, sum := ev.Run(ctx, items, workers, func(i int, _ qeval.Verdict) {
		if graded {
			return
		}
		if h, err := hardnessOf(items[i].Gold); err == nil {
			hardness[i] = &h
		}
	})
	if f.cache != "" {
		st := ev.GoldCacheStats()
		fmt.Fprintf(e.stderr, "gold results: %d from the cache, %d executed\n", st.Hits, st.Misses)
	}
	return verdicts, sum, cross, nil
}

func countNonEmpty(ss []string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}
