// Command qeval measures how good a text-to-query system is. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/residency"
)

func main() {
	go residency.Release() // off the command's path: see internal/residency
	tuneGC()
	if err := capAddressSpace(os.Getenv); err != nil {
		fmt.Fprintf(os.Stderr, "error: %s\n", qeval.ErrorMessage(err))
		os.Exit(exitUsage)
	}
	ctx, stop := stopOnSignals(os.Stderr)
	code := run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// stopOnSignals returns a context that the first SIGINT or SIGTERM cancels: the command
// stops starting work, finishes what it can and writes its reports. A second signal
// exits at once; what finished is already on disk (results are written case by case).
func stopOnSignals(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		fmt.Fprintln(stderr, "qeval: stopping: finishing the work in flight and writing what is done (signal again to exit at once)")
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "qeval: exiting at once; the cases that finished are in the results file")
		qeval.CloseSandboxes(5 * time.Second) // a stateful case's copies; qeval db clean finds any left
		os.Exit(exitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// tuneGC trades memory for speed in this short-lived batch process: the live heap is
// small (3 MB in a Spider run), so collecting at 2.5x it (instead of 2x) saves CPU time,
// and measured as fast as 3x with 2 MB less peak memory (a Spider run's peak is 40 MB);
// a soft limit keeps a huge result from letting the heap run away. GOGC and GOMEMLIMIT
// still win when set.
func tuneGC() {
	tuneGCPercent(os.Getenv, 150)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(3 << 30)
	}
}

// largeSuite is the suite size past which a run's live heap (the suite, an index entry
// and a few summary numbers per case) is no longer small: tuneForSuite then collects at
// 2x it, which measured as fast on 200,000 cases and 0.2 GB lighter.
const largeSuite = 10_000

// Memory a run keeps besides its results: the program, the suite, the caches
// (runBaseBytes) and each case's index entry and summary numbers (perCaseBytes, with
// room to spare).
const (
	runBaseBytes = 64 << 20
	perCaseBytes = 4 << 10
)

// tuneForSuite fits the collector to a run: a large suite collects at 2x the live heap,
// and the soft memory limit becomes what the run may hold (its results budget, runBytes,
// the program and the suite) instead of letting garbage reach 3x a peak of hostile
// results: a corpus of 222 hostile queries peaked at 634 MB with the batch setting,
// under 512 MB with this one. GOGC and GOMEMLIMIT still win when set.
func tuneForSuite(getenv func(string) string, cases int, runBytes int64) {
	if cases > largeSuite {
		tuneGCPercent(getenv, 100)
	}
	if runBytes > 0 {
		setMemoryLimit(getenv, runBytes+runBaseBytes+int64(cases)*perCaseBytes)
	}
}

// serverBaseBytes is what qeval serve keeps besides its runs' results: the program,
// the runs' stored views, the gold cache, requests in flight.
const serverBaseBytes = 192 << 20

// tuneForServer sets the soft memory limit of qeval serve to its runs' results budget
// and its own: hostile runs side by side no longer let garbage grow to the batch limit.
func tuneForServer(getenv func(string) string, runBytes int64) {
	setMemoryLimit(getenv, runBytes+serverBaseBytes)
}

// setMemoryLimit sets the soft memory limit unless GOMEMLIMIT is set.
func setMemoryLimit(getenv func(string) string, n int64) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(n)
	}
}

// tuneGCPercent sets the GC percent unless GOGC is set.
func tuneGCPercent(getenv func(string) string, percent int) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}
