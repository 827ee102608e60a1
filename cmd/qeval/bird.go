package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/registry"
)

// birdEngines maps BIRD's dialect names to executor engines.
var birdEngines = map[string]string{bird.SQLite: "sqlite", bird.PostgreSQL: "postgres", bird.MySQL: "mysql"}

func cmdBird(ctx context.Context, args []string, e *env) int {
	fs := newFlags("bird", "--pred PRED.json --gold GOLD.sql --db-root DIR [flags]", e)
	pred := fs.String("pred", "", "predictions: BIRD's JSON object, question index → \"<sql>\\t----- bird -----\\t<db_id>\"")
	gold := fs.String("gold", "", "gold: dev.sql / mini_dev_*.sql lines `<sql><TAB><db_id>`, or dev.json / mini_dev JSONL")
	dbRoot := fs.String("db-root", "", "SQLite: folder holding <db_id>/<db_id>.sqlite; PostgreSQL/MySQL: the DSN of the one database")
	diff := fs.String("diff", "", "dev.json or mini_dev JSONL giving each item's difficulty (default: the gold file's own, if JSON)")
	dialect := fs.String("dialect", bird.SQLite, "SQLite, PostgreSQL or MySQL")
	itemsPath := fs.String("items", "", "write one JSON object per item to this file (- for stdout)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON instead of the tables")
	vesRuns := fs.Int("ves-runs", 0, "compute R-VES with this many timed runs per item (the official script uses 100); with SQLite also the VM-step R-VES")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline for each query")
	workers := fs.Int("workers", 0, "items run at once (default: number of CPUs)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	var missing []string
	for name, v := range map[string]string{"--pred": *pred, "--gold": *gold, "--db-root": *dbRoot} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(sortedStrings(missing), ", "),
			Hint: "qeval bird --pred predict_dev.json --gold dev.sql --db-root dev_databases/ --diff dev.json"})
	}
	engine, ok := birdEngines[*dialect]
	if !ok {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --dialect %q (known: SQLite, PostgreSQL, MySQL)", *dialect)})
	}
	if engine == "sqlite" {
		if st, err := os.Stat(*dbRoot); err != nil || !st.IsDir() {
			return fail(e, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db-root " + *dbRoot, Message: "no such folder",
				Hint: "--db-root must be a folder holding <db_id>/<db_id>.sqlite"})
		}
	}
	golds, err := readBirdFile(*gold, "--gold", bird.ReadGold)
	if err != nil {
		return fail(e, err)
	}
	preds, err := readBirdFile(*pred, "--pred", bird.ReadPredictions)
	if err != nil {
		return fail(e, err)
	}
	var difficulty []string
	if *diff != "" {
		if difficulty, err = readBirdFile(*diff, "--diff", bird.ReadDifficulties); err != nil {
			return fail(e, err)
		}
		if len(difficulty) != len(golds) {
			fmt.Fprintf(e.stderr, "warning: --diff %s has %d items, --gold %s has %d\n", *diff, len(difficulty), *gold, len(golds))
		}
	}
	opener, err := registry.Opener(engine)
	if err != nil {
		return fail(e, err)
	}
	if o := officialSQLite[engine]; o != nil {
		opener = o
	}
	ev, err := bird.New(bird.Options{Open: opener, Dialect: *dialect, DBRoot: *dbRoot,
		Limits: qeval.Limits{Timeout: *timeout}, Workers: *workers, VESRuns: *vesRuns})
	if err != nil {
		return fail(e, err)
	}
	defer ev.Close()
	start := time.Now()
	items, pairing := ev.Run(ctx, golds, preds, difficulty)
	wall := time.Since(start)
	levels := bird.Summarize(items)
	if *itemsPath != "" {
		if err := writeBirdItems(*itemsPath, e, items); err != nil {
			return fail(e, err)
		}
	}
	rep := birdReport{Dialect: *dialect, Total: len(items), Levels: levels, Pairing: pairing,
		Metrics: []string{bird.MetricEX, bird.MetricSoftF1}, Outcomes: map[qeval.Outcome]int{},
		Timings: map[string]float64{"wall": ms(wall)}}
	for _, it := range items {
		rep.Outcomes[it.Outcome]++
	}
	if levels["total"].RVES != nil {
		rep.Metrics = append(rep.Metrics, bird.MetricRVES)
	}
	if levels["total"].RVESSteps != nil {
		rep.Metrics = append(rep.Metrics, bird.MetricRVESSteps)
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else if *itemsPath != "-" {
		printBirdTables(e.stdout, *dialect, levels)
	}
	warnPairing(e.stderr, *pred, pairing, len(preds.List), len(golds))
	if n := rep.Outcomes[qeval.OutcomeGoldError]; n > 0 {
		fmt.Fprintf(e.stderr, "warning: %d gold queries failed or could not be read; those items count as wrong (see outcome gold_error in --items)\n", n)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "error: interrupted; the scores above cover the items that finished")
		return exitFailed
	}
	return exitOK
}

// birdReport is the summary --json prints.
type birdReport struct {
	Dialect  string                 `json:"dialect"`
	Metrics  []string               `json:"metrics"`
	Total    int                    `json:"total"`
	Levels   map[string]*bird.Level `json:"levels"`
	Pairing  bird.Pairing           `json:"pairing"`
	Outcomes map[qeval.Outcome]int  `json:"outcomes"`
	Timings  map[string]float64     `json:"timings_ms"`
}

func readBirdFile[T any](path, flag string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + flag + " " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	v, err := read(f, path)
	if err != nil {
		return zero, &qeval.Error{Code: qeval.CodeInvalid, Message: err.Error(), Err: err}
	}
	return v, nil
}

// printBirdTables prints one table per metric, in the official scripts' layout.
func printBirdTables(w io.Writer, dialect string, levels map[string]*bird.Level) {
	table := func(title, metric string, value func(*bird.Level) *float64) {
		fmt.Fprintf(w, "start calculate %s\n", title)
		bird.WriteTable(w, metric, levels, value)
		fmt.Fprintf(w, "Finished %s evaluation for %s\n\n", title, dialect)
	}
	table("EX", "EX", func(l *bird.Level) *float64 { return &l.EX })
	table("Soft F1", "Soft-F1", func(l *bird.Level) *float64 { return &l.SoftF1 })
	if levels["total"].RVES != nil {
		table("R-VES", "R-VES", func(l *bird.Level) *float64 { return l.RVES })
	}
	if levels["total"].RVESSteps != nil {
		table("R-VES by VM steps (qeval, deterministic)", "R-VES-steps", func(l *bird.Level) *float64 { return l.RVESSteps })
	}
	if levels["total"].EXByKey != nil {
		table("EX paired by key (qeval)", "EX-by-key", func(l *bird.Level) *float64 { return l.EXByKey })
		table("Soft F1 paired by key (qeval)", "Soft-F1-by-key", func(l *bird.Level) *float64 { return l.F1ByKey })
	}
}

func warnPairing(w io.Writer, path string, p bird.Pairing, npred, ngold int) {
	if p.Agrees() && len(p.Extra) == 0 && len(p.Duplicates) == 0 {
		return
	}
	fmt.Fprintf(w, "warning: --pred %s: its keys do not match the %d gold items one to one (%d predictions):\n", path, ngold, npred)
	if len(p.Missing) > 0 {
		fmt.Fprintf(w, "  - %d gold items have no prediction key: %s\n", len(p.Missing), firstInts(p.Missing, 10))
	}
	if len(p.Extra) > 0 {
		fmt.Fprintf(w, "  - %d keys name no gold item: %s\n", len(p.Extra), firstStrings(p.Extra, 10))
	}
	if len(p.Duplicates) > 0 {
		fmt.Fprintf(w, "  - %d keys appear more than once (the last value is used): %s\n", len(p.Duplicates), firstStrings(p.Duplicates, 10))
	}
	if p.Moved > 0 {
		fmt.Fprintf(w, "  - %d items are paired by position with a prediction keyed for another item\n", p.Moved)
	}
	fmt.Fprintln(w, "  EX and Soft-F1 pair by position, as the official scripts do; EX-by-key and Soft-F1-by-key pair by key")
}

func firstInts(xs []int, n int) string {
	s := make([]string, 0, n)
	for i, x := range xs {
		if i == n {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

func firstStrings(xs []string, n int) string {
	if len(xs) > n {
		return strings.Join(xs[:n], ", ") + ", …"
	}
	return strings.Join(xs, ", ")
}

func writeBirdItems(path string, e *env, items []bird.Item) error {
	var w io.Writer = e.stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
	}
	return nil
}
