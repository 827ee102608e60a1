package execmatch_test

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/cache"
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
