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
	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/execmatch"
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
	table := fs.String("table", "", "Spider's tables.json: the foreign keys exact-set match unifies (needed by --etype match and all)")
	etype := fs.String("etype", "exec", "evaluation type: exec (execution match), match (exact-set match) or all (both)")
	mismatches := fs.Bool("print-mismatches", false, "with --etype match or all, print each exact-match miss before the table, as the official evaluator does")
	mode := fs.String("mode", "spider-ts", "comparison mode (see 'qeval modes')")
	keepDistinct := fs.Bool("keep-distinct", false, "keep DISTINCT in both queries (by default it is removed, as the official evaluator does)")
	plugValue := fs.Bool("plug-value", false, "also try the prediction with the gold query's literal values plugged in")
	maxCands := fs.Int("max-candidates", execmatch.DefaultMaxCandidates, "cap on queries tried per item with --plug-value")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline for each query")
	maxBytes := fs.Int64("max-result-bytes", qeval.DefaultMaxBytes, "a query whose result exceeds this many bytes is too_large")
	itemsPath := fs.String("items", "", "write one JSON object per item to this file (- for stdout)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON instead of the table")
	workers := fs.Int("workers", 0, "items judged at once (default: number of CPUs; twice that with --pred-engine)")
	predEngine := fs.String("pred-engine", "", "run the predictions on another engine (duckdb, postgres, mysql, clickhouse): the databases are mirrored there; the gold stays on SQLite")
	predDSN := fs.String("pred-dsn", "", "with --pred-engine: duckdb:DIR for the copies (default a temporary folder), or the server to mirror into")
	keep := fs.Bool("keep", false, "with --pred-engine: keep the mirrored databases afterwards")
	unsafePriv := fs.Bool("unsafe-allow-privileged", false, "with --pred-engine: read the copies even as a user that may read every database (ClickHouse before 20.4, which has no SQL users: the mirror's own user)")
	cacheFlag := fs.String("cache", "", "keep gold results in a cache: a `DIR` (the local cache file) or redis://HOST:PORT/DB, keyed by each database's content; a second run on the same databases (another model's predictions, another shard) runs only the predictions")
	shardFlag := fs.String("shard", "", "judge only part `I/N` of the items (round-robin; interactions stay whole); needs --items, beside which a manifest ITEMS.shard.json is written; combine the parts with qeval merge")
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
	doExec, doMatch := *etype == "exec" || *etype == "all", *etype == "match" || *etype == "all"
	if !doExec && !doMatch {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--etype %s is not an evaluation type", *etype),
			Hint: "use --etype exec, match or all"})
	}
	if doMatch && *table == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--etype " + *etype + " needs --table",
			Hint: "exact-set match unifies foreign-key columns from Spider's tables.json: add --table tables.json"})
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
	sh, err := parseShard(*shardFlag)
	if err != nil {
		return fail(e, err)
	}
	if sh != nil && (*itemsPath == "" || *itemsPath == "-") {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--shard needs --items FILE",
			Hint: "each shard writes its items (and ITEMS.shard.json) for qeval merge to combine: --shard 2/4 --items shard2.jsonl"})
	}
	set, err := suite.LoadSpider(*gold, *pred)
	if err != nil {
		return fail(e, err)
	}
	full := set
	if sh != nil {
		set = shardSpider(set, sh)
	}
	items := set.Items
	for i := range items {
		items[i].Database = filepath.Join(*db, items[i].DBID)
	}
	start := time.Now()
	hardness := make([]*string, len(items))
	var em *exactScores
	if doMatch {
		var err error
		if em, err = scoreExact(ctx, *db, set, func() (exactmatch.ForeignKeys, error) { return exactmatch.LoadForeignKeys(*table, set.DBIDs()...) }, hardness, *workers); err != nil {
			return fail(e, err)
		}
	}
	var verdicts []qeval.Verdict
	var sum execmatch.Summary
	var cross *crossEngine
	if doExec {
		verdicts, sum, cross, err = runSpiderExec(ctx, e, set, hardness, doMatch, spiderExecFlags{
			mode: *mode, keepDistinct: *keepDistinct, plugValue: *plugValue, maxCands: *maxCands, timeout: *timeout, maxBytes: *maxBytes,
			workers: *workers, predEngine: *predEngine, predDSN: *predDSN, keep: *keep, unsafePriv: *unsafePriv, db: *db, cache: *cacheFlag, explain: *itemsPath != ""})
		if err != nil {
			return fail(e, err)
		}
		if cross != nil {
			defer cross.cleanup()
		}
	}
	wall := time.Since(start)
	rep := buildSpiderReport(set, verdicts, hardness, sum, wall, em, *etype)
	if *itemsPath != "" {
		if err := writeSpiderItems(*itemsPath, e, set, verdicts, hardness, cross, em); err != nil {
			return fail(e, err)
		}
		if sh != nil {
			m := shardManifest{Kind: "spider", Shard: sh.String(), Items: len(full.Items), Interactions: len(full.Interactions),
				MultiTurn: full.MultiTurn, Etype: *etype, Mode: rep.Mode, Gold: *gold, Pred: *pred, Version: version, WallMS: ms(wall)}
			if err := writeManifest(*itemsPath, m); err != nil {
				return fail(e, err)
			}
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else if *itemsPath != "-" {
		if em != nil && *mismatches {
			printMismatches(e.stdout, set, em, hardness)
		}
		printSpiderTable(e.stdout, rep)
	}
	if n := sum.Outcomes[qeval.OutcomeGoldError]; n > 0 {
		fmt.Fprintf(e.stderr, "warning: %d gold queries failed; those items count as wrong (see outcome gold_error in --items)\n", n)
	}
	if em != nil {
		if n := countNonEmpty(em.goldErrs); n > 0 {
			fmt.Fprintf(e.stderr, "warning: the Spider parser cannot read %d gold queries; those items count as exact-match misses (see exact_error in --items)\n", n)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "error: interrupted; the scores above cover the items that finished")
		return exitFailed
	}
	return exitOK
}

// spiderReport is the summary of a run, as --json prints it.
type spiderReport struct {
	Mode     string   `json:"mode,omitempty"`
	Etype    string   `json:"etype"`
	Metrics  []string `json:"metrics"`
	Total    int      `json:"total"`
	Correct  *int     `json:"correct,omitempty"`
	Accuracy *float64 `json:"accuracy,omitempty"`
	// On a test suite: the items right on the original database alone (the official
	// single-database verdict) and those the suite flipped.
	OriginalCorrect *int                   `json:"correct_original_database,omitempty"`
	Flipped         *int                   `json:"flipped_by_suite,omitempty"`
	ExactCorrect    *int                   `json:"exact_correct,omitempty"`
	ExactAccuracy   *float64               `json:"exact_accuracy,omitempty"`
	Levels          map[string]*levelScore `json:"levels"`
	Turns           map[string]*levelScore `json:"turns,omitempty"`
	Outcomes        map[qeval.Outcome]int  `json:"outcomes,omitempty"`
	Interactions    int                    `json:"interactions"`
	Timings         map[string]float64     `json:"timings_ms"`
	levelOrder      []string
}

// levelScore is one column of the official table: a hardness level, "all", a turn or
// "joint_all".
type levelScore struct {
	Count int      `json:"count"`
	Exec  *float64 `json:"exec,omitempty"`
	// Original is execution accuracy on the original database alone, on a test suite.
	Original *float64                    `json:"exec_original_database,omitempty"`
	Exact    *float64                    `json:"exact,omitempty"`
	Partial  map[string]exactmatch.Score `json:"partial,omitempty"`
	right    int
	orig     int
	tally    exactmatch.Tally
}

// spiderEMMetric is the versioned name of the exact-set-match metric.
const spiderEMMetric = "spider-em@1"

func buildSpiderReport(set *suite.Spider, vs []qeval.Verdict, hardness []*string, sum execmatch.Summary, wall time.Duration, em *exactScores, etype string) *spiderReport {
	rep := &spiderReport{Etype: etype, Total: len(set.Items), Levels: map[string]*levelScore{},
		Interactions: len(set.Interactions), Timings: map[string]float64{"wall": ms(wall)}}
	if vs != nil {
		rep.Mode, rep.Correct, rep.Accuracy, rep.Outcomes = sum.Mode, &sum.Correct, &sum.Accuracy, sum.Outcomes
		rep.Metrics = append(rep.Metrics, sum.Mode)
		rep.Timings["gold"], rep.Timings["pred"] = ms(sum.GoldTime), ms(sum.PredTime)
	}
	if em != nil {
		rep.Metrics = append(rep.Metrics, spiderEMMetric)
	}
	rep.levelOrder = append([]string(nil), spiderLevels...)
	multi := set.MultiTurn
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
	execOK := func(i int) bool { return vs != nil && vs[i].Match }
	suiteRun := false
	for i := range vs {
		suiteRun = suiteRun || vs[i].OriginalMatch != nil
	}
	origOK := func(i int) bool { return vs[i].OriginalMatch != nil && *vs[i].OriginalMatch }
	if suiteRun {
		n, flipped := 0, 0
		for i := range vs {
			if origOK(i) {
				n++
				if !vs[i].Match {
					flipped++
				}
			}
		}
		rep.OriginalCorrect, rep.Flipped = &n, &flipped
	}
	exactOK := func(i int) bool { return em != nil && em.results[i] != nil && em.results[i].Exact }
	for i := range set.Items {
		add := func(l *levelScore, partial bool) {
			l.Count++
			if execOK(i) {
				l.right++
			}
			if suiteRun && origOK(i) {
				l.orig++
			}
			if em == nil {
				return
			}
			if partial {
				l.tally.Add(em.results[i])
			} else {
				l.tally.AddExact(exactOK(i))
			}
		}
		add(rep.Levels["all"], true)
		if hardness[i] != nil {
			add(rep.Levels[*hardness[i]], true)
		}
		if multi {
			add(rep.Turns[turnName(set.Turn[i])], false)
		}
	}
	if multi {
		joint := rep.Levels["joint_all"]
		for _, inter := range set.Interactions {
			joint.Count++
			execAll, exactAll := true, true
			for _, i := range inter {
				execAll = execAll && execOK(i)
				exactAll = exactAll && exactOK(i)
			}
			if execAll {
				joint.right++
			}
			if em != nil {
				joint.tally.AddExact(exactAll)
			}
		}
	}
	for _, m := range []map[string]*levelScore{rep.Levels, rep.Turns} {
		for name, l := range m {
			if vs != nil {
				v := 0.0
				if l.Count > 0 {
					v = float64(l.right) / float64(l.Count)
				}
				l.Exec = &v
				if suiteRun && l.Count > 0 && !strings.HasPrefix(name, "turn") && name != "joint_all" {
					o := float64(l.orig) / float64(l.Count)
					l.Original = &o
				}
			}
			if em != nil {
				v := l.tally.Exact()
				l.Exact = &v
				if m != nil && !strings.HasPrefix(name, "turn") {
					l.Partial = l.tally.Partial()
				}
			}
		}
	}
	if em != nil {
		n := 0
		for i := range set.Items {
			if exactOK(i) {
				n++
			}
		}
		acc := 0.0
		if len(set.Items) > 0 {
			acc = float64(n) / float64(len(set.Items))
		}
		rep.ExactCorrect, rep.ExactAccuracy = &n, &acc
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
	count := func(l *levelScore) string { return fmt.Sprintf("%-20d", l.Count) }
	row("", pad(rep.levelOrder))
	row("count", cells(rep.levelOrder, rep.Levels, count))
	if rep.Correct != nil {
		fmt.Fprintln(w, "=====================   EXECUTION ACCURACY     =====================")
		row("execution", cells(rep.levelOrder, rep.Levels, func(l *levelScore) string { return fmt.Sprintf("%-20.3f", *l.Exec) }))
		if rep.OriginalCorrect != nil {
			row("original db only", cells(rep.levelOrder, rep.Levels, func(l *levelScore) string {
				if l.Original == nil {
					return fmt.Sprintf("%-20s", "-")
				}
				return fmt.Sprintf("%-20.3f", *l.Original)
			}))
			fmt.Fprintf(w, "test suite: %d items match on the original database alone, %d on every database; %d flipped (see exec_original_database and difference in --items)\n",
				*rep.OriginalCorrect, *rep.Correct, *rep.Flipped)
		}
	}
	if rep.ExactCorrect != nil {
		printExactTable(w, rep, row)
	}
	if rep.Turns != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		row("", pad(spiderTurns))
		row("count", cells(spiderTurns, rep.Turns, count))
		if rep.Correct != nil {
			fmt.Fprintln(w, "=====================   TURN EXECUTION ACCURACY     =====================")
			row("execution", cells(spiderTurns, rep.Turns, func(l *levelScore) string { return fmt.Sprintf("%-20.3f", *l.Exec) }))
		}
		if rep.ExactCorrect != nil {
			fmt.Fprintln(w, "\n====================== TURN EXACT MATCHING ACCURACY =====================")
			row("exact match", cells(spiderTurns, rep.Turns, func(l *levelScore) string { return fmt.Sprintf("%-20.3f", *l.Exact) }))
		}
	}
}

type spiderItem struct {
	Index       int           `json:"index"`
	Interaction *int          `json:"interaction,omitempty"`
	Turn        *int          `json:"turn,omitempty"`
	DBID        string        `json:"db_id"`
	Hardness    *string       `json:"hardness"`
	Exec        *bool         `json:"exec,omitempty"`
	Outcome     qeval.Outcome `json:"outcome,omitempty"`
	Error       *string       `json:"error"`
	Mode        string        `json:"mode,omitempty"`
	PredMS      *float64      `json:"pred_ms,omitempty"`
	GoldMS      *float64      `json:"gold_ms,omitempty"`
	Candidates  int           `json:"candidates,omitempty"`
	CapHit      bool          `json:"candidate_cap_hit,omitempty"`
	PredEngine  string        `json:"pred_engine,omitempty"`
	Explanation string        `json:"explanation,omitempty"`
	// On a test suite: the verdict on the original database alone, and the database
	// that told the results apart.
	ExecOriginal *bool  `json:"exec_original_database,omitempty"`
	Database     string `json:"database,omitempty"`
	// Difference says how the results differ, on a mismatch.
	Difference *qeval.Explanation          `json:"difference,omitempty"`
	Exact      *bool                       `json:"exact,omitempty"`
	Partial    map[string]exactmatch.Score `json:"partial,omitempty"`
	ParseError string                      `json:"pred_parse_error,omitempty"`
	ExactError string                      `json:"exact_error,omitempty"`
}

func writeSpiderItems(path string, e *env, set *suite.Spider, vs []qeval.Verdict, hardness []*string, cross *crossEngine, em *exactScores) error {
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
	multi := set.MultiTurn
	for i := range set.Items {
		it := spiderItem{Index: set.Items[i].Index, DBID: set.Items[i].DBID, Hardness: hardness[i]}
		if vs != nil {
			v := vs[i]
			match, pm, gm := v.Match, ms(v.PredTime), ms(v.GoldTime)
			it.Exec, it.Outcome, it.Mode, it.PredMS, it.GoldMS = &match, v.Outcome, v.Mode, &pm, &gm
			if v.Error != "" {
				msg := v.Error
				it.Error = &msg
			}
			it.ExecOriginal, it.Difference = v.OriginalMatch, v.Explanation
			if v.Databases > 1 && !v.Match {
				it.Database = v.Database
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
		}
		if multi {
			inter, turn := set.Interaction[i], set.Turn[i]
			it.Interaction, it.Turn = &inter, &turn
		}
		if em != nil {
			exact := false
			if r := em.results[i]; r != nil {
				exact, it.Partial, it.ParseError = r.Exact, r.Partial, r.ParseError
			} else {
				it.ExactError = em.goldErrs[i]
			}
			it.Exact = &exact
		}
		if err := enc.Encode(it); err != nil {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
