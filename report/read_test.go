package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

func TestUnmarshal_Errors(t *testing.T) {
	tests := []struct {
		name, in, want string
		line, col      int
	}{
		{"ErrNotAReport", `{"cases": []}`, "no schema_version", 0, 0},
		{"ErrVersion", `{"schema_version": "2", "cases": []}`, `schema_version "2" is not supported (this qeval reads "1")`, 0, 0},
		{"ErrSyntax", "{\"schema_version\": \"1\",\n  \"cases\": [}", "invalid JSON", 2, 13},
		{"ErrType", "{\"schema_version\": \"1\",\n\"cases\": [{\"id\": 5}]}", "field cases.id", 2, 18},
		{"ErrTruncated", `{"schema_version": "1", "cases": [`, "invalid JSON", 0, 0},
		{"ErrCases", `{"schema_version": "1", "cases": [{"id": "a", "status": "PASS"}, {"id": "a", "status": "pass"}, {"status": "FAIL"}]}`,
			"3 malformed cases:\n  - case \"a\": id used again (first at case 1)\n  - case \"a\": status \"pass\" is not PASS, FAIL or ERROR\n  - case 3: no id", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := report.Unmarshal([]byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal error %q, want it to contain %q", err, tt.want)
			}
			if qeval.ErrorCode(err) != qeval.CodeInvalid {
				t.Errorf("code %q, want invalid", qeval.ErrorCode(err))
			}
			if tt.line > 0 {
				e := err.(*qeval.Error)
				if e.Line != tt.line || e.Col != tt.col {
					t.Errorf("position %d:%d, want %d:%d", e.Line, e.Col, tt.line, tt.col)
				}
			}
		})
	}
}

func TestReadFile_NamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "head.json")
	if err := os.WriteFile(bad, []byte("{\"schema_version\": \"1\",\n\"cases\": [}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := report.ReadFile(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2:11: invalid JSON") {
		t.Errorf("ReadFile(bad)=%v, want it to start with %s:2:11", err, bad)
	}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"schema_version": "0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = report.ReadFile(old)
	if err == nil || !strings.HasPrefix(err.Error(), old+": schema_version") || qeval.ErrorHint(err) == "" {
		t.Errorf("ReadFile(old)=%v (hint %q)", err, qeval.ErrorHint(err))
	}
	missing := filepath.Join(dir, "nope.json")
	_, err = report.ReadFile(missing)
	if qeval.ErrorCode(err) != qeval.CodeNotFound || err.Error() != "read "+missing+": no such file" {
		t.Errorf("ReadFile(missing)=%v (code %q)", err, qeval.ErrorCode(err))
	}
	good := filepath.Join(dir, "report.json")
	if err := os.WriteFile(good, write(t, report.JSON{}, fixture()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := report.ReadFile(good)
	if err != nil || len(r.Cases) != 6 || r.Run.Suite != "shop <demo>" {
		t.Errorf("ReadFile(good)=%v, %v", r, err)
	}
}

// FuzzUnmarshal feeds arbitrary bytes to the reader; whatever it accepts, every writer
// and Compare must handle without panicking.
func FuzzUnmarshal(f *testing.F) {
	f.Add(`{"schema_version":"1","cases":[{"id":"a","status":"PASS","metrics":{"llm_grading":{"score":0.5,"details":{"reasoning":7}}}}]}`)
	f.Add(`{"schema_version":"1","summary":{"score_histogram":[1,-2,3],"safety":{"fn":1},"calibration":{"bins":[{"lower":2,"upper":-1,"count":4}]},"by_tag":[{"tag":"<x>","accuracy":{"value":9}}]},"cases":[]}`)
	f.Add(`{"schema_version":"1","cases":[{"id":"b","status":"ERROR","execution":{"gold_result":{"columns":[{"name":"a"}],"rows":[[1,"x",null,[1]]]}}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := report.Unmarshal([]byte(in))
		if err != nil {
			return
		}
		for _, w := range []report.Writer{report.JSON{}, report.JUnit{}, report.Markdown{}, report.HTML{}, report.Text{}} {
			_ = w.Write(discard{}, r)
		}
		if d, err := report.Compare(r, r, report.DiffOptions{}); err == nil {
			_ = d.WriteText(discard{})
			_ = d.WriteMarkdown(discard{})
			if len(d.Broken)+len(d.Fixed) != 0 || d.Regression {
				t.Errorf("a report compared with itself changed: %+v", d)
			}
		}
	})
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
