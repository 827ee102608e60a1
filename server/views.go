package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// RunView is a run as the API shows it. The list leaves out Run, Summary, Charts and
// Cases; a run's own page has them (Summary and Charts once it has ended).
type RunView struct {
	ID     string `json:"id"`
	Suite  string `json:"suite"`
	Status string `json:"status"`
	Total  int    `json:"total"`
	Counts
	// PassRate is Passed over Done.
	PassRate  float64 `json:"pass_rate"`
	Threshold float64 `json:"threshold"`
	// Weights are the composite's weights (before a case's skipped components are
	// renormalised away); absent when the run's report is gone.
	Weights  map[string]float64 `json:"weights,omitempty"`
	Started  time.Time          `json:"started"`
	Finished *time.Time         `json:"finished"`
	Error    string             `json:"error,omitempty"`
	Run      *qeval.RunInfo     `json:"run,omitempty"`
	Summary  *qeval.Summary     `json:"summary,omitempty"`
	Charts   []ChartView        `json:"charts,omitempty"`
	Cases    []json.RawMessage  `json:"cases,omitempty"`

	audit *qeval.GoldAudit // the run's gold audit, when it has one
}

// ChartView is one chart of a run's summary: the same SVG as the HTML report's.
type ChartView struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	SVG   string `json:"svg"`
}

func viewOf(r *runRow) *RunView {
	v := &RunView{ID: r.ID, Suite: r.Suite, Status: r.Status, Total: r.Total,
		Counts:    Counts{Done: r.Done, Passed: r.Passed, Failed: r.Failed, Errors: r.Errors},
		Threshold: r.Threshold, Started: r.Started, Finished: r.Finished, Error: r.Error}
	v.setPassRate()
	return v
}

func (v *RunView) setPassRate() {
	v.PassRate = 0
	if v.Done > 0 {
		v.PassRate = float64(v.Passed) / float64(v.Done)
	}
}

// withReport adds the report's run information, summary and charts.
func (v *RunView) withReport(info *qeval.RunInfo, sum *qeval.Summary) {
	v.Run, v.Summary = info, sum
	v.Threshold, v.Weights = info.Threshold, info.Weights
	v.Counts = Counts{Done: sum.Total, Passed: sum.Passed, Failed: sum.Failed, Errors: sum.Errors}
	v.setPassRate()
	v.Charts = []ChartView{}
	for _, c := range report.Charts(sum, info.Threshold) {
		v.Charts = append(v.Charts, ChartView{ID: c.ID, Title: c.Title, SVG: c.SVG})
	}
}

// view is the run as the API shows it while it runs.
func (r *run) view() *RunView {
	v := viewOf(&r.row)
	v.Weights = r.weights
	return v
}

func (s *Server) activeRun(id string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[id]
}

func (s *Server) runID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !validID(id) {
		return "", &qeval.Error{Code: qeval.CodeNotFound, Message: "no run with that id"}
	}
	return id, nil
}

func (s *Server) handleStartRun(w http.ResponseWriter, r *http.Request) {
	p, err := s.suiteFromRequest(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rn, err := s.start(p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/runs/"+rn.row.ID)
	writeJSON(w, http.StatusCreated, rn.view())
}

func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	rows, err := s.store.listRuns(r.Context(), 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := struct {
		Runs []*RunView `json:"runs"`
	}{Runs: make([]*RunView, 0, len(rows))}
	for _, row := range rows {
		v := viewOf(row)
		if a := s.activeRun(row.ID); a != nil {
			_, c, end, _ := a.snapshot(1 << 62)
			if end != nil {
				e := *end
				e.Run, e.Summary, e.Charts = nil, nil, nil
				v = &e
			} else {
				v.Counts = c
				v.setPassRate()
			}
		}
		out.Runs = append(out.Runs, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleGetRun answers a run with its cases; with ?cases=none, without them (the page
// reads the rows, and a case when it is opened).
func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	withCases := r.URL.Query().Get("cases") != "none"
	if a := s.activeRun(id); a != nil {
		events, c, end, _ := a.snapshot(0)
		if end == nil {
			v := a.view()
			v.Counts = c
			v.setPassRate()
			if withCases {
				v.Cases = rawCases(events)
			}
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	if !withCases {
		l, err := s.load(r.Context(), id) // read once, kept for the rows and cases that follow
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, l.view)
		return
	}
	v, err := s.storedView(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func rawCases(events [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(events))
	for i, b := range events {
		out[i] = b
	}
	return out
}

// storedReport is report.json with the cases left encoded.
type storedReport struct {
	Run     qeval.RunInfo     `json:"run"`
	Summary qeval.Summary     `json:"summary"`
	Cases   []json.RawMessage `json:"cases"`
	Audit   *qeval.GoldAudit  `json:"audit"`
}

// storedView reads an ended (or interrupted) run from the store. A run without a
// report (the server stopped during it) is summarised from the cases it kept.
func (s *Server) storedView(ctx context.Context, id string) (*RunView, error) {
	row, err := s.store.getRun(ctx, id)
	if errors.Is(err, errNoRun) {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Message: "no run with id " + id}
	}
	if err != nil {
		return nil, err
	}
	v := viewOf(row)
	if row.Status == StatusRunning {
		v.Cases, err = s.store.cases(ctx, id, 0)
		return v, err
	}
	b, err := s.store.report(ctx, id)
	if err != nil {
		return nil, err
	}
	if b != nil {
		var rep storedReport
		if err := json.Unmarshal(b, &rep); err != nil {
			return nil, err
		}
		v.withReport(&rep.Run, &rep.Summary)
		v.Cases, v.audit = rep.Cases, rep.Audit
		return v, nil
	}
	rep, err := s.rebuild(ctx, row)
	if err != nil {
		return nil, err
	}
	if len(rep.Cases) > 0 {
		v.withReport(&rep.Run, &rep.Summary)
	}
	v.Cases, err = s.store.cases(ctx, id, 0)
	return v, err
}

// rebuild makes the report of a run that ended without one from its stored cases.
func (s *Server) rebuild(ctx context.Context, row *runRow) (*qeval.Report, error) {
	raw, err := s.store.cases(ctx, row.ID, 0)
	if err != nil {
		return nil, err
	}
	rep := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion, Cases: make([]qeval.CaseResult, 0, len(raw))}
	for _, b := range raw {
		var c qeval.CaseResult
		if err := json.Unmarshal(b, &c); err == nil {
			rep.Cases = append(rep.Cases, c)
		}
	}
	rep.Run = qeval.RunInfo{Suite: row.Suite, QevalVersion: s.cfg.Version, Threshold: row.Threshold, Started: row.Started,
		Interrupted: row.Status != StatusFinished, Weights: qeval.DefaultWeights()}
	if row.Finished != nil {
		rep.Run.Finished = *row.Finished
		rep.Run.DurationMS = float64(row.Finished.Sub(row.Started).Microseconds()) / 1000
	}
	rep.Summary = runner.Summarize(rep.Cases, row.Threshold)
	return rep, nil
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if a := s.activeRun(id); a != nil {
		a.canceled.Store(true)
		a.cancel()
		writeJSON(w, http.StatusAccepted, map[string]string{"id": id, "status": "canceling"})
		return
	}
	row, err := s.store.getRun(r.Context(), id)
	if errors.Is(err, errNoRun) {
		s.fail(w, r, &qeval.Error{Code: qeval.CodeNotFound, Message: "no run with id " + id})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.fail(w, r, &qeval.Error{Code: codeConflict, Message: "the run has already ended (" + row.Status + ")"})
}

// downloads are the report files of a run, by the name in the URL.
var downloads = map[string]struct{ format, contentType string }{
	"report.json": {"json", "application/json; charset=utf-8"},
	"report.xlsx": {"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"junit.xml":   {"junit", "application/xml; charset=utf-8"},
	"report.html": {"html", "text/html; charset=utf-8"},
	"summary.md":  {"md", "text/markdown; charset=utf-8"},
}

func (s *Server) handleDownload(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	file := r.PathValue("file")
	d, ok := downloads[file]
	if !ok {
		s.fail(w, r, &qeval.Error{Code: qeval.CodeNotFound, Message: "no file " + file + " (known: report.json, report.xlsx, junit.xml, report.html, summary.md)"})
		return
	}
	if a := s.activeRun(id); a != nil {
		if _, _, end, _ := a.snapshot(0); end == nil {
			s.fail(w, r, &qeval.Error{Code: codeConflict, Message: "the run is still in progress; its reports are ready when it ends"})
			return
		}
	}
	row, err := s.store.getRun(r.Context(), id)
	if errors.Is(err, errNoRun) {
		s.fail(w, r, &qeval.Error{Code: qeval.CodeNotFound, Message: "no run with id " + id})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	b, err := s.store.report(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rep *qeval.Report
	if b == nil {
		if row.Status == StatusFailed {
			s.fail(w, r, &qeval.Error{Code: qeval.CodeNotFound, Message: "the run failed and has no report: " + row.Error})
			return
		}
		if rep, err = s.rebuild(r.Context(), row); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if rep == nil && d.format != "json" {
		rep = &qeval.Report{}
		if err := json.Unmarshal(b, rep); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if rep != nil {
		wr, err := registry.NewWriter(d.format)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var buf bytes.Buffer
		if err := wr.Write(&buf, rep); err != nil {
			s.fail(w, r, err)
			return
		}
		b = buf.Bytes()
	}
	h := w.Header()
	h.Set("Content-Type", d.contentType)
	h.Set("Content-Disposition", `attachment; filename="`+downloadName(row.Suite, id, file)+`"`)
	h.Set("Cache-Control", "no-store")
	w.Write(b)
}

// downloadName is qeval-SUITE-ID8-FILE with only safe characters.
func downloadName(suite, id, file string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, suite)
	if len(clean) > 40 {
		clean = clean[:40]
	}
	return "qeval-" + clean + "-" + id[:8] + "-" + file
}
