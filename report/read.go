package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/qeval/qeval"
)

// maxProblems caps the problems listed when a report is malformed.
const maxProblems = 10

// ReadFile reads a report.json file. Every error names the file.
func ReadFile(path string) (*qeval.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		e := &qeval.Error{Code: qeval.CodeInternal, Op: "read " + path, Err: err, Message: err.Error()}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			e.Message = pe.Err.Error()
		}
		if errors.Is(err, fs.ErrNotExist) {
			e.Code, e.Message = qeval.CodeNotFound, "no such file"
		}
		return nil, e
	}
	r, err := Unmarshal(b)
	if err != nil {
		var qe *qeval.Error
		if errors.As(err, &qe) {
			c := *qe
			c.Op = path
			if qe.Line > 0 {
				c.Op = fmt.Sprintf("%s:%d:%d", path, qe.Line, qe.Col)
			}
			return nil, &c
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: path, Message: err.Error(), Err: err}
	}
	return r, nil
}

// Unmarshal decodes a report.json. It checks what the other tools rely on: the schema
// version is the one this qeval writes, and every case has a unique id and a status of
// PASS, FAIL or ERROR. Errors are *qeval.Error with CodeInvalid; a JSON syntax or type
// error carries the line and column.
func Unmarshal(b []byte) (*qeval.Report, error) {
	var probe struct {
		SchemaVersion *string `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, jsonError(b, err)
	}
	if probe.SchemaVersion == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "not a qeval report: no schema_version",
			Hint: "pass the report.json written by 'qeval run -o DIR'"}
	}
	if v := *probe.SchemaVersion; v != qeval.ReportSchemaVersion {
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("schema_version %q is not supported (this qeval reads %q)", v, qeval.ReportSchemaVersion),
			Hint:    "compare reports written by the same major version of qeval, or re-run the older suite"}
	}
	var r qeval.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, jsonError(b, err)
	}
	if err := check(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// check lists every malformed case at once.
func check(r *qeval.Report) error {
	var problems []string
	seen := make(map[string]int, len(r.Cases))
	for i, c := range r.Cases {
		where := fmt.Sprintf("case %d", i+1)
		if c.ID == "" {
			problems = append(problems, where+": no id")
		} else {
			where = fmt.Sprintf("case %q", c.ID)
			if j, dup := seen[c.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s: id used again (first at case %d)", where, j+1))
			}
			seen[c.ID] = i
		}
		switch c.Status {
		case qeval.StatusPass, qeval.StatusFail, qeval.StatusError:
		default:
			problems = append(problems, fmt.Sprintf("%s: status %q is not PASS, FAIL or ERROR", where, c.Status))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	more := ""
	if len(problems) > maxProblems {
		more = fmt.Sprintf("\n  - and %d more", len(problems)-maxProblems)
		problems = problems[:maxProblems]
	}
	return &qeval.Error{Code: qeval.CodeInvalid,
		Message: fmt.Sprintf("%d malformed %s:\n  - %s%s", len(problems), plural(len(problems), "case", "cases"),
			strings.Join(problems, "\n  - "), more)}
}

// jsonError turns a decoding error into an *qeval.Error with the line and column.
func jsonError(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	e := &qeval.Error{Code: qeval.CodeInvalid, Message: "invalid JSON: " + err.Error(), Err: err}
	switch {
	case errors.As(err, &syn):
		e.Line, e.Col = position(b, syn.Offset-1) // Offset is just past the bad byte
	case errors.As(err, &typ):
		e.Line, e.Col = position(b, typ.Offset-1) // Offset is just past the bad value
		e.Message = fmt.Sprintf("field %s: %s is not a %s", typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Message = "invalid JSON: the file ends early"
	}
	return e
}

// position converts a byte offset to a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
