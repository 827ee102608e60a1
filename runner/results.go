package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/qeval/qeval"
)

// ResultsWriter appends each finished case to a JSONL results file as it completes, so
// a run that is killed loses nothing that finished: each line is one write to the file,
// in the kernel's hands at once. It is synced to disk at most every syncEvery (and on
// Close), against a machine that goes down: a sync per case cost a tenth of a large run.
// It is safe for concurrent use.
type ResultsWriter struct {
	// Secrets are masked in every line written.
	Secrets qeval.Secrets

	mu     sync.Mutex
	f      *os.File
	err    error
	synced time.Time
}

// syncEvery is how often the results file is synced to disk while a run writes it.
const syncEvery = time.Second

// CreateResults opens path for appending (creating it when missing).
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open results file " + path, Message: err.Error(), Err: err}
	}
	return &ResultsWriter{f: f}, nil
}

// Append writes one case (synced to disk when the last sync is syncEvery old).
func (w *ResultsWriter) Append(r qeval.CaseResult) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(r)
	if err != nil {
		w.err = err
		return err
	}
	b = append(w.Secrets.MaskBytes(b), '\n')
	if _, err := w.f.Write(b); err != nil {
		w.err = err
		return err
	}
	if time.Since(w.synced) < syncEvery {
		return nil
	}
	w.synced = time.Now()
	return w.f.Sync()
}

// Close syncs and closes the file.
func (w *ResultsWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	serr := w.f.Sync()
	if err := w.f.Close(); err != nil {
		return err
	}
	return serr
}

// Results is what a results file holds: the finished cases, and how much of the file
// is whole lines.
type Results struct {
	Done map[string]qeval.CaseResult
	// Valid is the length in bytes of the file's whole lines; a line cut short by a
	// kill lies beyond it.
	Valid int64
	// TornLine is the number of a last line cut short (0 when none): its case runs again.
	TornLine int
}

// LoadResults reads a results file written by ResultsWriter. A last line cut short by
// a kill (no newline at its end) is left out and reported in TornLine; any other bad
// line is an error naming it. A case the LLM judge failed on is not counted as done,
// so a resumed run asks the judge again (and only for those).
func LoadResults(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open results file " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	out := &Results{Done: map[string]qeval.CaseResult{}}
	r := bufio.NewReader(f)
	line := 0
	for {
		text, err := r.ReadBytes('\n')
		if len(text) > 0 {
			line++
			if errors.Is(err, io.EOF) {
				// no newline: the writer was stopped in the middle of this line
				out.TornLine = line
				return out, nil
			}
			var cr qeval.CaseResult
			if jerr := json.Unmarshal(text, &cr); jerr != nil || cr.ID == "" {
				return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read results file %s:%d", path, line),
					Message: "not a case result", Hint: "--resume takes the results.jsonl file that an earlier qeval run wrote"}
			}
			if !cr.JudgeError { // the judge failed on it: a resumed run asks again
				out.Done[cr.ID] = cr
			}
			out.Valid += int64(len(text))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read results file " + path, Message: err.Error(), Err: err}
		}
	}
}

// ResumeResults opens a results file read by LoadResults for appending, first cutting
// off a torn last line, so the file stays valid JSONL after any number of kills.
func ResumeResults(path string, loaded *Results) (*ResultsWriter, error) {
	if loaded.TornLine > 0 {
		if err := os.Truncate(path, loaded.Valid); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "repair results file " + path, Message: err.Error(), Err: err}
		}
	}
	return CreateResults(path)
}
