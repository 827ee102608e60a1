// Package lazyregexp is a regular expression compiled on its first use instead of when
// its package is initialised.
//
// Every package linked into qeval is initialised at every start of every command, so a
// package-level regexp.MustCompile costs each command its compilation whether or not the
// command ever matches it (compare's 29 expressions took 0.3 ms of each start). A
// Regexp declared with New is compiled the first time a method needs it. Under go test
// it is compiled at once, so an invalid expression still fails every test of its
// package rather than only the test that reaches it.
package lazyregexp

import (
	"regexp"
	"sync"
	"testing"
)

// Regexp is a regular expression compiled on first use; the zero value is not usable.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the expression expr, to be compiled (with regexp.MustCompile) on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	if testing.Testing() {
		r.Regexp()
	}
	return r
}

// Regexp returns the compiled expression; an invalid one panics, as regexp.MustCompile.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String is the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// The methods of regexp.Regexp that qeval's packages use, each compiling on first use.

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Regexp().ReplaceAllLiteralString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) SubexpIndex(name string) int { return r.Regexp().SubexpIndex(name) }
