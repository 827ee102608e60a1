package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval/server"
)

// hostileBodies are thrown at every endpoint that takes a body.
var hostileBodies = []struct{ name, body string }{
	{"Empty", ""},
	{"Null", "null"},
	{"Number", "42"},
	{"String", `"x"`},
	{"Array", "[{}]"},
	{"Truncated", `{"generated_kql": "T", "expected_kql": "`},
	{"NUL", "{\"generated_kql\": \"\x00\", \"expected_kql\": 1}"},
	{"InvalidUTF8", "{\"generated_kql\": \"\xff\xfe\", \"expected_kql\": \"T\"}"},
	{"DeepNesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000)},
	{"DeepObject", `{"generated_results": [` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000) + `]}`},
	{"WrongTypes", `{"generated_kql": ["T"], "expected_kql": {"a": 1}, "generated_results": "rows", "threshold": "high", "weights": [1]}`},
	{"HugeNumber", `{"generated_kql": "T", "expected_kql": "T", "threshold": 1e400}`},
	{"Duplicate", `{"generated_kql": "T", "generated_kql": "U", "expected_kql": "T", "suite": "x", "suite": "y"}`},
	{"YAMLBomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ncases: [*h]\n"},
	{"PathSuite", `{"suite": "../../etc/passwd"}`},
	{"PathDatabase", `{"database": "/dev/zero", "cases": [{"expected_query": "SELECT 1"}]}`},
	{"TooLarge", `{"generated_kql": "` + strings.Repeat("A", 2<<20) + `"}`},
}

// Guards the requirement that malformed input never crashes the server and
// is answered with a 4xx JSON error naming what is wrong.
func TestHostile_Bodies(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) { c.MaxBodyBytes = 1 << 20 })
	endpoints := []struct{ method, path string }{
		{"POST", "/api/score-query"},
		{"POST", "/api/runs"},
		{"POST", "/api/runs/0123456789abcdef/cancel"},
		{"GET", "/api/runs"},
		{"GET", "/api/suites"},
		{"GET", "/api/runs/0123456789abcdef"},
		{"GET", "/api/runs/0123456789abcdef/report.xlsx"},
	}
	types := []string{"application/json", "application/yaml", "multipart/form-data; boundary=b", "text/plain", ""}
	for _, ep := range endpoints {
		for _, b := range hostileBodies {
			for _, ct := range types {
				r := do(t, ep.method, ts.URL+ep.path, strings.NewReader(b.body), "Content-Type: "+ct)
				if r.Status >= 500 || (ep.method == "POST" && r.Status < 400) {
					t.Errorf("%s %s %s (%s): %d %.200s", ep.method, ep.path, b.name, ct, r.Status, r.Body)
					continue
				}
				if r.Status >= 400 {
					var e apiError
					if err := json.Unmarshal(r.Body, &e); err != nil || e.Success || e.Error.Code == "" {
						t.Errorf("%s %s %s: error body %.200s is not the JSON error shape", ep.method, ep.path, b.name, r.Body)
					}
				}
			}
		}
	}
	if r := do(t, "GET", ts.URL+"/api/runs", nil); r.Status != 200 {
		t.Fatalf("the server no longer answers: %d", r.Status)
	}
	r := do(t, "POST", ts.URL+"/api/score-query", strings.NewReader(hostileBodies[len(hostileBodies)-1].body), "Content-Type: application/json")
	if r.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 MB body with a 1 MB limit: %d, want 413", r.Status)
	}
}

// rawRequest sends a request line as written (Go's client would clean the path).
func rawRequest(t *testing.T, addr, line string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", line)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHostile_Paths(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	waitRun(t, ts, id)
	addr := strings.TrimPrefix(ts.URL, "http://")
	lines := []string{
		"GET /api/runs/..%2f..%2fetc%2fpasswd",
		"GET /api/runs/%2e%2e/%2e%2e/etc/passwd",
		"GET /api/runs/" + id + "/..%2freport.json",
		"GET /api/runs/" + id + "/report.json%00.txt",
		"GET /api/runs/" + id + "/..%2F..%2Fserver.go",
		"GET /api/runs/" + strings.ToUpper(id),
		"GET /api/runs/" + id + "x",
		"GET /api/runs/%00/events",
		"GET /api/runs/' OR 1=1 --/events",
		"GET /api/runs/" + id + "/runs.db",
		"GET /ui/../server.go",
		"GET /ui/..%2fserver.go",
		"GET /ui/%2e%2e/ui.go",
		"GET /ui/../../go.mod",
		"GET //etc/passwd",
		"GET /api/../../../../etc/passwd",
		"DELETE /api/runs/" + id,
		"PUT /api/runs",
	}
	for _, line := range lines {
		status, body := rawRequest(t, addr, line)
		if status < 300 || status >= 500 {
			t.Errorf("%s: %d, want a 3xx or 4xx", line, status)
		}
		for _, leak := range []string{"package server", "root:", "SQLite format", "module github.com"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s: the answer holds %q", line, leak)
			}
		}
	}
	// the run is intact and the page still served
	if status, body := rawRequest(t, addr, "GET /api/runs/"+id+"/report.json"); status != 200 || !strings.Contains(body, `"passed": 5`) {
		t.Errorf("report after the path tricks: %d", status)
	}
	if status, _ := rawRequest(t, addr, "GET /ui/app.js"); status != 200 {
		t.Errorf("GET /ui/app.js = %d", status)
	}
}

// FuzzScoreQuery checks that no body makes the score endpoint fail with a 5xx or
// panic.
func FuzzScoreQuery(f *testing.F) {
	for _, b := range hostileBodies[:len(hostileBodies)-1] {
		f.Add([]byte(b.body))
	}
	f.Add([]byte(`{"generated_kql": "T | where x == 1 | summarize count() by y", "expected_kql": "T | take 10", "generated_results": [{"a": 1}], "expected_results": [{"a": null}]}`))
	f.Add([]byte(`{"generated_sql": "SELECT a, count(*) FROM t GROUP BY a", "expected_sql": "SELECT a FROM t WHERE b > 2", "dialect": "postgres", "weights": {"schema_match": 1}}`))
	s, err := server.New(server.Config{DataDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/api/score-query", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Host = "127.0.0.1" // the server answers only requests addressed to this machine
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%d: %s", w.Code, w.Body)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("answer is not JSON: %s", w.Body)
		}
	})
}

// Duplicate keys are refused like the rest of non-strict JSON: which of two values
// counts would depend on the decoder, so a posted suite could mean two things.
func TestDecode_DuplicateKeys(t *testing.T) {
	ts := MustServer(t, nil)
	for _, body := range []string{
		`{"generated_sql": "SELECT 1", "expected_sql": "SELECT 1", "generated_sql": "DROP TABLE x"}`,
		`{"generated_sql": "SELECT 1", "expected_sql": "SELECT 1", "weights": {"schema_match": 1, "schema_match": 0}}`,
	} {
		r := do(t, http.MethodPost, ts.URL+"/api/score-query", strings.NewReader(body), "Content-Type: application/json")
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "duplicate key") {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	r := do(t, http.MethodPost, ts.URL+"/api/score-query", strings.NewReader(`{"generated_sql": "SELECT 1", "expected_sql": "SELECT 1", "weights": {"schema_match": 1}, "threshold": 0.5}`), "Content-Type: application/json")
	if r.Status != http.StatusOK {
		t.Errorf("a body without duplicates: %d %s", r.Status, r.Body)
	}
}

// A token of spaces (or with spaces at its ends) is refused at start-up.
func TestNew_SpaceToken(t *testing.T) {
	for _, tok := range []string{"                    ", " abcdefghijklmnopqrstu "} {
		if _, err := server.New(server.Config{DataDir: t.TempDir(), Token: tok}); err == nil {
			t.Errorf("token %q accepted", tok)
		}
	}
}

// A database overwritten with garbage after the server started fails the runs on it,
// and the server goes on (the run's goroutine once panicked and took the process down).
func TestRuns_CorruptDatabaseKeepsServerUp(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.sqlite")
	if err := os.WriteFile(db, readFile(t, chinookPath(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := MustServer(t, func(c *server.Config) { c.Databases = map[string]string{"shop": db, "chinook": chinookPath(t)} })
	if err := os.WriteFile(db, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := startRun(t, ts, []byte(`{"database": "shop", "cases": [{"id": "a", "expected_query": "SELECT 1", "generated_query": "SELECT 1"}]}`), "application/json")
	good := startRun(t, ts, []byte(`{"database": "chinook", "cases": [{"id": "a", "expected_query": "SELECT 1", "generated_query": "SELECT 1"}]}`), "application/json")
	b, g := waitRun(t, ts, bad), waitRun(t, ts, good)
	if b.Errors != 1 || g.Passed != 1 {
		t.Errorf("corrupt database run: %+v; healthy run: %+v", b, g)
	}
	if r := do(t, http.MethodGet, ts.URL+"/api/health", nil); r.Status != http.StatusOK {
		t.Errorf("health after the runs: %d", r.Status)
	}
}
