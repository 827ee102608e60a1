package server_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

const liveSuite = "testdata/live.yaml"

// liveCase is what the tests read of a case result.
type liveCase struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Database  string `json:"database"`
	Execution *struct {
		Outcome  string `json:"outcome"`
		Database string `json:"database"`
	} `json:"execution"`
}

func checkLive(t *testing.T, v *server.RunView) {
	t.Helper()
	if v.Status != server.StatusFinished || v.Total != 8 || v.Done != 8 || v.Passed != 5 || v.Failed != 3 || v.Errors != 0 {
		t.Fatalf("run %s: status %s total %d done %d passed %d failed %d errors %d, want finished 8 8 5 3 0",
			v.ID, v.Status, v.Total, v.Done, v.Passed, v.Failed, v.Errors)
	}
	if v.Summary == nil || v.Summary.Passed != 5 || v.Run == nil || v.Run.Threshold != 0.9 {
		t.Fatalf("summary %+v run %+v, want 5 passed at threshold 0.9", v.Summary, v.Run)
	}
	if len(v.Charts) < 3 || !strings.HasPrefix(v.Charts[0].SVG, "<svg") {
		t.Errorf("charts %d, want at least score distribution, component means and tags", len(v.Charts))
	}
	want := map[string]string{"p1": "PASS", "p2": "PASS", "p3": "PASS", "p4": "PASS", "slow": "PASS",
		"f1": "FAIL", "f2": "FAIL", "e1": "FAIL"}
	if len(v.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(v.Cases), len(want))
	}
	for _, raw := range v.Cases {
		var c liveCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if want[c.ID] != c.Status {
			t.Errorf("case %s: %s, want %s", c.ID, c.Status, want[c.ID])
		}
		if c.Database != "chinook" || c.Execution == nil || c.Execution.Database != "chinook" {
			t.Errorf("case %s: database %q, execution %+v; want the configured name chinook", c.ID, c.Database, c.Execution)
		}
		if c.ID == "e1" && c.Execution.Outcome != "pred_error" {
			t.Errorf("case e1: outcome %s, want pred_error", c.Execution.Outcome)
		}
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), "chinook.sqlite") || strings.Contains(string(b), "/examples/") {
		t.Errorf("the run shows a server path: %s", b)
	}
}

func TestRuns_PostYAML(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	checkLive(t, waitRun(t, ts, id))
}

func TestRuns_PostJSON(t *testing.T) {
	ts := MustServer(t, nil)
	body := `{"name": "js", "database": "chinook", "cases": [
		{"id": "a", "expected_query": "SELECT count(*) FROM Genre", "generated_query": "SELECT count(*) FROM Genre"},
		{"id": "b", "expected_query": "SELECT Name FROM Genre", "generated_query": "SELECT Name FROM Genre WHERE GenreId < 3", "database": "chinook.sqlite"}]}`
	id := startRun(t, ts, []byte(body), "application/json")
	v := waitRun(t, ts, id)
	if v.Status != server.StatusFinished || v.Suite != "js" || v.Passed != 1 || v.Failed != 1 {
		t.Fatalf("run: %+v, want finished js with 1 passed and 1 failed", v)
	}
}

func TestRuns_Upload(t *testing.T) {
	ts := MustServer(t, nil)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("suite", `C:\Users\me\suites\live.yaml`)
	fw.Write(readFile(t, liveSuite))
	mw.Close()
	id := startRun(t, ts, buf.Bytes(), mw.FormDataContentType())
	checkLive(t, waitRun(t, ts, id))
}

func TestRuns_Configured(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) {
		c.Suites = map[string]string{"live": liveSuite, "chinook": "../examples/chinook/suite.yaml"}
	})
	var suites struct {
		Suites    []server.SuiteInfo `json:"suites"`
		Databases []string           `json:"databases"`
	}
	do(t, http.MethodGet, ts.URL+"/api/suites", nil).json(t, &suites)
	if len(suites.Suites) != 2 || suites.Suites[0].Name != "chinook" || suites.Suites[0].Cases != 56 || suites.Suites[1].Cases != 8 {
		t.Fatalf("suites %+v, want chinook (56 cases) and live (8)", suites.Suites)
	}
	if strings.Join(suites.Databases, ",") != "chinook,chinook.sqlite,live" {
		t.Errorf("databases %v, want chinook, its file name, and live (the suite names its default database)", suites.Databases)
	}
	id := startRun(t, ts, []byte(`{"suite": "live"}`), "application/json")
	checkLive(t, waitRun(t, ts, id))

	// a suite the server was started with, by name in a form
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("suite", "chinook")
	mw.Close()
	id = startRun(t, ts, buf.Bytes(), mw.FormDataContentType())
	v := waitRun(t, ts, id)
	if v.Status != server.StatusFinished || v.Total != 56 || v.Done != 56 {
		t.Fatalf("chinook run: %s %d/%d, want all 56 finished", v.Status, v.Done, v.Total)
	}
	var list struct{ Runs []server.RunView }
	do(t, http.MethodGet, ts.URL+"/api/runs", nil).json(t, &list)
	if len(list.Runs) != 2 || list.Runs[0].ID != id || list.Runs[0].Cases != nil || list.Runs[1].Passed != 5 {
		t.Errorf("list %+v, want both runs, newest first, without cases", list.Runs)
	}
}

func TestRuns_Downloads(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	waitRun(t, ts, id)
	base := ts.URL + "/api/runs/" + id + "/"

	r := do(t, http.MethodGet, base+"report.json", nil)
	var rep qeval.Report
	r.json(t, &rep)
	if r.Status != 200 || len(rep.Cases) != 8 || rep.Summary.Passed != 5 || rep.Run.Suite != "live" || rep.Run.SuitePath != "" {
		t.Fatalf("report.json: %d, %d cases, %d passed, suite %q path %q", r.Status, len(rep.Cases), rep.Summary.Passed, rep.Run.Suite, rep.Run.SuitePath)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="qeval-live-`+id[:8]+`-report.json"` {
		t.Errorf("Content-Disposition %q", cd)
	}

	r = do(t, http.MethodGet, base+"report.xlsx", nil)
	f, err := excelize.OpenReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatalf("report.xlsx does not open: %v", err)
	}
	rows, err := f.GetRows("Cases")
	if err != nil || len(rows) != 9 {
		t.Fatalf("Cases sheet: %d rows (%v), want a header and 8 cases", len(rows), err)
	}

	r = do(t, http.MethodGet, base+"junit.xml", nil)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(r.Body, &suites); err != nil || suites.Tests != 8 || suites.Failures != 3 {
		t.Fatalf("junit.xml: %+v %v\n%.300s", suites, err, r.Body)
	}
}

func TestRuns_Cancel(t *testing.T) {
	suitePath, _ := gatedSuite(t, 4)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"gated": suitePath} })
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")

	r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/report.json", nil)
	if e := r.apiError(t); r.Status != http.StatusConflict || e.Error.Code != "conflict" {
		t.Errorf("report of a running run: %d %s, want 409", r.Status, r.Body)
	}
	r = do(t, http.MethodPost, ts.URL+"/api/runs/"+id+"/cancel", nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("cancel: %d %s, want 202", r.Status, r.Body)
	}
	v := waitRun(t, ts, id)
	if v.Status != server.StatusCanceled || v.Done != 0 {
		t.Fatalf("after cancel: %s with %d done, want canceled with none", v.Status, v.Done)
	}
	r = do(t, http.MethodPost, ts.URL+"/api/runs/"+id+"/cancel", nil)
	if r.apiError(t); r.Status != http.StatusConflict {
		t.Errorf("second cancel: %d, want 409", r.Status)
	}
	var rep qeval.Report
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/report.json", nil).json(t, &rep)
	if !rep.Run.Interrupted {
		t.Errorf("report of a canceled run is not marked interrupted")
	}
}

func TestRuns_CloseAndRestart(t *testing.T) {
	dir := t.TempDir()
	suitePath, _ := gatedSuite(t, 3)
	cfg := server.Config{DataDir: dir, Databases: map[string]string{"chinook": chinookPath(t)}, Suites: map[string]string{"gated": suitePath}}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s}
	h := httpServe(t, s)
	ts.URL = h
	done := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	waitRun(t, ts, done)
	stuck := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")

	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s with a run waiting on its target", d)
	}

	ts2 := MustServer(t, func(c *server.Config) { *c = cfg })
	var list struct{ Runs []server.RunView }
	do(t, http.MethodGet, ts2.URL+"/api/runs", nil).json(t, &list)
	if len(list.Runs) != 2 {
		t.Fatalf("%d runs after restart, want 2", len(list.Runs))
	}
	v := waitRun(t, ts2, stuck)
	if v.Status != server.StatusInterrupted || v.Error == "" {
		t.Errorf("the run in progress at Close: %s %q, want interrupted with a reason", v.Status, v.Error)
	}
	checkLive(t, waitRun(t, ts2, done))
}

// httpServe serves s on a loopback port until the test ends (without closing s).
func httpServe(t *testing.T, s *server.Server) string {
	t.Helper()
	hs := s.HTTPServer("127.0.0.1:0")
	ln := mustListen(t)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

func TestRuns_MaxActive(t *testing.T) {
	suitePath, gate := gatedSuite(t, 1)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"gated": suitePath}; c.MaxActiveRuns = 1 })
	id := startRun(t, ts, []byte(`{"suite": "gated"}`), "application/json")
	r := postJSON(t, ts.URL+"/api/runs", map[string]string{"suite": "gated"})
	if e := r.apiError(t); r.Status != http.StatusServiceUnavailable || e.Error.Code != "unavailable" {
		t.Fatalf("second run: %d %s, want 503", r.Status, r.Body)
	}
	openGate(t, gate)
	if v := waitRun(t, ts, id); v.Status != server.StatusFinished || v.Passed != 1 {
		t.Fatalf("gated run: %s with %d passed, want finished with 1", v.Status, v.Passed)
	}
}

func TestRuns_Rejected(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"live": liveSuite} })
	abs, _ := filepath.Abs(chinookPath(t))
	tests := []struct {
		name, ct, body string
		status         int
		field          string
	}{
		{"PathDatabase", "application/yaml", "database: " + abs + "\ncases: [{expected_query: SELECT 1, generated_query: SELECT 1}]", 400, "database"},
		{"RelativePath", "application/yaml", "cases: [{database: ../examples/chinook/chinook.sqlite, expected_query: SELECT 1}]", 400, "cases[0].database"},
		{"UnknownDatabase", "application/json", `{"cases": [{"id": "a", "expected_query": "SELECT 1"}, {"id": "b", "database": "sakila", "expected_query": "SELECT 1"}]}`, 400, "cases[1].database"},
		{"BinaryPath", "application/yaml", "database: !!binary L2V0Yy9wYXNzd2Q=\ncases: [{expected_query: SELECT 1}]", 400, "database"},
		{"MergedPath", "application/yaml", "x: &d {database: /etc/passwd}\ncases: [{<<: *d, expected_query: SELECT 1}]", 400, "suite"},
		{"Target", "application/yaml", "database: chinook\ntarget: {command: [sh, -c, 'echo hi']}\ncases: [{expected_query: SELECT 1}]", 400, "target"},
		{"SuiteProblems", "application/yaml", "database: chinook\ncases: [{id: a}, {id: a, expected_query: SELECT 1, colour: red}]", 400, "suite"},
		{"NoCases", "application/json", `{"name": "x", "database": "chinook", "cases": []}`, 400, "suite"},
		{"UnknownSuite", "application/json", `{"suite": "nope"}`, 404, "suite"},
		{"SuiteNotString", "application/json", `{"suite": ["live"]}`, 400, "suite"},
		{"SuiteAndMore", "application/json", `{"suite": "live", "threshold": 2}`, 400, "threshold"},
		{"MediaType", "text/plain", `{"suite": "live"}`, 415, ""},
		{"Empty", "application/json", ``, 400, ""},
		{"BadMultipart", "multipart/form-data; boundary=xyz", "--xyz\r\nnot a part", 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, http.MethodPost, ts.URL+"/api/runs", strings.NewReader(tt.body), "Content-Type: "+tt.ct)
			e := r.apiError(t)
			field := ""
			if e.Error.Field != nil {
				field = *e.Error.Field
			}
			if r.Status != tt.status || field != tt.field {
				t.Fatalf("%d field %q: %s; want %d field %q", r.Status, field, e.Error.Message, tt.status, tt.field)
			}
			if strings.Contains(e.Error.Message, "no such file") {
				t.Errorf("the answer tells whether a file exists: %s", e.Error.Message)
			}
		})
	}
	var list struct{ Runs []server.RunView }
	do(t, http.MethodGet, ts.URL+"/api/runs", nil).json(t, &list)
	if len(list.Runs) != 0 {
		t.Errorf("%d runs recorded from rejected requests", len(list.Runs))
	}
}
