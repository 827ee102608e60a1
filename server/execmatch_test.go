package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/testdata"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
	"github.com/qeval/qeval/server"
)

// mustDBRoot lays out a benchmark folder: root/<id>/<id>.sqlite for each database,
// and root/suite/ holding two files (a test suite).
func mustDBRoot(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	build := func(path string, stmts ...string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			tb.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				tb.Fatalf("%s: %v", s, err)
			}
		}
	}
	build(filepath.Join(root, "shop", "shop.sqlite"),
		"CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL)",
		"INSERT INTO item VALUES (1,'pen',1.5),(2,'ink',3.0),(3,'pad',2.25),(4,'nib',0.5)")
	// a test suite where the second database tells apart what the first cannot
	build(filepath.Join(root, "suite", "suite.sqlite"), "CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1),(2)")
	build(filepath.Join(root, "suite", "suite_1.sqlite"), "CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1),(5)")
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return root
}

func execMatch(tb testing.TB, ts *testServer, pairs []server.ExecMatchPair) []server.ExecMatchResult {
	tb.Helper()
	r := postJSON(tb, ts.URL+"/api/exec-match", server.ExecMatchRequest{Pairs: pairs})
	if r.Status != http.StatusOK {
		tb.Fatalf("exec-match: %d %s", r.Status, r.Body)
	}
	var resp server.ExecMatchResponse
	r.json(tb, &resp)
	if len(resp.Results) != len(pairs) {
		tb.Fatalf("%d results for %d pairs", len(resp.Results), len(pairs))
	}
	return resp.Results
}

func TestExecMatch_PairsAnsweredInOrderAndBadPairsAlone(t *testing.T) {
	root := mustDBRoot(t)
	ts := MustServer(t, func(c *server.Config) { c.DBRoot = root })
	pairs := []server.ExecMatchPair{
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: "SELECT name FROM item WHERE price >= 1.5"},
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: "SELECT name FROM item"},
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: "SELEC name FROM item"},
		{DB: "nowhere", Gold: "SELECT 1", Pred: "SELECT 1"},
		{DB: "shop", Gold: "SELECT 1", Pred: "SELECT 1", Mode: "no-such-mode"},
		{DB: "shop", Gold: "SELECT 1", Pred: "DELETE FROM item"},
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: "SELECT name FROM item", Partial: true},
		// a test suite: equal on suite.sqlite, different on suite_1.sqlite
		{DB: "suite", Gold: "SELECT a FROM t WHERE a < 3", Pred: "SELECT a FROM t"},
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", TimeoutMS: 50},
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1", Pred: ""},
		{DB: "../shop", Gold: "SELECT 1", Pred: "SELECT 1"},
	}
	res := execMatch(t, ts, pairs)
	want := []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeMismatch, qeval.OutcomePredError, qeval.OutcomeSkipped,
		qeval.OutcomeSkipped, qeval.OutcomePredError, qeval.OutcomeMismatch, qeval.OutcomeMismatch, qeval.OutcomeTimeout,
		qeval.OutcomePredError, qeval.OutcomeSkipped}
	for i, r := range res {
		if r.Outcome != want[i] {
			t.Errorf("pair %d: outcome %s, want %s (error %v)", i, r.Outcome, want[i], deref(r.Error))
		}
		if (r.Outcome == qeval.OutcomeMatch || r.Outcome == qeval.OutcomeMismatch) != (r.Error == nil) {
			t.Errorf("pair %d: outcome %s with error %v", i, r.Outcome, deref(r.Error))
		}
	}
	if !res[0].Match || res[1].Match {
		t.Errorf("match flags: %v %v", res[0].Match, res[1].Match)
	}
	for i, field := range map[int]string{3: "pairs[3].db", 4: "pairs[4].mode", 10: "pairs[10].db"} {
		if res[i].Error == nil || !strings.Contains(*res[i].Error, field) {
			t.Errorf("pair %d: error %v does not name %s", i, deref(res[i].Error), field)
		}
	}
	if !strings.Contains(deref(res[3].Error), "shop") {
		t.Errorf("unknown database: error %q does not list the known ones", deref(res[3].Error))
	}
	// partial credit is BIRD's soft F1: gold {pen, ink, pad}, prediction all four names
	if p := res[6].Partial; p == nil || *p < 0.85 || *p > 0.86 {
		t.Errorf("partial credit %v, want 6/7", p)
	} else if res[1].Partial != nil {
		t.Errorf("partial credit given without being asked")
	}
	// the second pair on the same gold found it cached
	if res[0].CachedGold == res[1].CachedGold && res[0].CachedGold == res[6].CachedGold {
		t.Errorf("the same gold was never cached: %v %v %v", res[0].CachedGold, res[1].CachedGold, res[6].CachedGold)
	}

	again := execMatch(t, ts, pairs[:2])
	if !again[0].CachedGold || !again[1].CachedGold || again[0].GoldMS != 0 {
		t.Errorf("second batch: cached_gold %v %v, gold_ms %v", again[0].CachedGold, again[1].CachedGold, again[0].GoldMS)
	}

	var st server.ExecMatchStats
	r := do(t, http.MethodGet, ts.URL+"/api/exec-match/stats", nil)
	r.json(t, &st)
	if st.Batches != 2 || st.Pairs != int64(len(pairs)+2) || st.GoldCache.Hits < 3 || st.BatchMS.N != 2 || st.Outcomes[qeval.OutcomeMatch] != 2 {
		t.Errorf("stats: %+v", st)
	}
	if st.Databases < 2 {
		t.Errorf("stats: %d databases, want shop and suite at least", st.Databases)
	}
}

func TestExecMatch_BatchOverLimitAndMalformedBody(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) { c.MaxPairs = 3 })
	pairs := make([]server.ExecMatchPair, 4)
	r := postJSON(t, ts.URL+"/api/exec-match", server.ExecMatchRequest{Pairs: pairs})
	if r.Status == http.StatusOK || !strings.Contains(r.apiError(t).Error.Message, "4 pairs, the limit is 3") {
		t.Fatalf("batch over the limit: %d %s", r.Status, r.Body)
	}
	r = do(t, http.MethodPost, ts.URL+"/api/exec-match", strings.NewReader(`{"pairs": [{"db": 1}]}`), "Content-Type: application/json")
	if r.Status != http.StatusBadRequest {
		t.Fatalf("malformed body: %d %s", r.Status, r.Body)
	}
}

func TestExecMatch_DBRootErrors(t *testing.T) {
	_, err := server.New(server.Config{DataDir: t.TempDir(), DBRoot: filepath.Join(t.TempDir(), "absent")})
	if err == nil || !strings.Contains(err.Error(), "absent") {
		t.Fatalf("missing --db-root: %v", err)
	}
	_, err = server.New(server.Config{DataDir: t.TempDir(), DBRoot: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no <db_id>/<db_id>.sqlite") {
		t.Fatalf("empty --db-root: %v", err)
	}
}

// TestExecMatch_SharedCacheAcrossServers: a second server (another replica) on the
// same shared cache runs no gold query the first one ran.
func TestExecMatch_SharedCacheAcrossServers(t *testing.T) {
	root := mustDBRoot(t)
	shared := cache.Memory(cache.Options{})
	pairs := []server.ExecMatchPair{{DB: "shop", Gold: "SELECT count(*) FROM item", Pred: "SELECT count(id) FROM item"}}
	a := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache = root, shared })
	if r := execMatch(t, a, pairs); r[0].CachedGold || !r[0].Match {
		t.Fatalf("first replica: %+v", r[0])
	}
	b := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache = root, shared })
	if r := execMatch(t, b, pairs); !r[0].CachedGold || !r[0].Match {
		t.Fatalf("second replica did not find the gold in the shared cache: %+v", r[0])
	}
}

// TestExecMatch_FlushForgetsGoldResults: POST /api/exec-match/flush forgets the gold
// results kept in memory and deletes those of the shared cache, so the next pair runs
// its gold again (a server database's data changed; files are keyed by their content);
// a server started with another --cache-epoch finds none of the entries kept before.
func TestExecMatch_FlushForgetsGoldResults(t *testing.T) {
	root := mustDBRoot(t)
	shared := cache.Memory(cache.Options{})
	pairs := []server.ExecMatchPair{{DB: "shop", Gold: "SELECT count(*) FROM item", Pred: "SELECT count(id) FROM item"}}
	a := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache = root, shared })
	execMatch(t, a, pairs)
	if r := execMatch(t, a, pairs); !r[0].CachedGold {
		t.Fatalf("the second pair's gold was not cached: %+v", r[0])
	}
	if r := do(t, http.MethodGet, a.URL+"/api/exec-match/flush", nil); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET flush: %d, want 405", r.Status)
	}
	r := postJSON(t, a.URL+"/api/exec-match/flush", struct{}{})
	var flushed server.ExecMatchFlush
	if r.Status != http.StatusOK {
		t.Fatalf("flush: %d %s", r.Status, r.Body)
	}
	if r.json(t, &flushed); flushed.SharedDeleted != 1 {
		t.Errorf("flush deleted %d shared entries, want 1", flushed.SharedDeleted)
	}
	if r := execMatch(t, a, pairs); r[0].CachedGold || !r[0].Match {
		t.Errorf("after the flush: %+v, want the gold run again", r[0])
	}
	b := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache, c.CacheEpoch = root, shared, "2" })
	if r := execMatch(t, b, pairs); r[0].CachedGold {
		t.Errorf("a server of another epoch found the gold in the shared cache: %+v", r[0])
	}
}

// mapCache is a shared cache whose entries the test can rewrite, as whoever can write
// to the Redis can.
type mapCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *mapCache) Get(_ context.Context, k string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok, nil
}

func (c *mapCache) Put(_ context.Context, k string, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
	return nil
}

// TestExecMatch_ForgedSharedEntryIgnored: with --cache-key a shared entry rewritten by
// another is not served (the gold runs again) and GET /api/exec-match/stats counts it.
func TestExecMatch_ForgedSharedEntryIgnored(t *testing.T) {
	root := mustDBRoot(t)
	raw := &mapCache{m: map[string][]byte{}}
	shared := &cache.Fallback{Shared: &cache.Sealed{Cache: raw, Key: []byte("0123456789abcdef0123")}}
	pairs := []server.ExecMatchPair{{DB: "shop", Gold: "SELECT count(*) FROM item", Pred: "SELECT 99"}}
	a := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache = root, shared })
	execMatch(t, a, pairs)
	var genuine []byte
	for k, v := range raw.m {
		genuine = v
		raw.m[k] = []byte("a gold result of 99, say") // a forged value
	}
	b := MustServer(t, func(c *server.Config) { c.DBRoot, c.SharedCache = root, shared })
	if r := execMatch(t, b, pairs); r[0].CachedGold || r[0].Match {
		t.Errorf("the forged entry: %+v, want it ignored and the gold run", r[0])
	}
	var st server.ExecMatchStats
	do(t, http.MethodGet, b.URL+"/api/exec-match/stats", nil).json(t, &st)
	if st.SharedRejected != 1 || len(genuine) == 0 {
		t.Errorf("stats: %d shared entries rejected, want 1", st.SharedRejected)
	}
}

// TestExecMatch_SpiderDev sends real model predictions on Spider dev through the
// endpoint in batches of 64 and checks every verdict against the official evaluator's
// (oracle/<set>.jsonl, its "exec" field).
func TestExecMatch_SpiderDev(t *testing.T) {
	data := filepath.Join(testdata.SharedDir(t), "spider")
	ts := MustServer(t, func(c *server.Config) { c.DBRoot = filepath.Join(data, "database") })
	for _, set := range []string{"gold_as_pred", "c3_chatgpt"} {
		items := readOracle(t, filepath.Join(data, "oracle", set+".jsonl"))
		var pairs []server.ExecMatchPair
		for _, it := range items {
			pairs = append(pairs, server.ExecMatchPair{DB: it.DBID, Gold: it.Gold, Pred: it.Pred})
		}
		agree := 0
		for start := 0; start < len(pairs); start += 64 {
			res := execMatch(t, ts, pairs[start:min(start+64, len(pairs))])
			for j, r := range res {
				if r.Match == (items[start+j].Exec == 1) {
					agree++
				} else {
					t.Errorf("%s line %d: match=%v, the official evaluator says exec=%d (%s %v)", set, start+j, r.Match, items[start+j].Exec, r.Outcome, deref(r.Error))
				}
			}
		}
		if agree != len(items) || len(items) != 972 {
			t.Errorf("%s: %d of %d verdicts agree with the official evaluator", set, agree, len(items))
		}
	}
}

type oracleItem struct {
	DBID string `json:"db_id"`
	Gold string `json:"gold"`
	Pred string `json:"pred"`
	Exec int    `json:"exec"`
}

func readOracle(tb testing.TB, path string) []oracleItem {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []oracleItem
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var it oracleItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			tb.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, it)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return fmt.Sprint(*s)
}

// BenchmarkExecMatch_Loopback is the reward service as a training loop uses it: the
// Spider dev (no wta_1) gold queries against the c3_chatgpt predictions, in batches of
// 64 over a real loopback connection from 4 clients, gold results cached (a warm-up
// pass runs first). It reports pairs/s and the p99 batch latency.
//
//	go test ./server -run '^$' -bench ExecMatch_Loopback -benchtime 200x
func BenchmarkExecMatch_Loopback(b *testing.B) {
	data := filepath.Join(testdata.SharedDir(b), "spider")
	items := readOracle(b, filepath.Join(data, "oracle", "c3_chatgpt.jsonl"))
	var bodies [][]byte
	for start := 0; start+64 <= len(items); start += 64 {
		var req server.ExecMatchRequest
		for _, it := range items[start : start+64] {
			req.Pairs = append(req.Pairs, server.ExecMatchPair{DB: it.DBID, Gold: it.Gold, Pred: it.Pred, TimeoutMS: 5000})
		}
		body, _ := json.Marshal(req)
		bodies = append(bodies, body)
	}
	ts := MustServer(b, func(c *server.Config) { c.DBRoot = filepath.Join(data, "database") })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	post := func(body []byte) time.Duration {
		start := time.Now()
		resp, err := client.Post(ts.URL+"/api/exec-match", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n == 0 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	for _, body := range bodies { // warm-up: gold results cached, databases open
		post(body)
	}
	rssBefore := vmRSS(b)
	const clients = 4
	var mu sync.Mutex
	var lat []time.Duration
	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				d := post(bodies[i%int64(len(bodies))])
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N*64)/elapsed.Seconds(), "pairs/s")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
	// the soak's memory: RSS after the run against RSS after the warm-up
	// (-benchtime 15625x is 1,000,000 pairs)
	b.ReportMetric(100*float64(vmRSS(b)-rssBefore)/float64(rssBefore), "rss-growth-%")
}

// vmRSS is this process's resident memory in kB (Linux).
func vmRSS(tb testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	tb.Skip("no VmRSS line")
	return 0
}

// "results": true returns both result sets of each pair (the request's flag or the
// pair's own), null for a query that failed; without it no result is sent.
func TestExecMatch_Results(t *testing.T) {
	root := mustDBRoot(t)
	ts := MustServer(t, func(c *server.Config) { c.DBRoot = root })
	pairs := []server.ExecMatchPair{
		{DB: "shop", Gold: "SELECT name FROM item WHERE price > 1 ORDER BY id", Pred: "SELECT name FROM item ORDER BY id"},
		{DB: "shop", Gold: "SELECT name FROM item", Pred: "SELEC name FROM item"},
	}
	r := postJSON(t, ts.URL+"/api/exec-match", server.ExecMatchRequest{Pairs: pairs, Results: true})
	var resp server.ExecMatchResponse
	r.json(t, &resp)
	if len(resp.Results) != 2 {
		t.Fatalf("%s", r.Body)
	}
	got := resp.Results[0]
	if got.GoldResults == nil || got.PredResults == nil || len(got.GoldResults.Rows) != 3 || len(got.PredResults.Rows) != 4 ||
		got.PredResults.Columns[0].Name != "name" || got.PredResults.Rows[3][0].Str != "nib" || got.GoldResults.Truncated {
		t.Errorf("pair 0 results: gold %+v, pred %+v", got.GoldResults, got.PredResults)
	}
	if bad := resp.Results[1]; bad.PredResults != nil || bad.GoldResults == nil || len(bad.GoldResults.Rows) != 4 {
		t.Errorf("a prediction that failed: pred %+v, gold %+v", bad.PredResults, bad.GoldResults)
	}
	pairs[0].Results = true
	res := execMatch(t, ts, pairs)
	if res[0].GoldResults == nil || res[1].GoldResults != nil {
		t.Errorf("a pair's own results flag: %+v / %+v", res[0].GoldResults, res[1].GoldResults)
	}
	if !strings.Contains(string(postJSON(t, ts.URL+"/api/exec-match", server.ExecMatchRequest{Pairs: pairs[1:]}).Body), `"outcome"`) {
		t.Error("no answer without results")
	}
}
