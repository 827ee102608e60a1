package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/qeval/qeval"
)

// JSON writes report.json: the whole report, indented, with the schema version set.
// Map keys come out sorted (encoding/json sorts them), and <, > and & are written as
// is rather than as \u003c escapes, so queries stay readable.
type JSON struct{}

// FileName is "report.json".
func (JSON) FileName() string { return "report.json" }

// Write writes r as indented JSON followed by a newline, streamed to w: each case is
// encoded on its own, so a report of many (or huge) cases is never held whole in memory
// as bytes. The bytes are those of one json.Encoder with two-space indentation. On an
// error part of the report may have been written: write to a temporary file and rename
// it (the CLI does).
func (JSON) Write(w io.Writer, r *qeval.Report) error {
	out := normalized(r)
	bw := bufio.NewWriterSize(w, 1<<16)
	p := &partWriter{w: bw}
	p.raw("{\n  \"schema_version\": ")
	p.value(out.SchemaVersion, "  ")
	p.raw(",\n  \"run\": ")
	p.value(out.Run, "  ")
	p.raw(",\n  \"summary\": ")
	p.value(out.Summary, "  ")
	p.raw(",\n  \"cases\": [")
	raw, _ := out.Store.(qeval.RawCaseStore)
	for i := range out.Cases {
		if i > 0 {
			p.raw(",")
		}
		p.raw("\n    ")
		if raw != nil {
			// a stored case is indented from its line, not decoded and encoded again
			b, ok, err := raw.LoadRaw(out.Cases[i].ID)
			if err != nil {
				return fmt.Errorf("case %q: %w", out.Cases[i].ID, err)
			}
			if ok {
				p.indented(b, "    ")
				continue
			}
		}
		c, err := out.Case(i)
		if err != nil {
			return err
		}
		p.value(c, "    ")
	}
	if len(out.Cases) > 0 {
		p.raw("\n  ")
	}
	p.raw("]")
	if out.Audit != nil {
		p.raw(",\n  \"audit\": ")
		p.value(out.Audit, "  ")
	}
	p.raw("\n}\n")
	if p.err != nil {
		if isEncodeError(p.err) {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "write report.json", Message: locate(out, p.err)}
		}
		return p.err
	}
	return bw.Flush()
}

// partWriter writes the parts of a report, keeping the first error.
type partWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	err error
}

func (p *partWriter) raw(s string) {
	if p.err == nil {
		_, p.err = p.w.WriteString(s)
	}
}

// value writes v indented as a value nested at prefix.
func (p *partWriter) value(v any, prefix string) {
	if p.err != nil {
		return
	}
	p.buf.Reset()
	enc := json.NewEncoder(&p.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if p.err = enc.Encode(v); p.err != nil {
		return
	}
	_, p.err = p.w.Write(bytes.TrimSuffix(p.buf.Bytes(), []byte("\n")))
}

// indented writes the compact JSON b indented as a value nested at prefix: the bytes
// value writes for what b encodes.
func (p *partWriter) indented(b []byte, prefix string) {
	if p.err != nil {
		return
	}
	p.buf.Reset()
	if p.err = json.Indent(&p.buf, b, prefix, "  "); p.err != nil {
		return
	}
	_, p.err = p.w.Write(p.buf.Bytes())
}

// isEncodeError reports an error of the value rather than of the writer.
func isEncodeError(err error) bool {
	var ut *json.UnsupportedTypeError
	var uv *json.UnsupportedValueError
	var me *json.MarshalerError
	return errors.As(err, &ut) || errors.As(err, &uv) || errors.As(err, &me)
}

// normalized is r with an empty SchemaVersion written as qeval.ReportSchemaVersion and
// nil Cases as [].
func normalized(r *qeval.Report) *qeval.Report {
	out := *r
	if out.SchemaVersion == "" {
		out.SchemaVersion = qeval.ReportSchemaVersion
	}
	if out.Cases == nil {
		out.Cases = []qeval.CaseResult{}
	}
	return &out
}

// Marshal returns the bytes of report.json for r. An empty SchemaVersion is written as
// qeval.ReportSchemaVersion and nil Cases as []. A value JSON cannot hold (a NaN score,
// a channel in a metric's details) is an error that names the case holding it.
func Marshal(r *qeval.Report) ([]byte, error) {
	out := normalized(r)
	b, err := encode(out)
	if err == nil {
		return b, nil
	}
	return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "write report.json", Message: locate(out, err)}
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// locate finds the part of r that cannot be encoded and describes the failure there.
func locate(r *qeval.Report, err error) string {
	for i := range r.Cases {
		c, lerr := r.Case(i)
		if lerr != nil {
			return lerr.Error()
		}
		if _, e := encode(c); e != nil {
			for _, name := range sortedKeys(c.Metrics) {
				if _, e := encode(c.Metrics[name]); e != nil {
					return fmt.Sprintf("case %q: metric %s: %v", c.ID, name, e)
				}
			}
			return fmt.Sprintf("case %q: %v", c.ID, e)
		}
	}
	if _, e := encode(&r.Summary); e != nil {
		return fmt.Sprintf("summary: %v", e)
	}
	if _, e := encode(&r.Run); e != nil {
		return fmt.Sprintf("run: %v", e)
	}
	return err.Error()
}
