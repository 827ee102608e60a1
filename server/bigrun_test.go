package server_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval/server"
)

// A 50,000-case run through the server is stored, listed and opened (issue 39: a
// 5,000-case run was lost, "the report could not be stored: out of memory", because
// the SQLite heap limit set for generated queries is process-wide in SQLite and also
// bound the server's own run store).
func TestRuns_LargeRunIsStored(t *testing.T) {
	if testing.Short() {
		t.Skip("a 50,000-case run")
	}
	const n = 50_000
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		// cheap cases: half match, half are near misses
		fmt.Fprintf(w, `{"id": "c%d", "database": "chinook", "expected_query": "SELECT %d", "generated_query": "SELECT %d"}`+"\n", i, i, i+i%2)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"big": path} })
	id := startRun(t, ts, []byte(`{"suite": "big"}`), "application/json")
	// the event stream ends with the run (minutes on a loaded machine): waited for until
	// the test nears its deadline
	ctx, cancel := waitContext(t)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/runs/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseEvents(resp.Body); err != nil {
		t.Fatalf("the event stream: %v", err)
	}
	resp.Body.Close()
	var v server.RunView
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"?cases=none", nil).json(t, &v)
	if v.Status != server.StatusFinished || v.Total != n || v.Done != n || v.Passed != n/2 {
		t.Fatalf("run: %s, %d/%d done, %d passed (%s), want finished with %d passed", v.Status, v.Done, v.Total, v.Passed, v.Error, n/2)
	}
	var list struct{ Runs []server.RunView }
	do(t, http.MethodGet, ts.URL+"/api/runs", nil).json(t, &list)
	if len(list.Runs) != 1 || list.Runs[0].ID != id || list.Runs[0].Status != server.StatusFinished {
		t.Fatalf("list %+v, want the run, finished", list.Runs)
	}
	var stored server.RunView
	if r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id, nil); r.Status != http.StatusOK {
		t.Fatalf("GET /api/runs/%s = %d", id, r.Status)
	} else {
		r.json(t, &stored)
	}
	if stored.Status != server.StatusFinished || len(stored.Cases) != n {
		t.Fatalf("GET /api/runs/%s: %s with %d cases, want finished with %d", id, stored.Status, len(stored.Cases), n)
	}
}
