package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlparse"
	"github.com/qeval/qeval/suite"
)

// hardnessOf computes the Spider difficulty of a gold query with the official rules.
var hardnessOf = sqlparse.Hardness

var spiderLevels = []string{"easy", "medium", "hard", "extra", "all"}
var spiderTurns = []string{"turn 1", "turn 2", "turn 3", "turn 4", "turn > 4"}

func cmdSpider(ctx context.Context, args []string, e *env) int {
	fs := newFlags("spider", "--gold GOLD --pred PRED --db DBDIR [flags]", e)
	gold := fs.String("gold", "", "gold file: one `SQL<TAB>db_id` per line; blank lines separate interactions")
	pred := fs.String("pred", "", "predictions file: one query per line, aligned with --gold")
	db := fs.String("db", "", "database folder: DBDIR/<db_id>/ holds <db_id>.sqlite (every .sqlite file there is a test-suite database)")
	table := fs.String("table", "", "tables.json (accepted for compatibility; execution match does not need it)")
	etype := fs.String("etype", "exec", "evaluation type: exec (execution match)")
	mode := fs.String("mode", "spider-ts", "comparison mode (see 'qeval modes')")
	keepDistinct := fs.Bool("keep-distinct", false, "keep DISTINCT in both queries (by default it is removed, as the official evaluator does)")
	plugValue := fs.Bool("plug-value", false, "also try the prediction with the gold query's literal values plugged in")
	maxCands := fs.Int("max-candidates", execmatch.DefaultMaxCandidates, "cap on queries tried per item with --plug-value")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline for each query")
	itemsPath := fs.String("items", "", "write one JSON object per item to this file (- for stdout)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON instead of the table")
	workers := fs.Int("workers", 0, "items judged at once (default: number of CPUs)")
	predEngine := fs.String("pred-engine", "", "run the predictions on another engine (duckdb, postgres, mysql, clickhouse): the databases are mirrored there; the gold stays on SQLite")
	predDSN := fs.String("pred-dsn", "", "with --pred-engine: duckdb:DIR for the copies (default a temporary folder), or the server to mirror into")
	keep := fs.Bool("keep", false, "with --pred-engine: keep the mirrored databases afterwards")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	var missing []string
	for name, v := range map[string]string{"--gold": *gold, "--pred": *pred, "--db": *db} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(sortedStrings(missing), ", "),
			Hint: "qeval spider --gold dev_gold.sql --pred predictions.txt --db database/"})
	}
	if *etype != "exec" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--etype %s is not supported", *etype),
			Hint: "qeval spider scores execution match: use --etype exec"})
	}
	if *table != "" {
		if _, err := os.Stat(*table); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --table " + *table, Message: "no such file"})
		}
	}
	if st, err := os.Stat(*db); err != nil || !st.IsDir() {
		return fail(e, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + *db, Message: "no such folder",
			Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"})
	}
	set, err := suite.LoadSpider(*gold, *pred)
	if err != nil {
		return fail(e, err)
	}
	opts := execmatch.Options{Mode: *mode, KeepDistinct: *keepDistinct, PlugValue: *plugValue,
		MaxCandidates: *maxCands, Limits: qeval.Limits{Timeout: *timeout}, Catalog: &registry.Catalog{}, DiscardResults: true}
	var cross *crossEngine
	if *predEngine != "" {
		if cross, err = mirrorForPredictions(ctx, e, *predEngine, *predDSN, *keep, *db, set.DBIDs()); err != nil {
			return fail(e, err)
		}
		defer cross.cleanup()
		opts.PredCatalog = cross.catalog
	}
	ev, err := execmatch.New(opts)
	if err != nil {
		return fail(e, err)
	}
	defer ev.Close()
	items := set.Items
	for i := range items {
		items[i].Database = filepath.Join(*db, items[i].DBID)
	}
	start := time.Now()
	hardness := make([]*string, len(items))
	verdicts, sum := ev.Run(ctx, items, *workers, func(i int, _ qeval.Verdict) {
		// the workers also grade each gold query's difficulty
		if h, err := hardnessOf(items[i].Gold); err == nil {
			hardness[i] = &h
		}
	})
	wall := time.Since(start)
	rep := buildSpiderReport(set, verdicts, hardness, sum, wall)
	if *itemsPath != "" {
		if err := writeSpiderItems(*itemsPath, e, set, verdicts, hardness, cross); err != nil {
			return fail(e, err)
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else if *itemsPath != "-" {
		printSpiderTable(e.stdout, rep)
	}
	if n := sum.Outcomes[qeval.OutcomeGoldError]; n > 0 {
		fmt.Fprintf(e.stderr, "warning: %d gold queries failed; those items count as wrong (see outcome gold_error in --items)\n", n)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "error: interrupted; the scores above cover the items that finished")
		return exitFailed
	}
	return exitOK
}

// spiderReport is the summary of a run, as --json prints it.
type spiderReport struct {
	Mode         string                 `json:"mode"`
	Etype        string                 `json:"etype"`
	Total        int                    `json:"total"`
	Correct      int                    `json:"correct"`
	Accuracy     float64                `json:"accuracy"`
	Levels       map[string]*levelScore `json:"levels"`
	Turns        map[string]*levelScore `json:"turns,omitempty"`
	Outcomes     map[qeval.Outcome]int  `json:"outcomes"`
	Interactions int                    `json:"interactions"`
	Timings      map[string]float64     `json:"timings_ms"`
	levelOrder   []string
}

type levelScore struct {
	Count int     `json:"count"`
	Exec  float64 `json:"exec"`
	right int
}

func buildSpiderReport(set *suite.Spider, vs []qeval.Verdict, hardness []*string, sum execmatch.Summary, wall time.Duration) *spiderReport {
	rep := &spiderReport{Mode: sum.Mode, Etype: "exec", Total: sum.Total, Correct: sum.Correct, Accuracy: sum.Accuracy,
		Levels: map[string]*levelScore{}, Outcomes: sum.Outcomes, Interactions: len(set.Interactions),
		Timings: map[string]float64{"wall": ms(wall), "gold": ms(sum.GoldTime), "pred": ms(sum.PredTime)}}
	rep.levelOrder = append([]string(nil), spiderLevels...)
	multi := len(set.Interactions) > 1
	if multi {
		rep.levelOrder = append(rep.levelOrder, "joint_all")
		rep.Turns = map[string]*levelScore{}
		for _, t := range spiderTurns {
			rep.Turns[t] = &levelScore{}
		}
	}
	for _, l := range rep.levelOrder {
		rep.Levels[l] = &levelScore{}
	}
	for i, v := range vs {
		add := func(l *levelScore) {
			l.Count++
			if v.Match {
				l.right++
			}
		}
		add(rep.Levels["all"])
		if hardness[i] != nil {
			add(rep.Levels[*hardness[i]])
		}
		if multi {
			add(rep.Turns[turnName(set.Turn[i])])
		}
	}
	if multi {
		joint := rep.Levels["joint_all"]
		for _, inter := range set.Interactions {
			joint.Count++
			ok := true
			for _, i := range inter {
				ok = ok && vs[i].Match
			}
			if ok {
				joint.right++
			}
		}
	}
	for _, m := range []map[string]*levelScore{rep.Levels, rep.Turns} {
		for _, l := range m {
			if l.Count > 0 {
				l.Exec = float64(l.right) / float64(l.Count)
			}
		}
	}
	return rep
}

func turnName(turn int) string {
	if turn > 3 {
		return "turn > 4"
	}
	return fmt.Sprintf("turn %d", turn+1)
}

// printSpiderTable prints the official evaluator's table layout.
func printSpiderTable(w io.Writer, rep *spiderReport) {
	row := func(name string, cells []string) {
		fmt.Fprintf(w, "%-20s %s\n", name, strings.Join(cells, " "))
	}
	cells := func(order []string, m map[string]*levelScore, f func(*levelScore) string) []string {
		out := make([]string, len(order))
		for i, l := range order {
			out[i] = f(m[l])
		}
		return out
	}
	pad := func(order []string) []string {
		out := make([]string, len(order))
		for i, s := range order {
			out[i] = fmt.Sprintf("%-20s", s)
		}
		return out
	}
	row("", pad(rep.levelOrder))
	row("count", cells(rep.levelOrder, rep.Levels, func(l *levelScore) string { return fmt.Sprintf("%-20d", l.Count) }))
	fmt.Fprintln(w, "=====================   EXECUTION ACCURACY     =====================")
	row("execution", cells(rep.levelOrder, rep.Levels, func(l *levelScore) string { return fmt.Sprintf("%-20.3f", l.Exec) }))
	if rep.Turns != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		row("", pad(spiderTurns))
		row("count", cells(spiderTurns, rep.Turns, func(l *levelScore) string { return fmt.Sprintf("%-20d", l.Count) }))
		fmt.Fprintln(w, "=====================   TURN EXECUTION ACCURACY     =====================")
		row("execution", cells(spiderTurns, rep.Turns, func(l *levelScore) string { return fmt.Sprintf("%-20.3f", l.Exec) }))
	}
}

type spiderItem struct {
	Index       int           `json:"index"`
	Interaction *int          `json:"interaction,omitempty"`
	Turn        *int          `json:"turn,omitempty"`
	DBID        string        `json:"db_id"`
	Hardness    *string       `json:"hardness"`
	Exec        bool          `json:"exec"`
	Outcome     qeval.Outcome `json:"outcome"`
	Error       *string       `json:"error"`
	Mode        string        `json:"mode"`
	PredMS      float64       `json:"pred_ms"`
	GoldMS      float64       `json:"gold_ms"`
	Candidates  int           `json:"candidates,omitempty"`
	CapHit      bool          `json:"candidate_cap_hit,omitempty"`
	PredEngine  string        `json:"pred_engine,omitempty"`
	Explanation string        `json:"explanation,omitempty"`
}

func writeSpiderItems(path string, e *env, set *suite.Spider, vs []qeval.Verdict, hardness []*string, cross *crossEngine) error {
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
	multi := len(set.Interactions) > 1
	for i, v := range vs {
		it := spiderItem{Index: i, DBID: set.Items[i].DBID, Hardness: hardness[i], Exec: v.Match, Outcome: v.Outcome,
			Mode: v.Mode, PredMS: ms(v.PredTime), GoldMS: ms(v.GoldTime)}
		if v.Error != "" {
			msg := v.Error
			it.Error = &msg
		}
		if multi {
			inter, turn := set.Interaction[i], set.Turn[i]
			it.Interaction, it.Turn = &inter, &turn
		}
		if v.Candidates > 1 || v.CandidateCapHit {
			it.Candidates, it.CapHit = v.Candidates, v.CandidateCapHit
		}
		if cross != nil {
			it.PredEngine = cross.engine
			if v.Outcome == qeval.OutcomeMismatch || v.Outcome == qeval.OutcomePredError {
				it.Explanation = explainCrossEngine(set.Items[i].Gold, set.Items[i].Pred, v)
			}
		}
		if err := enc.Encode(it); err != nil {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
