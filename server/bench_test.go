package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval/server"
)

// scoreBody is a typical request of the seed's contract, without a judge.
var scoreBody = []byte(`{"prompt": "Top storm types in Texas",
	"generated_kql": "StormEvents | where State == \"TEXAS\" | summarize count() by EventType",
	"expected_kql": "StormEvents | where State == \"TEXAS\" | summarize n = count() by EventType | top 5 by n",
	"generated_columns": ["EventType", "count_"], "expected_columns": ["EventType", "n"],
	"generated_results": [{"EventType": "Hail", "count_": 10}, {"EventType": "Flood", "count_": 5}],
	"expected_results": [{"EventType": "Hail", "n": 10}, {"EventType": "Flood", "n": 5}]}`)

// BenchmarkScoreQuery is the handler alone, in memory.
func BenchmarkScoreQuery(b *testing.B) {
	s, err := server.New(server.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/api/score-query", bytes.NewReader(scoreBody))
		req.Header.Set("Content-Type", "application/json")
		req.Host = "127.0.0.1" // the server answers only requests addressed to this machine
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// benchServer serves s over loopback with its real HTTP server settings.
func benchServer(b *testing.B) string {
	s, err := server.New(server.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	hs := s.HTTPServer("127.0.0.1:0")
	ln := mustListen(b)
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close(); s.Close() })
	return "http://" + ln.Addr().String() + "/api/score-query"
}

func post(c *http.Client, url string) (time.Duration, bool) {
	start := time.Now()
	resp, err := c.Post(url, "application/json", bytes.NewReader(scoreBody))
	if err != nil {
		return time.Since(start), false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), resp.StatusCode == http.StatusOK
}

// BenchmarkScoreQueryHTTP is closed-loop load over loopback: as many requests as 16
// clients can send, each waiting for its answer. It reports requests/s and the 50th
// and 99th percentile latencies.
func BenchmarkScoreQueryHTTP(b *testing.B) {
	url := benchServer(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(8) // 8 × GOMAXPROCS clients
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			d, ok := post(client, url)
			if !ok {
				b.Error("request failed")
				return
			}
			mine = append(mine, d)
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	reportLatency(b, lat, time.Since(start))
}

// BenchmarkScoreQueryRate is open-loop load: requests are sent at a fixed 5,000 per
// second for 3 s, whatever the answers, and each latency is measured from when its
// request was due, so a stall counts against every request it delays. Run it once:
//
//	go test ./server -run '^$' -bench ScoreQueryRate -benchtime 1x
func BenchmarkScoreQueryRate(b *testing.B) {
	const rate, dur, workers = 5000, 3 * time.Second, 64
	url := benchServer(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 10 * time.Second}
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), dur)
		due := make(chan time.Time, rate)
		var mu sync.Mutex
		var lat []time.Duration
		failed := 0
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				var mine []time.Duration
				bad := 0
				for t := range due {
					if _, ok := post(client, url); !ok {
						bad++
					}
					mine = append(mine, time.Since(t))
				}
				mu.Lock()
				lat, failed = append(lat, mine...), failed+bad
				mu.Unlock()
			})
		}
		start := time.Now()
		tick := time.NewTicker(time.Millisecond)
		sent := 0
	loop:
		for {
			select {
			case <-ctx.Done():
				break loop
			case now := <-tick.C:
				for want := int(now.Sub(start).Seconds() * rate); sent < want; sent++ {
					due <- start.Add(time.Duration(sent) * time.Second / rate)
				}
			}
		}
		tick.Stop()
		close(due)
		wg.Wait()
		elapsed := time.Since(start)
		cancel()
		if failed > 0 {
			b.Errorf("%d of %d requests failed", failed, sent)
		}
		reportLatency(b, lat, elapsed)
	}
}

func reportLatency(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
