package registry

import (
	"slices"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/xlsx"
)

// writers is the one table of report formats: a format's name (as --format and the
// configuration spell it) → a constructor of its writer. qeval run -o DIR writes every
// format here into DIR, each under its writer's FileName. A new format is one line.
var writers = map[string]func() report.Writer{
	"json":  func() report.Writer { return report.JSON{} },
	"xlsx":  func() report.Writer { return xlsx.Writer{} },
	"junit": func() report.Writer { return report.JUnit{} },
	"html":  func() report.Writer { return report.HTML{} },
	"md":    func() report.Writer { return report.Markdown{} },
}

// WriterNames returns the names of the report formats, sorted.
func WriterNames() []string {
	names := make([]string, 0, len(writers))
	for n := range writers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NewWriter returns the writer of the named format. An unknown name is a CodeInvalid
// error that lists the known ones.
func NewWriter(name string) (report.Writer, error) {
	if mk, ok := writers[name]; ok {
		return mk(), nil
	}
	return nil, &qeval.Error{Code: qeval.CodeInvalid,
		Message: "unknown report format " + strconv.Quote(name) + " (known: " + strings.Join(WriterNames(), ", ") + ")"}
}
