package execmatch_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/mock"
	"github.com/qeval/qeval/registry"
)

// failingCache is a shared backend that has gone away.
type failingCache struct{ calls atomic.Int64 }

func (f *failingCache) Get(context.Context, string) ([]byte, bool, error) {
	f.calls.Add(1)
	return nil, false, errors.New("dial tcp 127.0.0.1:1: connection refused")
}
func (f *failingCache) Put(context.Context, string, []byte) error {
	f.calls.Add(1)
	return errors.New("dial tcp 127.0.0.1:1: connection refused")
}

func TestGoldCache_SharedAcrossEvaluatorsAndKeyedByContent(t *testing.T) {
	ctx := context.Background()
	db := mustSingerDB(t)
	shared := cache.Memory(cache.Options{})
	item := qeval.Item{Database: db, Gold: "SELECT name, net_worth FROM singer WHERE country = 'France'",
		Pred: "SELECT name, net_worth FROM singer WHERE age < 50 AND country = 'France'"}

	run := func() (qeval.Verdict, execmatch.GoldCacheStats) {
		e, err := execmatch.New(spiderOpts(execmatch.Options{CacheGold: true, SharedCache: shared}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		v := e.Match(ctx, item)
		return v, e.GoldCacheStats()
	}
	first, st := run()
	if !first.Match || first.GoldCached || st.Misses != 1 || st.Hits != 0 {
		t.Fatalf("first run: match=%v cached=%v stats=%+v (%s)", first.Match, first.GoldCached, st, first.Error)
	}
	second, st := run()
	if !second.Match || !second.GoldCached || st.Hits != 1 || st.Misses != 0 {
		t.Fatalf("second evaluator on the shared cache: match=%v cached=%v stats=%+v", second.Match, second.GoldCached, st)
	}
	// the cached result decodes to the same values, kinds included (a float stays a float)
	if got, want := second.Gold.Rows[0][1], first.Gold.Rows[0][1]; got != want {
		t.Fatalf("cached gold value %#v, executed %#v", got, want)
	}

	// a changed database is another version: the gold runs again and sees the change
	mustBuildDB(t, "", db, `UPDATE singer SET country = 'Belgium' WHERE singer_id = 3`)
	third, st := run()
	if third.GoldCached || st.Misses != 1 {
		t.Fatalf("after the database changed the gold came from the cache: stats=%+v", st)
	}
	if third.Gold.NumRows() != 3 {
		t.Fatalf("gold after the change has %d rows, want 3", third.Gold.NumRows())
	}
}

func TestGoldCache_WithinOneEvaluatorAndFailingBackend(t *testing.T) {
	ctx := context.Background()
	db := mustSingerDB(t)
	backend := &failingCache{}
	var warned atomic.Int64
	e, err := execmatch.New(spiderOpts(execmatch.Options{CacheGold: true, SharedCache: backend,
		OnSharedCacheError: func(error) { warned.Add(1) }}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	gold := "SELECT count(*) FROM singer"
	for i, pred := range []string{"SELECT count(*) FROM singer", "SELECT count(name) FROM singer", "SELECT count(net_worth) FROM singer"} {
		v := e.Match(ctx, qeval.Item{Database: db, Gold: gold, Pred: pred})
		if want := i < 2; v.Match != want {
			t.Fatalf("pair %d: match=%v, want %v (%s)", i, v.Match, want, v.Error)
		}
		if v.GoldCached != (i > 0) {
			t.Fatalf("pair %d: gold_cached=%v", i, v.GoldCached)
		}
	}
	if warned.Load() != 1 {
		t.Fatalf("a failing shared cache was reported %d times, want once", warned.Load())
	}
	if st := e.GoldCacheStats(); st.Hits != 2 || st.Misses != 1 || st.SharedErrors < 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestGoldCache_MissingFileIsAGoldError(t *testing.T) {
	db := mustSingerDB(t)
	e, err := execmatch.New(spiderOpts(execmatch.Options{CacheGold: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	v := e.Match(context.Background(), qeval.Item{Database: db, Gold: "SELECT 1", Pred: "SELECT 1"})
	if v.Outcome != qeval.OutcomeGoldError || v.Error == "" {
		t.Fatalf("missing database: %+v", v)
	}
}

// mustDuckDB writes a DuckDB file of a table item with n rows at path (through a
// temporary file renamed over it, as a mirror is replaced).
func mustDuckDB(t *testing.T, path string, n int) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "new.duckdb")
	db, err := sql.Open("duckdb", tmp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("CREATE TABLE item AS SELECT range AS id FROM range(%d)", n)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// A DuckDB file changed on disk misses the cache. Its gold results were keyed by its
// path: mirrored again with one more row at the same path, the file kept its old gold
// result, across evaluators sharing a cache (a restarted server on Redis) and within
// one, and a wrong prediction scored a match.
func TestGoldCache_DuckDBFileChangedMisses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shop.duckdb")
	mustDuckDB(t, path, 2)
	shared := cache.Memory(cache.Options{})
	open := func() *execmatch.Evaluator {
		e, err := execmatch.New(spiderOpts(execmatch.Options{CacheGold: true, SharedCache: shared}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	const gold = "SELECT count(*) FROM item"
	check := func(e *execmatch.Evaluator, when string, right int) {
		t.Helper()
		for _, n := range []int{right - 1, right} {
			v := e.Match(ctx, qeval.Item{Database: "duckdb:" + path, Gold: gold, Pred: fmt.Sprintf("SELECT %d", n)})
			if v.Match != (n == right) {
				t.Errorf("%s: SELECT %d scored %s (gold cached: %v), want match=%v", when, n, v.Outcome, v.GoldCached, n == right)
			}
		}
	}
	kept := open()
	check(kept, "first", 2)
	mustDuckDB(t, path, 3)
	check(open(), "another evaluator on the shared cache, after the file changed", 3)
	check(kept, "the same evaluator, after the file changed", 3)
	mustDuckDB(t, path, 2)
	v := open().Match(ctx, qeval.Item{Database: "duckdb:" + path, Gold: gold, Pred: "SELECT 2"})
	if !v.Match || !v.GoldCached {
		t.Errorf("the first content again: match=%v cached=%v, want a match from the cache (the key is the content)", v.Match, v.GoldCached)
	}
}

// serverCatalog resolves every name to a database known by its target alone, as a
// server is: a count(*) answers the count the test sets, any other query 5.
type serverCatalog struct{ count atomic.Int64 }

func (c *serverCatalog) Resolve(_ context.Context, name, _ string) (*qeval.Source, error) {
	return &qeval.Source{Name: name, Engine: "postgres", Dialect: "postgres", Files: []string{"postgres://eval@db/" + name},
		Open: func(string, qeval.Limits) (qeval.Executor, error) {
			return &mock.Executor{QueryFunc: func(_ context.Context, q string) (*qeval.ResultSet, error) {
				n := int64(5)
				if strings.Contains(q, "count(*)") {
					n = c.count.Load()
				}
				return &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}}, Rows: [][]qeval.Value{{qeval.Int(n)}}}, nil
			}}, nil
		}}, nil
}

// A server database is cached by its target: its data changed, the gold result stays
// until the cache epoch changes, which misses every entry kept under another.
func TestGoldCache_EpochMissesServerEntries(t *testing.T) {
	ctx := context.Background()
	shared := cache.Memory(cache.Options{})
	cat := &serverCatalog{}
	match := func(epoch string) qeval.Verdict {
		t.Helper()
		e, err := execmatch.New(execmatch.Options{Mode: "spider-ts", Catalog: cat, CacheGold: true, SharedCache: shared, CacheEpoch: epoch})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return e.Match(ctx, qeval.Item{Database: "bench", Gold: "SELECT count(*) FROM t", Pred: "SELECT 5"})
	}
	cat.count.Store(4)
	if v := match(""); v.Match || v.GoldCached {
		t.Fatalf("first: match=%v cached=%v, want a mismatch, executed", v.Match, v.GoldCached)
	}
	cat.count.Store(5)
	if v := match(""); v.Match || !v.GoldCached {
		t.Errorf("the data changed, the same epoch: match=%v cached=%v, want the cached gold (a server is known by its target)", v.Match, v.GoldCached)
	}
	if v := match("2"); !v.Match || v.GoldCached {
		t.Errorf("a new epoch: match=%v cached=%v, want the gold executed again, and a match", v.Match, v.GoldCached)
	}
}

// A folder of data files (the local KQL engine's database) is keyed by the content of
// its files: one changed in place misses, and is read afresh.
func TestGoldCache_DataFolderChangedMisses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(rows string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "Storm.csv"), []byte("State,Deaths\n"+rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("TEXAS,1\nOHIO,2\n")
	shared := cache.Memory(cache.Options{})
	match := func(pred string) qeval.Verdict {
		t.Helper()
		e, err := execmatch.New(execmatch.Options{Mode: "bag", Dialect: "kql", Catalog: &registry.Catalog{}, CacheGold: true, SharedCache: shared})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return e.Match(ctx, qeval.Item{Database: dir, Gold: "Storm | count", Pred: pred})
	}
	if v := match("print Count = 2"); !v.Match {
		t.Fatalf("first: %s %s", v.Outcome, v.Error)
	}
	write("TEXAS,1\nOHIO,2\nIOWA,3\n")
	if v := match("print Count = 3"); !v.Match || v.GoldCached {
		t.Errorf("after a row was added: %s (gold cached: %v) %s, want a match on the gold run again", v.Outcome, v.GoldCached, v.Error)
	}
}
