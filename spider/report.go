package spider

import (
	"fmt"
	"io"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/execmatch"
)

var (
	levels = []string{"easy", "medium", "hard", "extra", "all"}
	turns  = []string{"turn 1", "turn 2", "turn 3", "turn 4", "turn > 4"}
)

// Report is the summary of a run, as `qeval spider --json` prints it.
type Report struct {
	Mode     string   `json:"mode,omitempty"`
	Etype    string   `json:"etype"`
	Metrics  []string `json:"metrics"`
	Total    int      `json:"total"`
	Correct  *int     `json:"correct,omitempty"`
	Accuracy *float64 `json:"accuracy,omitempty"`
	// On a test suite: the items right on the original database alone (the official
	// single-database verdict) and those the suite flipped.
	OriginalCorrect *int                  `json:"correct_original_database,omitempty"`
	Flipped         *int                  `json:"flipped_by_suite,omitempty"`
	ExactCorrect    *int                  `json:"exact_correct,omitempty"`
	ExactAccuracy   *float64              `json:"exact_accuracy,omitempty"`
	Levels          map[string]*Level     `json:"levels"`
	Turns           map[string]*Level     `json:"turns,omitempty"`
	Outcomes        map[qeval.Outcome]int `json:"outcomes,omitempty"`
	Interactions    int                   `json:"interactions"`
	Timings         map[string]float64    `json:"timings_ms"`
	// Verification is set when the matches were verified (--verify, qeval verify).
	Verification *VerifySummary `json:"verification,omitempty"`

	levelOrder []string
	mismatches []mismatch // printed before the table with --print-mismatches
	warnings   []string
}

type mismatch struct{ hardness, pred, gold string }

// Level is one column of the official table: a hardness level, "all", a turn or
// "joint_all".
type Level struct {
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

// EMMetric is the versioned name of the exact-set-match metric.
const EMMetric = "spider-em@1"

// scored is what the official summary reads of a run: each item's verdicts, rebuilt
// from its line.
type scored struct {
	meta     Meta
	items    []Item
	verdicts []qeval.Verdict // nil without execution
	exact    []*exactmatch.Result
	hardness []*string
	// interactions are the items of each interaction, for joint accuracy
	interactions [][]int
}

func (s *scored) execOK(i int) bool  { return s.verdicts != nil && s.verdicts[i].Match }
func (s *scored) exactOK(i int) bool { return s.exact != nil && s.exact[i] != nil && s.exact[i].Exact }
func (s *scored) origOK(i int) bool {
	return s.verdicts[i].OriginalMatch != nil && *s.verdicts[i].OriginalMatch
}

func buildReport(s *scored) *Report {
	rep := &Report{Etype: s.meta.Etype, Total: len(s.items), Levels: map[string]*Level{},
		Interactions: len(s.interactions), Timings: map[string]float64{}}
	rep.header(s)
	rep.levelOrder = append([]string(nil), levels...)
	if s.meta.MultiTurn {
		rep.levelOrder = append(rep.levelOrder, "joint_all")
		rep.Turns = map[string]*Level{}
		for _, t := range turns {
			rep.Turns[t] = &Level{}
		}
	}
	for _, l := range rep.levelOrder {
		rep.Levels[l] = &Level{}
	}
	suiteRun := rep.testSuite(s)
	rep.tally(s, suiteRun)
	for _, m := range []map[string]*Level{rep.Levels, rep.Turns} {
		for name, l := range m {
			l.finish(name, s, suiteRun)
		}
	}
	if s.exact != nil {
		n := 0
		for i := range s.items {
			if s.exactOK(i) {
				n++
			}
		}
		acc := 0.0
		if len(s.items) > 0 {
			acc = float64(n) / float64(len(s.items))
		}
		rep.ExactCorrect, rep.ExactAccuracy = &n, &acc
	}
	rep.Verification = summarizeVerify(s.meta, s.items)
	return rep
}

// header records the execution summary, the metrics and the warnings.
func (rep *Report) header(s *scored) {
	if s.verdicts != nil {
		sum := execmatch.Summarize(s.meta.Mode, s.verdicts)
		rep.Mode, rep.Correct, rep.Accuracy, rep.Outcomes = sum.Mode, &sum.Correct, &sum.Accuracy, sum.Outcomes
		rep.Metrics = append(rep.Metrics, sum.Mode)
		rep.Timings["gold"], rep.Timings["pred"] = ms(sum.GoldTime), ms(sum.PredTime)
		if n := sum.Outcomes[qeval.OutcomeGoldError]; n > 0 {
			rep.warnings = append(rep.warnings, fmt.Sprintf("%d gold queries failed; those items count as wrong (see outcome gold_error in --items)", n))
		}
	}
	if s.exact != nil {
		rep.Metrics = append(rep.Metrics, EMMetric)
		n := 0
		for i := range s.items {
			if s.exact[i] == nil {
				n++
			}
		}
		if n > 0 {
			rep.warnings = append(rep.warnings, fmt.Sprintf("the Spider parser cannot read %d gold queries; those items count as exact-match misses (see exact_error in --items)", n))
		}
	}
}

// testSuite counts, on a test suite, the items right on the original database alone
// and those the suite flipped; false when the run was on single databases.
func (rep *Report) testSuite(s *scored) bool {
	suiteRun := false
	for i := range s.verdicts {
		suiteRun = suiteRun || s.verdicts[i].OriginalMatch != nil
	}
	if !suiteRun {
		return false
	}
	n, flipped := 0, 0
	for i := range s.verdicts {
		if s.origOK(i) {
			n++
			if !s.verdicts[i].Match {
				flipped++
			}
		}
	}
	rep.OriginalCorrect, rep.Flipped = &n, &flipped
	return true
}

// tally adds each item to its level, to "all" and to its turn, and each interaction
// to joint accuracy.
func (rep *Report) tally(s *scored, suiteRun bool) {
	for i := range s.items {
		add := func(l *Level, partial bool) {
			l.Count++
			if s.execOK(i) {
				l.right++
			}
			if suiteRun && s.origOK(i) {
				l.orig++
			}
			if s.exact == nil {
				return
			}
			if partial {
				l.tally.Add(s.exact[i])
			} else {
				l.tally.AddExact(s.exactOK(i))
			}
		}
		add(rep.Levels["all"], true)
		if s.hardness[i] != nil {
			add(rep.Levels[*s.hardness[i]], true)
		}
		if s.meta.MultiTurn {
			add(rep.Turns[turnName(s.items[i].turn())], false)
		}
	}
	if !s.meta.MultiTurn {
		return
	}
	joint := rep.Levels["joint_all"]
	for _, inter := range s.interactions {
		joint.Count++
		execAll, exactAll := true, true
		for _, i := range inter {
			execAll = execAll && s.execOK(i)
			exactAll = exactAll && s.exactOK(i)
		}
		if execAll {
			joint.right++
		}
		if s.exact != nil {
			joint.tally.AddExact(exactAll)
		}
	}
}

// finish turns a level's counts into its accuracies.
func (l *Level) finish(name string, s *scored, suiteRun bool) {
	if s.verdicts != nil {
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
	if s.exact != nil {
		v := l.tally.Exact()
		l.Exact = &v
		if !strings.HasPrefix(name, "turn") {
			l.Partial = l.tally.Partial()
		}
	}
}

func turnName(turn int) string {
	if turn > 3 {
		return "turn > 4"
	}
	return fmt.Sprintf("turn %d", turn+1)
}

// Warnings are the gold queries that failed or could not be read.
func (rep *Report) Warnings() []string { return rep.warnings }

// Print prints the official evaluator's table layout (after the exact-match misses,
// with --print-mismatches).
func (rep *Report) Print(w io.Writer) {
	for _, m := range rep.mismatches {
		fmt.Fprintf(w, "%s pred: %s\n%s gold: %s\n\n", m.hardness, strings.ReplaceAll(m.pred, "value", "1"), m.hardness, m.gold)
	}
	row := func(name string, cells []string) {
		fmt.Fprintf(w, "%-20s %s\n", name, strings.Join(cells, " "))
	}
	cells := func(order []string, m map[string]*Level, f func(*Level) string) []string {
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
	count := func(l *Level) string { return fmt.Sprintf("%-20d", l.Count) }
	row("", pad(rep.levelOrder))
	row("count", cells(rep.levelOrder, rep.Levels, count))
	if rep.Correct != nil {
		fmt.Fprintln(w, "=====================   EXECUTION ACCURACY     =====================")
		row("execution", cells(rep.levelOrder, rep.Levels, func(l *Level) string { return fmt.Sprintf("%-20.3f", *l.Exec) }))
		if rep.OriginalCorrect != nil {
			row("original db only", cells(rep.levelOrder, rep.Levels, func(l *Level) string {
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
		rep.printExact(w, row)
	}
	if rep.Turns != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		row("", pad(turns))
		row("count", cells(turns, rep.Turns, count))
		if rep.Correct != nil {
			fmt.Fprintln(w, "=====================   TURN EXECUTION ACCURACY     =====================")
			row("execution", cells(turns, rep.Turns, func(l *Level) string { return fmt.Sprintf("%-20.3f", *l.Exec) }))
		}
		if rep.ExactCorrect != nil {
			fmt.Fprintln(w, "\n====================== TURN EXACT MATCHING ACCURACY =====================")
			row("exact match", cells(turns, rep.Turns, func(l *Level) string { return fmt.Sprintf("%-20.3f", *l.Exact) }))
		}
	}
	if rep.Verification != nil {
		rep.Verification.print(w)
	}
}

// printExact prints the official exact and partial matching rows.
func (rep *Report) printExact(w io.Writer, row func(string, []string)) {
	cells := func(f func(*Level) string) []string {
		out := make([]string, len(rep.levelOrder))
		for i, l := range rep.levelOrder {
			out[i] = f(rep.Levels[l])
		}
		return out
	}
	fmt.Fprintln(w, "\n====================== EXACT MATCHING ACCURACY =====================")
	row("exact match", cells(func(l *Level) string { return fmt.Sprintf("%-20.3f", *l.Exact) }))
	for _, part := range []struct{ title, key string }{
		{"\n---------------------PARTIAL MATCHING ACCURACY----------------------", "acc"},
		{"---------------------- PARTIAL MATCHING RECALL ----------------------", "rec"},
		{"---------------------- PARTIAL MATCHING F1 --------------------------", "f1"},
	} {
		fmt.Fprintln(w, part.title)
		for _, c := range exactmatch.Components {
			row(c, cells(func(l *Level) string {
				s := l.Partial[c]
				v := map[string]float64{"acc": s.Acc, "rec": s.Rec, "f1": s.F1}[part.key]
				return fmt.Sprintf("%-20.3f", v)
			}))
		}
	}
}
