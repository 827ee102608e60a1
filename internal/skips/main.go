// Command skips reads the JSON events of `go test -json` on its standard input and
// prints what was skipped and why: a headline, then one line per reason with how many
// tests and which packages. `go test ./...` alone shows a package's skips only with -v;
//
//	go test -json ./... | go run ./internal/skips
//
// gives them in a few lines. It also names the tests and packages that failed and then
// exits 1, so the pipeline still fails when the tests do.
package main

import (
	"fmt"
	"os"
)

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skips:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
