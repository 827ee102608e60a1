package main

import (
	"context"
	"fmt"

	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/spider"
)

// scoreMetrics are the per-item metrics beside the comparison modes, with the command
// that computes each.
var scoreMetrics = []struct{ id, doc string }{
	{spider.EMMetric, "Spider exact-set match (qeval spider --etype match|all): the official parser and clause-by-clause set comparison, values masked, foreign keys unified, with partial scores per clause."},
	{bird.MetricSoftF1, "BIRD soft-F1 (qeval bird): rows paired by position after de-duplication, cell membership per row, both empty = 1."},
	{bird.MetricRVES, "BIRD reward-based valid efficiency (qeval bird --ves-runs N): reward buckets on the gold/prediction time ratio over repeated runs, outliers removed."},
	{bird.MetricRVESSteps, "R-VES on SQLite virtual-machine steps instead of wall time (qeval bird --ves-runs N on SQLite): the same on every run and every machine."},
}

func cmdModes(ctx context.Context, args []string, e *env) int {
	fs := newFlags("modes", "", e)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	width := 0
	for _, m := range compare.Modes() {
		width = max(width, len(m.ID()))
	}
	for _, m := range scoreMetrics {
		width = max(width, len(m.id))
	}
	fmt.Fprintln(e.stdout, "Comparison modes (--mode):")
	for _, m := range compare.Modes() {
		fmt.Fprintf(e.stdout, "  %-*s %s\n", width, m.ID(), m.Doc)
	}
	fmt.Fprintln(e.stdout, "\nOther metrics:")
	for _, m := range scoreMetrics {
		fmt.Fprintf(e.stdout, "  %-*s %s\n", width, m.id, m.doc)
	}
	return exitOK
}
