package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/qeval/qeval"
)

// WriteFile writes a report to a temporary file beside path and renames it into
// place: a report is whole or absent, never half-written (a run out of memory in the
// encoder must not leave a 0-byte report.json).
func WriteFile(w Writer, path string, rep *qeval.Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if err := w.Write(f, rep); err != nil {
		f.Close()
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	if err := f.Close(); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	if err := os.Rename(tmp, path); err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write report " + path, Message: err.Error(), Err: err}
	}
	return nil
}

// Mask returns rep with every secret replaced, wherever it occurs (a judge's
// reasoning that echoes the key, an error that quotes a DSN): one masking step before
// any writer sees the report. A report without secrets is returned as is.
func Mask(rep *qeval.Report, secrets qeval.Secrets) (*qeval.Report, error) {
	if len(secrets) == 0 {
		return rep, nil
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return rep, nil // the writers report what cannot be encoded, naming the case
	}
	masked := secrets.MaskBytes(b)
	if bytes.Equal(masked, b) {
		return rep, nil
	}
	var out qeval.Report
	if err := json.Unmarshal(masked, &out); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "mask the report", Message: err.Error()}
	}
	out.Run.Started, out.Run.Finished = rep.Run.Started, rep.Run.Finished
	out.Store = rep.Store // its lines were masked as they were written
	return &out, nil
}
