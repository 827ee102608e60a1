package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

type failingWriter struct{}

func (failingWriter) FileName() string { return "report.json" }
func (failingWriter) Write(w io.Writer, _ *qeval.Report) error {
	io.WriteString(w, `{"half": `)
	return errors.New("out of memory")
}

// A report whose writer fails leaves the last whole report in place and no temporary
// file behind (a failed write once left a 0-byte report.json).
func TestWriteReport_Atomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	rep := &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion}
	if err := writeReportFile("json", path, rep); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := report.WriteFile(failingWriter{}, path, rep); err == nil {
		t.Fatal("no error from a failing writer")
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) || len(after) == 0 {
		t.Errorf("report.json changed to %q", after)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
