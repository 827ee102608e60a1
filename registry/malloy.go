package registry

import (
	"github.com/qeval/qeval/malloy"
)

// MalloyCompiler is the compiler of Malloy suites and of qeval exec and parse
// --dialect malloy: the official Malloy compiler in one Node helper for the run,
// started on the first Malloy query and ended by Close. notify is told when the
// compiler is being installed (once, with npm).
func MalloyCompiler(notify func(string)) *malloy.Compiler {
	return &malloy.Compiler{Notify: notify}
}
