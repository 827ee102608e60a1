package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qeval/qeval/server"
)

const testToken = "0123456789abcdef-test-token"

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"127.0.0.2:80", "", true},
		{"localhost:8080", "", true},
		{"[::1]:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"[::]:8080", "", false},
		{"192.168.1.5:8080", "", false},
		{"192.168.1.5:8080", "short", false},
		{"192.168.1.5:8080", testToken, true},
		{"0.0.0.0:8080", testToken, true},
		{"8080", "", false},
	}
	for _, tt := range tests {
		err := server.CheckAddr(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%q, %q) = %v, want ok %v", tt.addr, tt.token, err, tt.ok)
		}
	}
	if _, err := server.New(server.Config{DataDir: t.TempDir(), Token: "short"}); err == nil {
		t.Error("New accepted a 5-character token")
	}
}

func TestAuth_Token(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) { c.Token = testToken })
	bearer := "Authorization: Bearer " + testToken

	for _, h := range [][]string{nil, {"Authorization: Bearer wrong-token-0123456789"}, {"Authorization: " + testToken}} {
		r := do(t, http.MethodGet, ts.URL+"/api/runs", nil, h...)
		if e := r.apiError(t); r.Status != http.StatusUnauthorized || e.Error.Code != "unauthorized" || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("headers %v: %d %s, want 401 with WWW-Authenticate", h, r.Status, r.Body)
		}
	}
	if r := do(t, http.MethodGet, ts.URL+"/api/runs", nil, bearer); r.Status != http.StatusOK {
		t.Fatalf("with the token: %d %s", r.Status, r.Body)
	}
	// every API call needs it, including ones that would fail anyway
	for _, p := range []string{"/api/score-query", "/api/runs/0123456789abcdef/cancel", "/api/nope"} {
		if r := do(t, http.MethodPost, ts.URL+p, strings.NewReader("{}")); r.Status != http.StatusUnauthorized {
			t.Errorf("POST %s without a token: %d, want 401", p, r.Status)
		}
	}
	// ?token= is for the event stream only, which EventSource opens without headers
	if r := do(t, http.MethodGet, ts.URL+"/api/runs?token="+testToken, nil); r.Status != http.StatusUnauthorized {
		t.Errorf("?token= on /api/runs: %d, want 401", r.Status)
	}
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml", bearer)
	evs := readEvents(t, ts.URL+"/api/runs/"+id+"/events?token="+testToken)
	if err := checkStream(evs, 8); err != nil {
		t.Errorf("event stream with ?token=: %v", err)
	}
	// /api/health is public, so the page can ask for the token before any call fails
	var h server.Health
	if r := do(t, http.MethodGet, ts.URL+"/api/health", nil); r.Status != http.StatusOK {
		t.Errorf("GET /api/health without the token: %d", r.Status)
	} else if r.json(t, &h); !h.OK || !h.TokenRequired {
		t.Errorf("health %+v, want ok and token_required", h)
	}
	// the page itself is public: it asks for the token
	if r := do(t, http.MethodGet, ts.URL+"/", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `id="token-form"`) {
		t.Errorf("GET / = %d, want the page", r.Status)
	}
}

func TestAuth_ForeignRequests(t *testing.T) {
	ts := MustServer(t, nil)
	tests := []struct {
		name    string
		headers []string
		status  int
	}{
		{"SameOrigin", []string{"Origin: " + ts.URL}, 200},
		{"OtherOrigin", []string{"Origin: http://evil.example"}, 403},
		// a sandboxed iframe or a file:// page of another site sends "null" (issue 39)
		{"NullOrigin", []string{"Origin: null"}, 403},
		{"CrossSite", []string{"Sec-Fetch-Site: cross-site"}, 403},
		{"ReboundHost", []string{"Host: evil.example"}, 403},
		{"LocalhostHost", []string{"Host: localhost"}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/runs", nil)
			for _, h := range tt.headers {
				k, v, _ := strings.Cut(h, ": ")
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
	t.Run("TokenAllowsOtherHosts", func(t *testing.T) {
		ts := MustServer(t, func(c *server.Config) { c.Token = testToken })
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/runs", nil)
		req.Host = "qeval.internal:8080"
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d, want 200", resp.StatusCode)
		}
	})
}

func TestHTTPServer_Timeouts(t *testing.T) {
	s, err := server.New(server.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := s.HTTPServer("127.0.0.1:0")
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 {
		t.Fatalf("HTTPServer leaves a timeout unset: %+v", hs)
	}
}
