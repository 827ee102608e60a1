package report

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Diff is what changed between two runs of a suite (qeval diff BASE.json HEAD.json).
// Cases are matched by id; the statistics are over the cases present in both runs, so
// each case is compared with itself.
type Diff struct {
	Base string `json:"base"`
	Head string `json:"head"`
	// Paired is the number of cases in both runs; OnlyBase and OnlyHead list the others.
	Paired   int      `json:"paired"`
	OnlyBase []string `json:"only_in_base"`
	OnlyHead []string `json:"only_in_head"`
	// Fixed went from FAIL or ERROR to PASS, Broken from PASS to FAIL or ERROR (in head
	// order); the rest are unchanged: still passing or still not passing.
	Fixed        []CaseChange `json:"fixed"`
	Broken       []CaseChange `json:"broken"`
	StillPassing int          `json:"still_passing"`
	StillFailing int          `json:"still_failing"`
	// PassRate is the share of PASS cases; ExecutionAccuracy the share whose execution
	// matched, over the cases where both runs executed (nil when none did); MeanScore
	// the mean total score over the cases both runs scored.
	PassRate          Delta  `json:"pass_rate"`
	ExecutionAccuracy *Delta `json:"execution_accuracy,omitempty"`
	MeanScore         *Delta `json:"mean_score,omitempty"`
	// ErrorClasses count, by main error class, the paired cases failing with it in
	// each run and the classes fixed and broken.
	ErrorClasses []ClassDelta `json:"error_classes,omitempty"`
	// Components are the composite components' mean deltas, over the cases where both
	// runs computed the component.
	Components []ComponentDelta `json:"components"`
	// McNemar tests whether the pass rates differ, from the broken (B) and fixed (C) counts.
	McNemar metric.McNemarResult `json:"mcnemar"`
	// Warnings say why the runs may not be comparable (another mode, judge, threshold).
	Warnings []string `json:"warnings,omitempty"`
	// Regression is the --fail-on-regression verdict and Reasons explain it (see Compare).
	Regression bool     `json:"regression"`
	Reasons    []string `json:"regression_reasons,omitempty"`
}

// Delta is a paired change: the base and head values over the same N cases, head −
// base, and its paired bootstrap 95% interval [Low, High].
type Delta struct {
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	Delta float64 `json:"delta"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	N     int     `json:"n"`
}

// ComponentDelta is the change of one component's mean.
type ComponentDelta struct {
	Name string `json:"name"`
	Delta
}

// CaseChange is a case whose status changed between the runs.
type CaseChange struct {
	ID        string   `json:"id"`
	From      string   `json:"from"`
	To        string   `json:"to"`
	BaseScore *float64 `json:"base_score"`
	HeadScore *float64 `json:"head_score"`
	// Reason is why the case does not pass now (broken) or did not before (fixed);
	// Class is that side's first error class.
	Reason string `json:"reason,omitempty"`
	Class  string `json:"error_class,omitempty"`
	// BaseGold and HeadGold are, on a case with several golds, the number (from 1) of
	// the gold that matched in each run (0: none), and Golds how many it has (0 when
	// unknown, as for Spider 2.0's gold files).
	BaseGold int `json:"base_matched_gold,omitempty"`
	HeadGold int `json:"head_matched_gold,omitempty"`
	Golds    int `json:"golds,omitempty"`
}

// caseChange is the change of a case from b to h; reason is the failing side's.
func caseChange(b, h *qeval.CaseResult, reason string) CaseChange {
	cc := CaseChange{ID: h.ID, From: b.Status, To: h.Status, BaseScore: b.TotalScore, HeadScore: h.TotalScore, Reason: reason,
		BaseGold: b.MatchedGold, HeadGold: h.MatchedGold, Golds: max(len(b.ExpectedQueries), len(h.ExpectedQueries))}
	if cc.Golds < 2 {
		cc.Golds = 0
	}
	return cc
}

// GoldNote says how the matched gold changed, on a case with several: "gold 1 → none
// of 2"; "" otherwise.
func (c CaseChange) GoldNote() string {
	if c.BaseGold == 0 && c.HeadGold == 0 && c.Golds == 0 {
		return ""
	}
	gold := func(n int) string {
		if n == 0 {
			return "none"
		}
		return strconv.Itoa(n)
	}
	note := "gold " + gold(c.BaseGold) + " → " + gold(c.HeadGold)
	if c.Golds > 0 {
		note += " of " + strconv.Itoa(c.Golds)
	}
	return note
}

// DiffOptions configures Compare.
type DiffOptions struct {
	// BaseName and HeadName name the reports in the output (their file names).
	BaseName, HeadName string
	// Bootstrap sets the resamples and seed of the intervals (zero: 1,000, seed 1).
	Bootstrap metric.BootstrapOptions
}

// Compare matches the cases of base and head by id and measures the change.
//
// The regression rule, for --fail-on-regression: head regressed when any case broke
// (PASS → FAIL or ERROR), or when the upper end of the 95% interval of the pass rate's
// change, or of the execution accuracy's change, is below 0 (the drop is larger than
// chance explains even though no single case flipped status, which can happen for
// execution accuracy). Fixed cases do not offset broken ones: a pull request that fixes
// two cases and breaks one still has a regression to look at.
//
// Two reports with no case id in common, or a report that repeats an id, are an error.
func Compare(base, head *qeval.Report, opt DiffOptions) (*Diff, error) {
	bn, hn := cmpName(opt.BaseName, "base"), cmpName(opt.HeadName, "head")
	baseByID, err := indexCases(base, bn)
	if err != nil {
		return nil, err
	}
	if _, err := indexCases(head, hn); err != nil {
		return nil, err
	}
	d := &Diff{Base: bn, Head: hn, OnlyBase: []string{}, OnlyHead: []string{}, Fixed: []CaseChange{}, Broken: []CaseChange{},
		Components: []ComponentDelta{}}
	var pass, exec, total []metric.Paired
	comps := map[string][]metric.Paired{}
	classes := classTally{}
	inHead := make(map[string]bool, len(head.Cases))
	for i := range head.Cases {
		h := &head.Cases[i]
		inHead[h.ID] = true
		b, ok := baseByID[h.ID]
		if !ok {
			d.OnlyHead = append(d.OnlyHead, h.ID)
			continue
		}
		d.Paired++
		bp, hp := b.Status == qeval.StatusPass, h.Status == qeval.StatusPass
		switch {
		case bp && hp:
			d.StillPassing++
		case !bp && !hp:
			d.StillFailing++
		case bp:
			d.Broken = append(d.Broken, caseChange(b, h, caseReason(h, head.Run.Threshold)))
			d.Broken[len(d.Broken)-1].Class = caseClass(h)
		default:
			d.Fixed = append(d.Fixed, caseChange(b, h, caseReason(b, base.Run.Threshold)))
			d.Fixed[len(d.Fixed)-1].Class = caseClass(b)
		}
		classes.add(b, h)
		pass = append(pass, metric.Paired{Base: one(bp), Head: one(hp)})
		if bs, hs := metricScore(b, metric.NameExecutionMatch), metricScore(h, metric.NameExecutionMatch); bs != nil && hs != nil {
			exec = append(exec, metric.Paired{Base: finite(*bs), Head: finite(*hs)})
		}
		if b.TotalScore != nil && h.TotalScore != nil {
			total = append(total, metric.Paired{Base: finite(*b.TotalScore), Head: finite(*h.TotalScore)})
		}
		for _, n := range qeval.Components {
			if bs, hs := metricScore(b, n), metricScore(h, n); bs != nil && hs != nil {
				comps[n] = append(comps[n], metric.Paired{Base: finite(*bs), Head: finite(*hs)})
			}
		}
	}
	for i := range base.Cases {
		if !inHead[base.Cases[i].ID] {
			d.OnlyBase = append(d.OnlyBase, base.Cases[i].ID)
		}
	}
	if d.Paired == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("%s and %s have no case id in common", bn, hn),
			Hint: "compare two runs of the same suite"}
	}
	d.PassRate = delta(pass, opt.Bootstrap)
	if len(exec) > 0 {
		e := delta(exec, opt.Bootstrap)
		d.ExecutionAccuracy = &e
	}
	if len(total) > 0 {
		t := delta(total, opt.Bootstrap)
		d.MeanScore = &t
	}
	for _, n := range qeval.Components {
		if len(comps[n]) > 0 {
			d.Components = append(d.Components, ComponentDelta{Name: n, Delta: delta(comps[n], opt.Bootstrap)})
		}
	}
	d.ErrorClasses = classes.deltas()
	d.McNemar = metric.McNemar(len(d.Broken), len(d.Fixed))
	d.Warnings = comparability(base, head, d)
	d.judge()
	return d, nil
}

// judge applies the regression rule documented on Compare.
func (d *Diff) judge() {
	if n := len(d.Broken); n > 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d %s broke", n, plural(n, "case", "cases")))
	}
	if d.PassRate.High < 0 {
		d.Reasons = append(d.Reasons, "the pass rate fell by "+unsignedPoints(-d.PassRate.Delta)+" (95% interval below 0)")
	}
	if e := d.ExecutionAccuracy; e != nil && e.High < 0 {
		d.Reasons = append(d.Reasons, "execution accuracy fell by "+unsignedPoints(-e.Delta)+" (95% interval below 0)")
	}
	d.Regression = len(d.Reasons) > 0
}

// unsignedPoints formats a positive change of a share in percentage points: "16.7 pp".
func unsignedPoints(x float64) string {
	return strconv.FormatFloat(finite(x)*100, 'f', 1, 64) + " pp"
}

func delta(pairs []metric.Paired, opt metric.BootstrapOptions) Delta {
	var sb, sh float64
	for _, p := range pairs {
		sb, sh = sb+p.Base, sh+p.Head
	}
	n := float64(len(pairs))
	iv := metric.BootstrapPairedDiff(pairs, opt)
	return Delta{Base: sb / n, Head: sh / n, Delta: metric.PairedDiff(pairs), Low: iv.Lower, High: iv.Upper, N: len(pairs)}
}

// comparability lists differences in how the two runs were made.
func comparability(base, head *qeval.Report, d *Diff) []string {
	var w []string
	differ := func(what, b, h string) {
		if b != h {
			w = append(w, fmt.Sprintf("%s differs: %s in %s, %s in %s", what, orNone(b), d.Base, orNone(h), d.Head))
		}
	}
	differ("suite", base.Run.Suite, head.Run.Suite)
	differ("comparison mode", base.Run.Mode, head.Run.Mode)
	differ("threshold", score(base.Run.Threshold), score(head.Run.Threshold))
	differ("judge", judgeID(base.Run.Judge), judgeID(head.Run.Judge))
	if !maps.Equal(base.Run.Weights, head.Run.Weights) {
		w = append(w, "the composite weights differ, so total scores are not on the same scale")
	}
	if n := len(d.OnlyBase) + len(d.OnlyHead); n > 0 {
		w = append(w, fmt.Sprintf("%d %s in only one run (%d only in %s, %d only in %s) %s left out of the statistics",
			n, plural(n, "case", "cases"), len(d.OnlyBase), d.Base, len(d.OnlyHead), d.Head, plural(n, "is", "are")))
	}
	if base.Run.Interrupted || head.Run.Interrupted {
		w = append(w, "a run was interrupted: only the cases both runs finished are compared")
	}
	return w
}

func judgeID(j *qeval.JudgeInfo) string {
	if j == nil || j.Skipped != "" {
		return ""
	}
	return j.Provider + "/" + j.Model + " prompt " + j.PromptVersion
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func indexCases(r *qeval.Report, name string) (map[string]*qeval.CaseResult, error) {
	byID := make(map[string]*qeval.CaseResult, len(r.Cases))
	for i := range r.Cases {
		c := &r.Cases[i]
		if _, dup := byID[c.ID]; dup {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: name, Message: fmt.Sprintf("case id %q appears twice", c.ID)}
		}
		byID[c.ID] = c
	}
	return byID, nil
}

func cmpName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
