package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes to it; waitFor
// waits for a write that makes it match.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // a value (coalesced) after each write
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{written: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.written <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor returns the first match of re in what was written, waiting for writes; it
// fails the test if none matches within the deadline (a hang guard).
func (s *syncBuffer) waitFor(t *testing.T, re *regexp.Regexp, within time.Duration) []string {
	t.Helper()
	deadline := time.After(within)
	for {
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		select {
		case <-s.written:
		case <-deadline:
			t.Fatalf("no %q within %s in: %s", re, within, s.String())
		}
	}
}

func TestServe_StartsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := newSyncBuffer()
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: stderr, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--judge", "none",
			"--suite", "chinook=../../examples/chinook/suite.yaml"}, e)
	}()
	base := stderr.waitFor(t, regexp.MustCompile(`serving on (http://[0-9.:]+)/`), 30*time.Second)[1]
	resp, err := http.Get(base + "/api/suites")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Suites []struct {
			Name  string `json:"name"`
			Cases int    `json:"cases"`
		} `json:"suites"`
	}
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if len(got.Suites) != 1 || got.Suites[0].Name != "chinook" || got.Suites[0].Cases != 56 {
		t.Errorf("/api/suites = %+v, want the chinook suite", got.Suites)
	}
	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit %d after interrupt, want 0: %s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
}

func TestServe_Refuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"OpenAddressWithoutToken", []string{"--addr", "0.0.0.0:0"}, "set --token"},
		{"ShortToken", []string{"--addr", "0.0.0.0:0", "--token", "abc"}, "too short"},
		{"BadNamedPath", []string{"--suite", "nopath"}, "NAME=PATH"},
		{"MissingSuite", []string{"--addr", "127.0.0.1:0", "--suite", "x=does/not/exist.yaml"}, "--suite x=does/not/exist.yaml"},
		{"MissingDatabase", []string{"--addr", "127.0.0.1:0", "--db", "x=nowhere.sqlite"}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--judge", "none", "--data-dir", t.TempDir()}, tt.args...)
			code, _, stderr := runCLI(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}
