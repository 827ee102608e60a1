package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

// Import stores a finished run's report (a report.json written by qeval run, or by a
// benchmark command: spider, bird, spider2) as a run of the server: it is listed with
// the server's own runs and opens at /runs/{id}. It returns the run's id.
func (s *Server) Import(ctx context.Context, rep *qeval.Report) (string, error) {
	if rep == nil || rep.SchemaVersion == "" {
		return "", invalid("", "not a qeval report: no schema_version")
	}
	name := rep.Run.Suite
	if b := rep.Run.Benchmark; b != nil && name == "" {
		name = b.Name
	}
	if name == "" {
		name = "imported run"
	}
	started, finished := rep.Run.Started.UTC(), rep.Run.Finished.UTC()
	if started.IsZero() {
		started = s.now().UTC()
	}
	if finished.Before(started) {
		finished = started
	}
	row := &runRow{ID: newID(), Suite: name, Status: StatusRunning, Total: len(rep.Cases), Threshold: rep.Run.Threshold, Started: started}
	if err := s.store.createRun(ctx, row); err != nil {
		return "", err
	}
	var c Counts
	enc := make([][]byte, 0, len(rep.Cases))
	for i := range rep.Cases {
		cr, err := rep.Case(i)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(cr)
		if err != nil {
			return "", invalid("cases", "case %q cannot be stored: %v", cr.ID, err)
		}
		enc = append(enc, b)
		c.add(cr.Status)
	}
	if err := s.store.appendCases(ctx, row.ID, 0, enc, c); err != nil {
		return "", err
	}
	status := StatusFinished
	if rep.Run.Interrupted {
		status = StatusInterrupted
	}
	repJSON, err := report.Marshal(rep)
	if err != nil {
		return "", err
	}
	if err := s.store.finishRun(ctx, row.ID, status, "", finished, c, repJSON); err != nil {
		return "", err
	}
	return row.ID, nil
}

// handleImport is POST /api/runs/import: the body is a report.json.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	data, err := readBody(r.Body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rep, err := report.Unmarshal(data)
	if err != nil {
		s.fail(w, r, invalid("", "not a qeval report.json: %s", qeval.ErrorMessage(err)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	id, err := s.Import(ctx, rep)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	row, err := s.store.getRun(ctx, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/runs/"+id)
	writeJSON(w, http.StatusCreated, viewOf(row))
}
