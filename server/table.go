package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// Flags of a row, for the page's filters.
const (
	FlagUnsafeLetThrough = "unsafe_let_through" // the validator let an unsafe query through
	FlagJudgeDisagrees   = "judge_disagrees"    // the judge's verdict differs from execution match
	FlagGoldFlagged      = "gold_flagged"       // the gold audit flagged the case's gold query
)

// Row is one case of a run as the page's table shows it: enough to sort, filter and
// search, without the results. The whole case is at /api/runs/{id}/cases/{case}.
type Row struct {
	ID       string   `json:"id"`
	Status   string   `json:"status"`
	Question string   `json:"question,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Score    *float64 `json:"score"`
	// Components are the composite's components by name (nil when skipped or failed).
	Components map[string]*float64 `json:"components"`
	Outcome    qeval.Outcome       `json:"outcome,omitempty"`
	// ExecError is the execution failure's message; GeneratedRows the rows the
	// generated query returned (nil when it did not run).
	ExecError     string  `json:"exec_error,omitempty"`
	GeneratedRows *int    `json:"generated_rows,omitempty"`
	DurationMS    float64 `json:"duration_ms"`
	Expected      string  `json:"expected_query"`
	Generated     string  `json:"generated_query"`
	Reason        string  `json:"reason,omitempty"`
	// MatchedGold and Golds are, on a case with several golds, the number (from 1) of
	// the one that matched (0: none) and how many there are (0 when unknown).
	MatchedGold int `json:"matched_gold,omitempty"`
	Golds       int `json:"golds,omitempty"`
	// Reasoning is the judge's reasoning on a case that did not pass.
	Reasoning string   `json:"reasoning,omitempty"`
	Flags     []string `json:"flags,omitempty"`
	// ErrorClass and ErrorSubclass are the main class and subclass of the first
	// (most specific) error class of a case that did not pass.
	ErrorClass    string `json:"error_class,omitempty"`
	ErrorSubclass string `json:"error_subclass,omitempty"`
}

// Table is a run's rows: GET /api/runs/{id}/rows.
type Table struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Components names the composite's components, in report order.
	Components []string `json:"components"`
	// Audited is set when the run has a gold audit (so gold_flagged means something).
	Audited bool  `json:"audited"`
	Rows    []Row `json:"rows"`
}

// loaded is a run read and decoded once. Ended runs do not change, so the last few
// are kept (loadedRuns) for the table, the case details and comparisons.
type loaded struct {
	view   *RunView // without its cases
	report *qeval.Report
	table  *Table
	index  map[string]int // case id → position in report.Cases
	ended  bool
}

// loadedRuns keeps the last ended runs read, up to maxLoadedCases cases in all (the
// latest is kept whatever its size).
type loadedRuns struct {
	mu    sync.Mutex
	order []string
	runs  map[string]*loaded
	cases int
}

const maxLoadedCases = 25_000

func (c *loadedRuns) get(id string) *loaded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[id]
}

func (c *loadedRuns) put(l *loaded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]*loaded{}
	}
	if _, ok := c.runs[l.view.ID]; ok {
		return
	}
	c.runs[l.view.ID] = l
	c.order = append(c.order, l.view.ID)
	c.cases += len(l.report.Cases)
	for len(c.order) > 1 && c.cases > maxLoadedCases {
		old := c.runs[c.order[0]]
		c.cases -= len(old.report.Cases)
		delete(c.runs, c.order[0])
		c.order = c.order[1:]
	}
}

// loadedOf indexes a run's report and builds its table.
func loadedOf(v *RunView, rep *qeval.Report) *loaded {
	v.Cases = nil
	l := &loaded{view: v, report: rep, index: make(map[string]int, len(rep.Cases)), ended: v.Status != StatusRunning}
	for i, c := range rep.Cases {
		l.index[c.ID] = i
	}
	l.table = tableOf(v, rep)
	return l
}

// load reads a run (in progress or ended) with its cases decoded.
func (s *Server) load(ctx context.Context, id string) (*loaded, error) {
	if l := s.loadedRuns.get(id); l != nil {
		return l, nil
	}
	var v *RunView
	if a := s.activeRun(id); a != nil {
		events, c, end, _ := a.snapshot(0)
		if end == nil {
			v = a.view()
			v.Counts = c
			v.setPassRate()
			v.Cases = rawCases(events)
		}
	}
	if v == nil {
		// an ended run with its report: decoded in one pass
		row, err := s.store.getRun(ctx, id)
		if errors.Is(err, errNoRun) {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Message: "no run with id " + id}
		}
		if err != nil {
			return nil, err
		}
		if row.Status != StatusRunning {
			b, err := s.store.report(ctx, id)
			if err != nil {
				return nil, err
			}
			if b != nil {
				rep := &qeval.Report{}
				if err := json.Unmarshal(b, rep); err != nil {
					return nil, fmt.Errorf("run %s: its report: %w", id, err)
				}
				v = viewOf(row)
				v.withReport(&rep.Run, &rep.Summary)
				l := loadedOf(v, rep)
				s.loadedRuns.put(l)
				return l, nil
			}
		}
		if v, err = s.storedView(ctx, id); err != nil {
			return nil, err
		}
	}
	rep := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion, Cases: make([]qeval.CaseResult, 0, len(v.Cases))}
	if v.Run != nil {
		rep.Run = *v.Run
	}
	if v.Summary != nil {
		rep.Summary = *v.Summary
	}
	rep.Audit = v.audit
	for i, b := range v.Cases {
		var c qeval.CaseResult
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("run %s: case %d: %w", id, i+1, err)
		}
		rep.Cases = append(rep.Cases, c)
	}
	l := loadedOf(v, rep)
	if l.ended {
		s.loadedRuns.put(l)
	}
	return l, nil
}

// tableOf builds the rows of a run.
func tableOf(v *RunView, rep *qeval.Report) *Table {
	t := &Table{ID: v.ID, Status: v.Status, Components: qeval.Components, Audited: rep.Audit != nil,
		Rows: make([]Row, len(rep.Cases))}
	disagree := map[string]bool{}
	if a := runner.JudgeAgreement(rep.Cases); a != nil {
		for _, d := range a.Disagreements {
			disagree[d.ID] = true
		}
	}
	flagged := map[string]bool{}
	if rep.Audit != nil {
		for _, c := range rep.Audit.Cases {
			flagged[c.ID] = true
		}
	}
	for i := range rep.Cases {
		c := &rep.Cases[i]
		r := Row{ID: c.ID, Status: c.Status, Question: c.Question, Tags: c.Tags, Score: c.TotalScore,
			Components: make(map[string]*float64, len(qeval.Components)), DurationMS: c.DurationMS,
			Expected: c.ExpectedQuery, Generated: c.GeneratedQuery, Reason: c.Reason, MatchedGold: c.MatchedGold}
		if n := len(c.ExpectedQueries); n > 1 {
			r.Golds = n
		}
		if len(c.ErrorClass) > 0 {
			r.ErrorClass, r.ErrorSubclass = c.ErrorClass[0].Class, c.ErrorClass[0].Subclass
		}
		for _, name := range qeval.Components {
			if m, ok := c.Metrics[name]; ok && m.Skipped == nil && m.Error == nil {
				r.Components[name] = m.Score
			} else {
				r.Components[name] = nil
			}
		}
		if v := c.Verdict; v != nil {
			r.Outcome, r.ExecError = v.Outcome, v.Error
			if v.Pred != nil {
				n := len(v.Pred.Rows)
				r.GeneratedRows = &n
			}
		}
		if m, ok := c.Metrics[metric.NameLLMGrading]; ok && c.Status != qeval.StatusPass {
			r.Reasoning, _ = m.Details["reasoning"].(string)
		}
		if m, ok := c.Metrics[metric.NameSafetyValidation]; ok && m.Details["classification"] == metric.FalseNegative {
			r.Flags = append(r.Flags, FlagUnsafeLetThrough)
		}
		if disagree[c.ID] {
			r.Flags = append(r.Flags, FlagJudgeDisagrees)
		}
		if flagged[c.ID] {
			r.Flags = append(r.Flags, FlagGoldFlagged)
		}
		t.Rows[i] = r
	}
	return t
}

// loadRequested loads the run the request's path names.
func (s *Server) loadRequested(r *http.Request) (*loaded, error) {
	id, err := s.runID(r)
	if err != nil {
		return nil, err
	}
	return s.load(r.Context(), id)
}

func (s *Server) handleRows(w http.ResponseWriter, r *http.Request) {
	l, err := s.loadRequested(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, l.table)
}

// handleCase answers one case of a run, whole.
func (s *Server) handleCase(w http.ResponseWriter, r *http.Request) {
	l, err := s.loadRequested(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id, name := l.view.ID, r.PathValue("case")
	i, ok := l.index[name]
	if !ok {
		s.fail(w, r, &FieldError{Field: "case", Err: &qeval.Error{Code: qeval.CodeNotFound, Message: fmt.Sprintf("run %s has no case %q", id, name)}})
		return
	}
	writeJSON(w, http.StatusOK, &l.report.Cases[i])
}

// Comparison is two runs compared: GET /api/compare?base={id}&head={id}. Diff is what
// qeval diff computes; Cases pair each case of either run.
type Comparison struct {
	Base  *RunView     `json:"base"`
	Head  *RunView     `json:"head"`
	Diff  *report.Diff `json:"diff"`
	Cases []Pair       `json:"cases"`
}

// Pair is one case in both runs (a side is nil when the case is only in the other).
type Pair struct {
	ID string `json:"id"`
	// Change is fixed, broken, still_passing, still_failing, only_base or only_head.
	Change string `json:"change"`
	Base   *Row   `json:"base"`
	Head   *Row   `json:"head"`
	// Delta is head's score minus base's (nil unless both have one).
	Delta *float64 `json:"delta"`
}

func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var runs [2]*loaded
	for i, field := range []string{"base", "head"} {
		id := q.Get(field)
		if !validID(id) {
			s.fail(w, r, invalid(field, "name a run: /api/compare?base={id}&head={id}"))
			return
		}
		l, err := s.load(r.Context(), id)
		if err != nil {
			s.fail(w, r, &FieldError{Field: field, Err: err})
			return
		}
		if !l.ended {
			s.fail(w, r, &FieldError{Field: field, Err: &qeval.Error{Code: codeConflict, Message: "run " + id + " is still in progress; compare it when it ends"}})
			return
		}
		runs[i] = l
	}
	base, head := runs[0], runs[1]
	d, err := report.Compare(base.report, head.report, report.DiffOptions{
		BaseName: base.view.ID[:8] + " " + base.view.Suite, HeadName: head.view.ID[:8] + " " + head.view.Suite})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &Comparison{Base: base.view, Head: head.view, Diff: d, Cases: pairs(base, head)})
}

// pairs lines up the cases of two runs: head's order, then those only in base.
func pairs(base, head *loaded) []Pair {
	out := make([]Pair, 0, len(head.table.Rows))
	for i := range head.table.Rows {
		h := &head.table.Rows[i]
		p := Pair{ID: h.ID, Head: h, Change: "only_head"}
		if j, ok := base.index[h.ID]; ok {
			b := &base.table.Rows[j]
			p.Base = b
			p.Change = change(b.Status, h.Status)
			if b.Score != nil && h.Score != nil {
				d := *h.Score - *b.Score
				p.Delta = &d
			}
		}
		out = append(out, p)
	}
	for i := range base.table.Rows {
		b := &base.table.Rows[i]
		if _, ok := head.index[b.ID]; !ok {
			out = append(out, Pair{ID: b.ID, Base: b, Change: "only_base"})
		}
	}
	return out
}

// change names a case's move between runs, as qeval diff counts them.
func change(from, to string) string {
	was, is := from == qeval.StatusPass, to == qeval.StatusPass
	switch {
	case !was && is:
		return "fixed"
	case was && !is:
		return "broken"
	case is:
		return "still_passing"
	}
	return "still_failing"
}
