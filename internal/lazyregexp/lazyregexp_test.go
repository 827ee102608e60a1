package lazyregexp

import (
	"strings"
	"testing"
)

// The expression is compiled once, on first use outside tests, and answers as the
// regexp package does.
func TestRegexp(t *testing.T) {
	r := &Regexp{expr: `(?i)\bfrom\s+(\w+)`}
	if r.rx != nil {
		t.Fatal("compiled before use")
	}
	if !r.MatchString("select * FROM singer") || r.FindStringSubmatch("x from t")[1] != "t" {
		t.Error("does not match as the regexp package")
	}
	first := r.rx
	if first == nil || r.Regexp() != first {
		t.Error("not compiled exactly once")
	}
	if got := r.ReplaceAllString("from a, from b", "in $1"); got != "in a, in b" {
		t.Errorf("ReplaceAllString: %q", got)
	}
	if got := r.ReplaceAllStringFunc("from a", strings.ToUpper); got != "FROM A" {
		t.Errorf("ReplaceAllStringFunc: %q", got)
	}
	if r.String() != `(?i)\bfrom\s+(\w+)` {
		t.Errorf("String: %q", r.String())
	}
}

// Under go test, New compiles at once: an invalid expression panics where it is declared.
func TestNew_CompilesUnderTest(t *testing.T) {
	if New(`a+`).rx == nil {
		t.Error("New did not compile under go test")
	}
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic")
		}
	}()
	New(`(`)
}
