package report

import (
	"io"

	"github.com/qeval/qeval"
)

// Writer writes a report in one format.
//
// Write writes r to w and returns the first error w returns, or an *qeval.Error naming
// the case or field that cannot be written in the format. It never modifies r, and its
// output depends only on r (writing the same report twice gives the same bytes, except
// where a format's container adds its own timestamps, as a zip file does). A Writer
// holds no state between calls, so it is safe to use from several goroutines.
//
// FileName is the name the format's file takes in a report folder (qeval run -o DIR).
type Writer interface {
	Write(w io.Writer, r *qeval.Report) error
	FileName() string
}

// Compile-time checks that every format of this package is a Writer.
var (
	_ Writer = JSON{}
	_ Writer = JUnit{}
	_ Writer = HTML{}
	_ Writer = Markdown{}
	_ Writer = Text{}
)
