package runner

import (
	"bufio"
	"bytes"
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
//
// It is also the run's qeval.CaseStore: it knows where each line it wrote lies, and
// Load reads a case back, so a large run keeps only a summary view of each case in
// memory and its reports read the cases one at a time.
type ResultsWriter struct {
	// Secrets are masked in every line written.
	Secrets qeval.Secrets

	mu     sync.Mutex
	f      *os.File
	err    error
	synced time.Time
	path   string
	size   int64           // bytes in the file: where the next line goes
	lines  map[string]span // where each case written by this writer lies
	rf     *os.File        // opened for reading on the first Load
	// readClosed is set by CloseRead: a later Load is an error, never a silent miss
	readClosed bool
}

// span is the place of one line in the results file.
type span struct{ off, n int64 }

// syncEvery is how often the results file is synced to disk while a run writes it.
const syncEvery = time.Second

// CreateResults opens path for appending (creating it when missing).
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open results file " + path, Message: err.Error(), Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open results file " + path, Message: err.Error(), Err: err}
	}
	return &ResultsWriter{f: f, path: path, size: st.Size(), lines: map[string]span{}}, nil
}

// Append writes one case (synced to disk when the last sync is syncEvery old). A case
// JSON cannot hold (a NaN in a metric's details) is an error for that case alone; a
// failed write stops the writer.
func (w *ResultsWriter) Append(r qeval.CaseResult) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as report.json writes them: a line is indented into it as is
	if err := enc.Encode(r); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: fmt.Sprintf("write case %q to the results file", r.ID), Message: err.Error(), Err: err}
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	b = append(w.Secrets.MaskBytes(b), '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	n, err := w.f.Write(b)
	if err != nil {
		w.err = err
		w.size += int64(n)
		return err
	}
	w.lines[r.ID] = span{w.size, int64(n)}
	w.size += int64(n)
	if time.Since(w.synced) < syncEvery {
		return nil
	}
	w.synced = time.Now()
	return w.f.Sync()
}

// Put stores a finished case: Append, as a qeval.CaseStore.
func (w *ResultsWriter) Put(r qeval.CaseResult) error { return w.Append(r) }

// Load reads back a case this writer wrote (false for any other id). The line is the
// masked one, as every report shows it.
func (w *ResultsWriter) Load(id string) (qeval.CaseResult, bool, error) {
	b, ok, err := w.LoadRaw(id)
	if !ok || err != nil {
		return qeval.CaseResult{}, ok, err
	}
	var cr qeval.CaseResult
	if err := json.Unmarshal(b, &cr); err != nil {
		return qeval.CaseResult{}, false, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read case %q back from %s", id, w.path), Message: err.Error(), Err: err}
	}
	return cr, true, nil
}

// LoadRaw reads back the JSON line of a case this writer wrote, without its newline.
func (w *ResultsWriter) LoadRaw(id string) ([]byte, bool, error) {
	w.mu.Lock()
	sp, ok := w.lines[id]
	if ok && w.readClosed {
		w.mu.Unlock()
		return nil, false, &qeval.Error{Code: qeval.CodeInternal, Op: fmt.Sprintf("read case %q back from %s", id, w.path), Message: "the results file was closed for reading"}
	}
	if ok && w.rf == nil {
		f, err := os.Open(w.path)
		if err != nil {
			w.mu.Unlock()
			return nil, false, &qeval.Error{Code: qeval.CodeInvalid, Op: "read results file " + w.path, Message: err.Error(), Err: err}
		}
		w.rf = f
	}
	rf := w.rf
	w.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	b := make([]byte, sp.n)
	if _, err := rf.ReadAt(b, sp.off); err != nil {
		return nil, false, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read case %q back from %s", id, w.path), Message: err.Error(), Err: err}
	}
	return bytes.TrimSuffix(b, []byte("\n")), true, nil
}

// Close syncs and closes the file. Cases can still be loaded after it (reports are
// written after the run); CloseRead releases that.
func (w *ResultsWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == errClosed {
		return nil
	}
	w.err = errClosed
	serr := w.f.Sync()
	if err := w.f.Close(); err != nil {
		return err
	}
	return serr
}

// CloseRead closes the file Load reads from.
func (w *ResultsWriter) CloseRead() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rf == nil {
		w.readClosed = true
		return nil
	}
	err := w.rf.Close()
	w.rf, w.readClosed = nil, true
	return err
}

var errClosed = errors.New("the results file is closed")

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

// ScratchResults is the results file of a run that asked for none, in the temporary
// folder: the store its reports read the cases back from. remove closes and deletes it.
func ScratchResults(secrets qeval.Secrets) (w *ResultsWriter, remove func(), err error) {
	f, err := os.CreateTemp("", "qeval-results-*.jsonl")
	if err != nil {
		return nil, nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create a scratch results file", Message: err.Error(), Err: err,
			Hint: "set TMPDIR to a writable folder, or write the results with --results FILE"}
	}
	f.Close()
	w, err = CreateResults(f.Name())
	if err != nil {
		os.Remove(f.Name())
		return nil, nil, err
	}
	w.Secrets = secrets
	return w, func() {
		w.Close()
		w.CloseRead()
		os.Remove(f.Name())
	}, nil
}
