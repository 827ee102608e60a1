package bird

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Levels are BIRD's difficulty levels, in table order, and the total.
var Levels = []string{"simple", "moderate", "challenging", "total"}

// Level is the score of one difficulty level, in percent as BIRD prints it.
type Level struct {
	Count     int      `json:"count"`
	EX        float64  `json:"ex"`
	SoftF1    float64  `json:"soft_f1"`
	RVES      *float64 `json:"r_ves,omitempty"`
	RVESSteps *float64 `json:"r_ves_steps,omitempty"`
	EXByKey   *float64 `json:"ex_by_key,omitempty"`
	F1ByKey   *float64 `json:"soft_f1_by_key,omitempty"`
}

// Summarize scores each difficulty level and the total as the official scripts do:
// EX and soft-F1 as mean × 100, R-VES as the mean of √reward × 100.
func Summarize(items []Item) map[string]*Level {
	groups := map[string][]Item{}
	for _, it := range items {
		groups[it.Difficulty] = append(groups[it.Difficulty], it)
	}
	groups["total"] = items
	out := map[string]*Level{}
	for _, l := range Levels {
		out[l] = level(groups[l])
	}
	return out
}

func level(items []Item) *Level {
	l := &Level{Count: len(items)}
	if len(items) == 0 {
		return l
	}
	n := float64(len(items))
	var ex, f1, ves, steps, exk, f1k float64
	hasVES, hasSteps, hasKey := false, false, false
	for _, it := range items {
		ex += float64(it.EX)
		f1 += it.SoftF1
		if it.RVES != nil {
			hasVES = true
			ves += math.Sqrt(*it.RVES) * 100
		}
		if it.RVESSteps != nil {
			hasSteps = true
			steps += math.Sqrt(*it.RVESSteps) * 100
		}
		if it.EXByKey != nil {
			hasKey = true
			exk += float64(*it.EXByKey)
			f1k += *it.SoftF1ByKey
		}
	}
	l.EX = ex / n * 100
	l.SoftF1 = f1 / n * 100
	if hasVES {
		v := ves / n
		l.RVES = &v
	}
	if hasSteps {
		v := steps / n
		l.RVESSteps = &v
	}
	if hasKey {
		a, b := exk/n*100, f1k/n*100
		l.EXByKey, l.F1ByKey = &a, &b
	}
	return l
}

// WriteTable writes one metric's table in the official scripts' layout: the levels,
// their counts, and the scores with two decimals ("-" for an empty level).
func WriteTable(w io.Writer, metric string, levels map[string]*Level, value func(*Level) *float64) {
	row := func(cells ...string) {
		fmt.Fprintf(w, "%-20s %-20s %-20s %-20s %-20s\n", cells[0], cells[1], cells[2], cells[3], cells[4])
	}
	row("", Levels[0], Levels[1], Levels[2], Levels[3])
	counts := []string{"count"}
	scores := []string{metric}
	for _, l := range Levels {
		lv := levels[l]
		counts = append(counts, fmt.Sprint(lv.Count))
		if v := value(lv); v != nil && lv.Count > 0 {
			scores = append(scores, fmt.Sprintf("%.2f", *v))
		} else {
			scores = append(scores, "-")
		}
	}
	row(counts...)
	fmt.Fprintf(w, "======================================    %s    =====================================\n", metric)
	row(scores...)
	fmt.Fprintln(w, strings.Repeat("=", 91))
}
