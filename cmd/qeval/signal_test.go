//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A first SIGTERM stops the run and keeps what finished; a second one exits at once.
func TestSignals_SecondExitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	long := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	suite := writeFile(t, dir, "suite.yaml", `name: long
database: `+abs(t, exampleDir+"/database/concert_singer/concert_singer.sqlite")+`
cases:
  - {id: quick, question: q, expected_query: SELECT 1, generated_query: SELECT 1}
  - {id: long, question: q, expected_query: SELECT 1, generated_query: "`+long+`"}
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "--", "run", suite, "-o", out, "--timeout", "60s", "--concurrency", "1")
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	stderr := newSyncBuffer()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait until the quick case is on disk, then signal twice
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if strings.Contains(string(b), `"quick"`) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the quick case never finished: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	// the second signal once the first is handled: two at once may arrive as one
	stderr.waitFor(t, regexp.MustCompile(`qeval: stopping`), 20*time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exited %v after the signals", d)
	}
	code := cmd.ProcessState.ExitCode()
	msg := stderr.String()
	if !strings.Contains(msg, "stopping") {
		t.Errorf("no notice of the first signal: %v %s", err, msg)
	}
	if code == exitInterrupted && !strings.Contains(msg, "exiting at once") {
		t.Errorf("exit %d without the notice: %s", code, msg)
	}
	if code != exitInterrupted && code != exitFailed {
		t.Errorf("exit code %d, want %d (or %d when the first signal finished the run first): %s", code, exitInterrupted, exitFailed, msg)
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if !strings.Contains(string(b), `"quick"`) {
		t.Errorf("the finished case is lost: %s", b)
	}
}
