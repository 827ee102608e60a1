//go:build unix

package runner_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/runner"
)

// A target command that writes without end is ended once its reply passes the cap,
// and the case is too_large: its output was read and dropped until its timeout (a
// minute per case, a CPU busy writing). An HTTP target's reply past the cap is too_large
// too, not cut into something that is not JSON.
func TestTarget_ReplyPastTheCap(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "flood.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nexec yes '{\"query\": \"SELECT 1\"}'\n"), 0o755)
	s := &qeval.Suite{Name: "t"}
	c := qeval.Case{ID: "a", Question: "q"}
	cmd := &runner.Command{Argv: []string{script}, Timeout: 10 * time.Minute}
	_, err := cmd.Generate(context.Background(), s, c)
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(err.Error(), "was ended") {
		t.Fatalf("a command writing without end: %v (code %s), want too_large", err, qeval.ErrorCode(err))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command (pid %d) still runs: %v", pid, err)
	}

	big := strings.Repeat("x", runner.MaxTargetReplyBytes)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"query": "SELECT '` + big + `'"}`))
	}))
	defer srv.Close()
	_, err = (&runner.HTTP{URL: srv.URL}).Generate(context.Background(), s, c)
	if qeval.ErrorCode(err) != qeval.CodeTooLarge {
		t.Errorf("an HTTP reply past the cap: %v (code %s), want too_large", err, qeval.ErrorCode(err))
	}
}
