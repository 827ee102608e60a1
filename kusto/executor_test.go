package kusto_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kusto"
)

// fakeCluster is an httptest server that speaks the Kusto v2 REST query protocol:
// POST /v2/rest/query with {"db", "csl", "properties"}, answered with the fixture
// the query text names.
type fakeCluster struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []queryRequest
}

type queryRequest struct {
	DB         string         `json:"db"`
	CSL        string         `json:"csl"`
	Properties map[string]any `json:"properties"`
	Path       string
	Header     http.Header
}

func newFakeCluster(t *testing.T) *fakeCluster {
	f := &fakeCluster{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/rest/auth/metadata" {
			// the SDK asks for the cloud's sign-in metadata; an empty 404 means the defaults
			w.WriteHeader(http.StatusNotFound)
			return
		}
		var q queryRequest
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		q.Path, q.Header = r.URL.Path, r.Header.Clone()
		f.mu.Lock()
		f.reqs = append(f.reqs, q)
		f.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v2/rest/query" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case strings.HasPrefix(q.CSL, "SLOW"):
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
			return
		case strings.HasPrefix(q.CSL, "BAD"):
			w.WriteHeader(http.StatusBadRequest)
			w.Write(fixture(t, "bad_request.json"))
		case strings.HasPrefix(q.CSL, "UNAUTHORIZED"):
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"code":"Unauthorized","message":"The caller is not authorized."}}`))
		case strings.HasPrefix(q.CSL, "STREAMERROR"):
			w.Write(fixture(t, "stream_error.json"))
		case strings.HasPrefix(q.CSL, "MANY"):
			w.Write(manyRows(50))
		default:
			w.Write(fixture(t, "primary.json"))
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func fixture(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// manyRows is a complete response with n rows of one long column.
func manyRows(n int) []byte {
	var rows []string
	for i := 0; i < n; i++ {
		rows = append(rows, fmt.Sprintf("[%d]", i))
	}
	return []byte(`[{"FrameType":"DataSetHeader","IsProgressive":false,"Version":"v2.0","IsFragmented":true,"ErrorReportingPlacement":"EndOfTable"}
,{"FrameType":"DataTable","TableId":0,"TableKind":"QueryProperties","TableName":"@ExtendedProperties","Columns":[{"ColumnName":"TableId","ColumnType":"int"},{"ColumnName":"Key","ColumnType":"string"},{"ColumnName":"Value","ColumnType":"dynamic"}],"Rows":[]}
,{"FrameType":"TableHeader","TableId":1,"TableKind":"PrimaryResult","TableName":"PrimaryResult","Columns":[{"ColumnName":"x","ColumnType":"long"}]}
,{"FrameType":"TableFragment","TableFragmentType":"DataAppend","TableId":1,"Rows":[` + strings.Join(rows, ",") + `]}
,{"FrameType":"TableCompletion","TableId":1,"RowCount":` + fmt.Sprint(n) + `}
,{"FrameType":"DataSetCompletion","HasErrors":false,"Cancelled":false}
]`)
}

func newExecutor(t *testing.T, f *fakeCluster, limits qeval.Limits) *kusto.Executor {
	t.Helper()
	e, err := kusto.New(kusto.Config{ClusterURL: f.URL, Database: "Samples", Auth: kusto.AuthNone, Limits: limits, HTTPClient: f.Client()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestExecutor_PrimaryResult(t *testing.T) {
	f := newFakeCluster(t)
	e := newExecutor(t, f, qeval.Limits{Timeout: 5 * time.Second})
	rs, err := e.Query(context.Background(), "StormEvents | summarize Events=count() by State")
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	req := f.reqs[0]
	f.mu.Unlock()
	if req.DB != "Samples" || req.CSL != "StormEvents | summarize Events=count() by State" || req.Path != "/v2/rest/query" {
		t.Errorf("request = %+v, want db Samples, the query as csl, path /v2/rest/query", req)
	}
	opts, _ := req.Properties["Options"].(map[string]any)
	for _, o := range []string{"servertimeout", "truncationmaxrecords", "results_v2_fragment_primary_tables", "results_v2_newlines_between_frames"} {
		if opts[o] == nil {
			t.Errorf("request options %v lack %s", opts, o)
		}
	}
	wantCols := []qeval.Column{{Name: "State", Type: "string"}, {Name: "Events", Type: "long"}, {Name: "EpisodeId", Type: "int"}, {Name: "AvgDamage", Type: "real"}, {Name: "Deadly", Type: "bool"},
		{Name: "First", Type: "datetime"}, {Name: "Duration", Type: "timespan"}, {Name: "Summary", Type: "dynamic"}, {Name: "Id", Type: "guid"}, {Name: "Ratio", Type: "decimal"}}
	if fmt.Sprint(rs.Columns) != fmt.Sprint(wantCols) {
		t.Errorf("columns = %v, want %v", rs.Columns, wantCols)
	}
	if len(rs.Rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(rs.Rows))
	}
	first := time.Date(2007, 1, 3, 23, 18, 19, 123456700, time.UTC)
	want := []qeval.Value{qeval.Text("TEXAS"), qeval.Int(120), qeval.Int(61032), qeval.Float(1520.5), qeval.Bool(true),
		qeval.Time(first), qeval.Text("1.02:03:04.5000000"), qeval.Text(`{"Details":{"Location":"TEXAS"},"Tags":["a","b"]}`),
		qeval.Text("123e27de-1e4e-49d9-b579-fe0b331d3642"), qeval.Text("0.25")}
	for i, w := range want {
		if rs.Rows[0][i] != w {
			t.Errorf("row 0 column %s = %#v, want %#v", rs.Columns[i].Name, rs.Rows[0][i], w)
		}
	}
	nulls := []int{2, 3, 7, 8, 9}
	for _, i := range nulls {
		if !rs.Rows[1][i].IsNull() {
			t.Errorf("row 1 column %s = %v, want NULL", rs.Columns[i].Name, rs.Rows[1][i])
		}
	}
	if rs.Rows[1][6] != qeval.Text("00:05:00") {
		t.Errorf("row 1 Duration = %v, want 00:05:00", rs.Rows[1][6])
	}
}

func TestExecutor_Errors(t *testing.T) {
	f := newFakeCluster(t)
	e := newExecutor(t, f, qeval.Limits{Timeout: 300 * time.Millisecond, MaxRows: 10})
	cases := []struct {
		name, query string
		code        qeval.Code
		msg         string
	}{
		{"SyntaxError", "BAD | where", qeval.CodeQuery, "Syntax error: SYN0002"},
		{"ErrorFrame", "STREAMERROR", qeval.CodeQuery, "exceeded the allowed limits"},
		{"Unauthorized", "UNAUTHORIZED", qeval.CodeUnavailable, "401"},
		{"Deadline", "SLOW", qeval.CodeTimeout, "timed out"},
		{"RowCap", "MANY", qeval.CodeTooLarge, "more than 10 rows"},
		{"Empty", "  ", qeval.CodeQuery, "empty query"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := e.Query(context.Background(), c.query)
			if qeval.ErrorCode(err) != c.code || !strings.Contains(qeval.ErrorMessage(err), c.msg) {
				t.Fatalf("Query(%q) error = %v (code %q), want code %q with %q", c.query, err, qeval.ErrorCode(err), c.code, c.msg)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("Query(%q) took %v: the client-side deadline did not stop it", c.query, time.Since(start))
			}
		})
	}
}

func TestNew_Config(t *testing.T) {
	cases := []struct {
		name string
		cfg  kusto.Config
		msg  string
	}{
		{"NoURL", kusto.Config{Database: "d"}, "no cluster URL"},
		{"NoDatabase", kusto.Config{ClusterURL: "https://x.kusto.windows.net"}, "no database"},
		{"AppKeyIncomplete", kusto.Config{ClusterURL: "https://x.kusto.windows.net", Database: "d", Auth: kusto.AuthAppKey, ClientID: "id"}, "client secret"},
		{"UnknownAuth", kusto.Config{ClusterURL: "https://x.kusto.windows.net", Database: "d", Auth: "magic"}, `unknown sign-in method "magic"`},
		{"TokenOverHTTP", kusto.Config{ClusterURL: "http://127.0.0.1:1", Database: "d", Auth: kusto.AuthToken, Token: "secret-token"}, "clear text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := kusto.New(c.cfg)
			if qeval.ErrorCode(err) != qeval.CodeInvalid || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("New error = %v, want invalid with %q", err, c.msg)
			}
			if strings.Contains(err.Error(), "secret-token") {
				t.Errorf("error %q prints the token", err)
			}
		})
	}
}
