package kqlexec

import (
	"strings"
	"testing"
)

// TestLibrary checks the function table: every group defines something, a name defined
// twice is refused.
func TestLibrary(t *testing.T) {
	for i, g := range library {
		n := 0
		g(func(string, *fnDef) { n++ })
		if n == 0 {
			t.Errorf("library group %d defines no function", i)
		}
	}
	twice := func(def func(string, *fnDef)) { def("x", &fnDef{}); def("x", &fnDef{}) }
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), `defined twice: x`) {
				t.Errorf("a name defined twice: recover() = %v", r)
			}
		}()
		build([]func(func(string, *fnDef)){twice})
	}()
}
