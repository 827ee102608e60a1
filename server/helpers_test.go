package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

// chinookPath is the example database every run test uses (configured as "chinook").
func chinookPath(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "examples", "chinook", "chinook.sqlite")
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("chinook database: %v", err)
	}
	return p
}

// testServer is a server on httptest with its configuration.
type testServer struct {
	*server.Server
	URL  string
	http *httptest.Server
	cfg  server.Config
}

// MustServer starts a server with the chinook database configured and the given
// changes to its configuration; it is closed when the test ends.
func MustServer(tb testing.TB, change func(*server.Config)) *testServer {
	tb.Helper()
	cfg := server.Config{DataDir: tb.TempDir(), Databases: map[string]string{"chinook": chinookPath(tb)},
		JudgeSkipped: "no LLM judge configured (--judge none)"}
	if change != nil {
		change(&cfg)
	}
	s, err := server.New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(s.Handler())
	ts := &testServer{Server: s, URL: hs.URL, http: hs, cfg: cfg}
	tb.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return ts
}

// reply is an answer read whole.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *reply) json(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %s: %v", r.Body, err)
	}
}

// apiError is the error part of a failed answer.
type apiError struct {
	Success bool `json:"success"`
	Error   struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Field   *string `json:"field"`
	} `json:"error"`
}

func (r *reply) apiError(tb testing.TB) apiError {
	tb.Helper()
	var e apiError
	r.json(tb, &e)
	if e.Success || e.Error.Code == "" || e.Error.Message == "" {
		tb.Fatalf("error body %s lacks success false, code or message", r.Body)
	}
	return e
}

// waitContext bounds how long a test waits for the server: until shortly before the
// test binary's own deadline (go test -timeout), so that a hang fails with the request
// named while a slow, loaded machine never fails a test that would pass. Without a
// deadline (-timeout 0) it waits as long as it takes.
func waitContext(tb testing.TB) (context.Context, context.CancelFunc) {
	if d, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			return context.WithDeadline(context.Background(), dl.Add(-10*time.Second))
		}
	}
	return context.WithCancel(context.Background())
}

// do sends one request; headers are "Name: value" strings.
func do(tb testing.TB, method, url string, body io.Reader, headers ...string) *reply {
	tb.Helper()
	ctx, cancel := waitContext(tb)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read: %v", method, url, err)
	}
	return &reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func postJSON(tb testing.TB, url string, v any, headers ...string) *reply {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return do(tb, http.MethodPost, url, bytes.NewReader(b), append(headers, "Content-Type: application/json")...)
}

// startRun posts a suite file's text with the content type its extension implies
// and returns the run's id.
func startRun(tb testing.TB, ts *testServer, body []byte, contentType string, headers ...string) string {
	tb.Helper()
	r := do(tb, http.MethodPost, ts.URL+"/api/runs", bytes.NewReader(body), append(headers, "Content-Type: "+contentType)...)
	if r.Status != http.StatusCreated {
		tb.Fatalf("POST /api/runs = %d %s, want 201", r.Status, r.Body)
	}
	var v server.RunView
	r.json(tb, &v)
	if v.ID == "" || v.Status != server.StatusRunning {
		tb.Fatalf("POST /api/runs = %s, want an id and status running", r.Body)
	}
	return v.ID
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// event is one server-sent event.
type event struct {
	ID, Name string
	Data     []byte
}

// readEvents reads an event stream until it ends (or the test nears its deadline).
func readEvents(tb testing.TB, url string, headers ...string) []event {
	tb.Helper()
	ctx, cancel := waitContext(tb)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("GET %s = %d %s %s, want 200 text/event-stream", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	evs, err := parseEvents(resp.Body)
	if err != nil && ctx.Err() != nil {
		tb.Fatalf("event stream %s did not end before the test's deadline (%d events so far)", url, len(evs))
	}
	return evs
}

// parseEvents reads events until the stream ends.
func parseEvents(r io.Reader) ([]event, error) {
	var out []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var cur event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" {
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.Name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.Data = append(cur.Data, line[6:]...)
		}
	}
	return out, sc.Err()
}

func countEvents(evs []event, name string) int {
	n := 0
	for _, e := range evs {
		if e.Name == name {
			n++
		}
	}
	return n
}

// waitRun waits until a run has ended, which its event stream says by ending with the
// summary, and returns the run.
func waitRun(tb testing.TB, ts *testServer, id string) *server.RunView {
	tb.Helper()
	readEvents(tb, ts.URL+"/api/runs/"+id+"/events")
	r := do(tb, http.MethodGet, ts.URL+"/api/runs/"+id, nil)
	var v server.RunView
	r.json(tb, &v)
	if v.Status == server.StatusRunning {
		tb.Fatalf("run %s still running after its event stream ended", id)
	}
	return &v
}

// fakeJudge answers every case with the same verdict and counts its calls.
type fakeJudge struct {
	score     float64
	reasoning string
	calls     atomic.Int64
}

func (f *fakeJudge) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	f.calls.Add(1)
	return qeval.JudgeVerdict{Score: f.score, Reasoning: f.reasoning, LLMCalled: true, Provider: "fake", Model: "fake-1",
		PromptVersion: string(in.Task) + "@test"}, nil
}

// gatedSuite writes a suite whose target command waits for a file before it answers,
// so a test decides when the cases finish. It returns the suite path and the gate.
func gatedSuite(tb testing.TB, cases int) (suitePath, gate string) {
	tb.Helper()
	dir := tb.TempDir()
	gate = filepath.Join(dir, "gate")
	var b strings.Builder
	b.WriteString("name: gated\ndatabase: " + chinookPath(tb) + "\nconcurrency: 2\n")
	b.WriteString("target:\n  command: [sh, -c, 'cat >/dev/null; while [ ! -e gate ]; do sleep 0.01; done; echo \"{\\\"query\\\": \\\"SELECT count(*) AS n FROM Genre\\\"}\"']\n")
	b.WriteString("cases:\n")
	for i := 0; i < cases; i++ {
		b.WriteString("  - id: g" + strconv.Itoa(i) + "\n    expected_query: SELECT count(*) AS n FROM Genre\n")
	}
	suitePath = filepath.Join(dir, "gated.yaml")
	if err := os.WriteFile(suitePath, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return suitePath, gate
}

func openGate(tb testing.TB, gate string) {
	tb.Helper()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustListen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}
