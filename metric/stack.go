package metric

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// A failed metric records a short stack trace, as the seed asks of every failure, not
// only of a panic: the frames of qeval's own code where the failure arose, so a person
// sees which calculator and which step gave up.

// stackError carries the program counters of where an error was made.
type stackError struct {
	err error
	pcs []uintptr
}

func (e *stackError) Error() string { return e.err.Error() }
func (e *stackError) Unwrap() error { return e.err }

// withStack records the caller's stack on err, unless it has one already.
func withStack(err error) error {
	if err == nil {
		return nil
	}
	var se *stackError
	if errors.As(err, &se) {
		return err
	}
	pcs := make([]uintptr, 32)
	n := runtime.Callers(2, pcs)
	return &stackError{err: err, pcs: pcs[:n]}
}

// shortStack formats the qeval frames of an error's recorded stack, or of the calling
// goroutine when it has none.
func shortStack(err error) string {
	var pcs []uintptr
	var se *stackError
	if errors.As(err, &se) {
		pcs = se.pcs
	} else {
		pcs = make([]uintptr, 32)
		pcs = pcs[:runtime.Callers(2, pcs)]
	}
	frames := runtime.CallersFrames(pcs)
	var b strings.Builder
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "github.com/qeval/qeval") {
			// the path from the module root: never the build machine's folders
			file := strings.TrimPrefix(strings.TrimPrefix(f.File, moduleRoot), "github.com/qeval/qeval/")
			b.WriteString(strings.TrimPrefix(f.Function, "github.com/qeval/qeval/"))
			b.WriteString("\n\t")
			b.WriteString(file)
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(f.Line))
			b.WriteByte('\n')
		}
		if !more {
			break
		}
	}
	return b.String()
}

// moduleRoot is the folder of the module's source when it was built ("" with
// -trimpath, where paths already start with the module path).
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(filepath.Dir(file)) + string(filepath.Separator)
}()
