package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Event stream timing: a comment every keepAlive keeps proxies from closing an idle
// stream, and a client that cannot take a write within writeTimeout is dropped.
const (
	keepAlive    = 15 * time.Second
	writeTimeout = 30 * time.Second
)

// Progress is the data of a "progress" event.
type Progress struct {
	Counts
	Total  int    `json:"total"`
	Status string `json:"status"`
}

// CaseEvent is the data of a "case" event: Index counts cases in the order they
// finished (0-based; the event's id is Index+1), Case is the case's result as in
// report.json.
type CaseEvent struct {
	Index int             `json:"index"`
	Case  json.RawMessage `json:"case"`
}

// handleEvents streams a run as server-sent events: "case" for each finished case,
// "progress" after each batch of cases, and "summary" (a RunView with the summary and
// charts) when the run has ended, after which the stream closes. A client that
// reconnects with Last-Event-ID gets the cases after that one; a run that has ended is
// replayed from the store.
//
// Each subscriber reads the run's log from its own cursor: a slow client falls behind
// and gets what it missed in one batch, with one progress event for the batch, while
// the run and the other clients go on.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cursor := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			cursor = n
		}
	}
	rc := http.NewResponseController(w)
	a := s.activeRun(id)
	if a == nil {
		s.replay(w, r, rc, id, cursor)
		return
	}
	wake := a.subscribe()
	defer a.unsubscribe(wake)
	startStream(w)
	bw := bufio.NewWriterSize(w, 16<<10)
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	first := true
	for {
		batch, c, end, endMsg := a.snapshot(cursor)
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		for i, b := range batch {
			writeEvent(bw, "case", cursor+i+1, caseEvent(cursor+i, b))
		}
		cursor += len(batch)
		if len(batch) > 0 || first {
			status := StatusRunning
			if end != nil {
				status = end.Status
			}
			p, _ := json.Marshal(Progress{Counts: c, Total: a.row.Total, Status: status})
			writeEvent(bw, "progress", 0, p)
		}
		first = false
		if end != nil {
			writeEvent(bw, "summary", 0, endMsg)
		}
		if bw.Flush() != nil || rc.Flush() != nil || end != nil {
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-tick.C:
			rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			bw.WriteString(": keep-alive\n\n")
		}
	}
}

// replay streams a run that is no longer in memory from the store.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, id string, cursor int) {
	v, err := s.storedView(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	raw, err := s.store.cases(r.Context(), id, cursor)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	startStream(w)
	rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	bw := bufio.NewWriterSize(w, 16<<10)
	for i, b := range raw {
		writeEvent(bw, "case", cursor+i+1, caseEvent(cursor+i, b))
	}
	p, _ := json.Marshal(Progress{Counts: v.Counts, Total: v.Total, Status: v.Status})
	writeEvent(bw, "progress", 0, p)
	v.Cases = nil
	end, _ := json.Marshal(v)
	writeEvent(bw, "summary", 0, end)
	bw.Flush()
	rc.Flush()
}

func startStream(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

func caseEvent(index int, b []byte) []byte {
	out := make([]byte, 0, len(b)+32)
	out = append(out, `{"index":`...)
	out = strconv.AppendInt(out, int64(index), 10)
	out = append(out, `,"case":`...)
	out = append(out, b...)
	return append(out, '}')
}

// writeEvent writes one event; id 0 means none. data is one line of JSON.
func writeEvent(w *bufio.Writer, name string, id int, data []byte) {
	if id > 0 {
		w.WriteString("id: ")
		w.WriteString(strconv.Itoa(id))
		w.WriteByte('\n')
	}
	w.WriteString("event: ")
	w.WriteString(name)
	w.WriteString("\ndata: ")
	w.Write(data)
	w.WriteString("\n\n")
}
