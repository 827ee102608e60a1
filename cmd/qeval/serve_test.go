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

// syncBuffer is a bytes.Buffer safe to read while the command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe_StartsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--judge", "none",
			"--suite", "chinook=../../examples/chinook/suite.yaml"}, e)
	}()
	addr := regexp.MustCompile(`serving on (http://[0-9.:]+)/`)
	var base string
	for end := time.Now().Add(10 * time.Second); base == ""; {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(end) {
			t.Fatalf("no 'serving on' line: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
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
