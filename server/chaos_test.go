package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

// outageJudge fails (as a provider that is down) on questions that ask it to.
type outageJudge struct{ calls atomic.Int64 }

func (j *outageJudge) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	j.calls.Add(1)
	v := qeval.JudgeVerdict{Provider: "fake", Model: "fake-1", PromptVersion: string(in.Task) + "@test", LLMCalled: true}
	if strings.Contains(in.Question, "JUDGE-DOWN") {
		return v, &qeval.Error{Code: qeval.CodeUnavailable, Message: "judge: fake: 503 service unavailable (gave up after 4 tries)"}
	}
	v.Score, v.Reasoning = 1, "fine"
	return v, nil
}

// The chaos test: 20 runs posted at once, some on a database overwritten
// with garbage after the server started, some whose judge is down, while 50 clients
// follow the event streams. The server stays up, every healthy run finishes, every
// broken one is reported, and every stream ends.
func TestServer_Chaos(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.sqlite")
	if err := os.WriteFile(corrupt, readFile(t, chinookPath(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	judge := &outageJudge{}
	ts := MustServer(t, func(c *server.Config) {
		c.Databases = map[string]string{"chinook": chinookPath(t), "corrupt": corrupt}
		c.MaxActiveRuns = 20
		c.Judge, c.JudgeSkipped = judge, ""
	})
	if err := os.WriteFile(corrupt, []byte(strings.Repeat("garbage ", 4096)), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	var ids []string
	for i := 0; i < 20; i++ {
		db, q, kind := "chinook", "How many albums?", "healthy"
		switch i % 4 {
		case 1:
			db, kind = "corrupt", "corrupt"
		case 2:
			q, kind = "JUDGE-DOWN how many albums?", "judge"
		}
		body := fmt.Sprintf(`{"name": "chaos-%d", "database": %q, "cases": [
			{"id": "a", "question": %q, "expected_query": "SELECT count(*) FROM Album", "generated_query": "SELECT COUNT(*) FROM Album"},
			{"id": "b", "question": %q, "expected_query": "SELECT count(*) FROM Artist", "generated_query": "SELECT COUNT(*) FROM Artist WHERE 1"}]}`, i, db, q, q)
		id := startRun(t, ts, []byte(body), "application/json")
		ids = append(ids, id)
		kinds[id] = kind
	}
	// 50 clients follow the streams while the runs go on
	var wg sync.WaitGroup
	var ended atomic.Int64
	for c := 0; c < 50; c++ {
		id := ids[c%len(ids)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/runs/"+id+"/events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			if _, err := parseEvents(resp.Body); err == nil || errors.Is(err, context.Canceled) {
				ended.Add(1)
			}
		}()
	}
	for _, id := range ids {
		v := waitRun(t, ts, id)
		switch kinds[id] {
		case "healthy":
			if v.Status != server.StatusFinished || v.Passed != 2 {
				t.Errorf("healthy run %s: %s, %d passed", id, v.Status, v.Passed)
			}
		case "corrupt":
			if v.Status != server.StatusFinished || v.Errors != 2 {
				t.Errorf("corrupt-database run %s: %s, %d errors, want both cases reported as errors", id, v.Status, v.Errors)
			}
		case "judge":
			if v.Status != server.StatusFinished || v.Done != 2 {
				t.Errorf("judge-down run %s: %s, %d done", id, v.Status, v.Done)
			}
			var rep struct {
				Summary struct {
					JudgeErrors int `json:"judge_errors"`
				} `json:"summary"`
			}
			do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/report.json", nil).json(t, &rep)
			if rep.Summary.JudgeErrors == 0 {
				t.Errorf("judge-down run %s reports no judge error", id)
			}
		}
	}
	wg.Wait()
	if ended.Load() != 50 {
		t.Errorf("%d of 50 event streams ended", ended.Load())
	}
	if r := do(t, http.MethodGet, ts.URL+"/api/health", nil); r.Status != http.StatusOK {
		t.Errorf("health after the chaos: %d", r.Status)
	}
	if judge.calls.Load() == 0 {
		t.Error("the judge was never asked")
	}
}
