package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/qeval/qeval/compare"
)

func cmdModes(ctx context.Context, args []string, e *env) int {
	fs := newFlags("modes", "", e)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	width := 0
	for _, m := range compare.Modes() {
		width = max(width, len(m.ID()))
	}
	for _, m := range compare.Modes() {
		fmt.Fprintf(e.stdout, "%-*s %s\n", width, m.ID(), m.Doc)
	}
	return exitOK
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
