// Command qeval measures how good a text-to-query system is. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/proclimit"
	"github.com/qeval/qeval/internal/residency"
)

func main() {
	go residency.Release() // off the command's path: see internal/residency
	proclimit.TuneGC(os.Getenv)
	if err := proclimit.CapFromSetting(os.Getenv("QEVAL_MAX_MEMORY")); err != nil {
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
