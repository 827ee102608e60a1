package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/qeval/qeval"
)

// ResultsWriter appends each finished case to a JSONL results file as it completes, so
// a run that is killed loses nothing that finished. It is safe for concurrent use.
type ResultsWriter struct {
	mu  sync.Mutex
	f   *os.File
	enc *json.Encoder
	err error
}

// CreateResults opens path for appending (creating it when missing).
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open results file " + path, Message: err.Error(), Err: err}
	}
	return &ResultsWriter{f: f, enc: json.NewEncoder(f)}, nil
}

// Append writes one case and syncs it to disk.
func (w *ResultsWriter) Append(r qeval.CaseResult) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.enc.Encode(r); err != nil {
		w.err = err
		return err
	}
	return w.f.Sync()
}

// Close closes the file.
func (w *ResultsWriter) Close() error { return w.f.Close() }

// LoadResults reads a results file written by ResultsWriter. A last line cut short by
// a kill is ignored (that case runs again); any other bad line is an error naming it.
func LoadResults(path string) (map[string]qeval.CaseResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open results file " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	out := map[string]qeval.CaseResult{}
	r := bufio.NewReader(f)
	line := 0
	for {
		text, err := r.ReadBytes('\n')
		if len(text) > 0 {
			line++
			var cr qeval.CaseResult
			if jerr := json.Unmarshal(text, &cr); jerr != nil || cr.ID == "" {
				if errors.Is(err, io.EOF) {
					break // the last line was cut short
				}
				return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read results file %s:%d", path, line),
					Message: "not a case result", Hint: "--resume takes the results.jsonl file that an earlier qeval run wrote"}
			}
			out[cr.ID] = cr
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read results file " + path, Message: err.Error(), Err: err}
		}
	}
	return out, nil
}
