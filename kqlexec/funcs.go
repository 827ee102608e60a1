package kqlexec

import (
	"errors"
	"fmt"
	"sync"

	"github.com/qeval/qeval/kql"
)

// fnDef is a scalar function computed in Go. The translator converts the arguments to
// the types in args (rest for the arguments after them; "" keeps the argument's type)
// and asks ret (or retf) for the result type; at run time fn receives the decoded
// arguments and returns the result (or an error value).
type fnDef struct {
	min, max int
	args     []Type
	rest     Type
	ret      Type
	retf     func(args []expr) Type
	fn       func(a []any) any
	// partly says what the function does not compute (Support lists it); empty when
	// it computes every input Kusto does.
	partly string
	// outputs are the columns of a function that returns several (see outputs.go):
	// fn then returns a bag with these keys.
	outputs []output
	// outputsOf gives the outputs of a call when they depend on its arguments (nil or
	// empty: the call returns one value).
	outputsOf func(c *kql.Call) []output
}

func (d *fnDef) argType(i int) Type {
	if i < len(d.args) {
		return d.args[i]
	}
	return d.rest
}

// funcs is the table of Go scalar functions by KQL name (and internal helpers), built
// from the library's groups on first use: a command that runs no KQL never builds it.
var funcs = sync.OnceValue(func() map[string]*fnDef { return build(library) })

// library is every group of KQL functions, one per file, in the order they are defined.
var library = []func(def func(string, *fnDef)){
	coreFuncs,
	parseFuncs,
	reduceFuncs,
	stringFuncs,
	mathFuncs,
	timeFuncs,
	dynamicFuncs,
	ipFuncs,
	geoFuncs,
	geoLineFuncs,
	geoSimplifyFuncs,
	geoIntersectFuncs,
	geoBooleanFuncs,
	cellFuncs,
	seriesFuncs,
	seriesBinFuncs,
	seriesFitFuncs,
	seriesReduceFuncs,
	seriesPeriodsFuncs,
	textFuncs,
	statsFuncs,
	sketchFuncs,
	userAgentFuncs,
	xmlFuncs,
	fftFuncs,
	miscFuncs,
}

// build defines every group's functions into one table. A name defined twice is a
// programming error, reported when the package is loaded (and by TestLibrary).
func build(groups []func(def func(string, *fnDef))) map[string]*fnDef {
	m := map[string]*fnDef{}
	def := func(name string, d *fnDef) {
		if _, dup := m[name]; dup {
			panic("kqlexec: function defined twice: " + name)
		}
		m[name] = d
	}
	for _, g := range groups {
		g(def)
	}
	return m
}

// volatile names the functions whose result changes between calls (rand, new_guid);
// the library's groups fill it as funcs is built: read it through isVolatile.
var volatile = map[string]bool{}

// unsupportedFuncs are known KQL functions the local engine does not compute; the
// groups fill it as funcs is built: read it through isUnsupported.
var unsupportedFuncs = map[string]bool{}

func isVolatile(name string) bool {
	funcs()
	return volatile[name]
}

func isUnsupported(name string) bool {
	funcs()
	return unsupportedFuncs[name]
}

// fixed returns a definition with fixed argument and result types.
func fixed(ret Type, fn func(a []any) any, args ...Type) *fnDef {
	return &fnDef{min: len(args), max: len(args), args: args, ret: ret, fn: fn}
}

// sigCache holds decoded type signatures ("ssb": two strings to a bool).
var sigCache sync.Map

func signature(sig string) ([]Type, error) {
	if v, ok := sigCache.Load(sig); ok {
		return v.([]Type), nil
	}
	out := make([]Type, len(sig))
	for i := 0; i < len(sig); i++ {
		t, ok := codeType[sig[i]]
		if !ok {
			return nil, fmt.Errorf("bad signature %q", sig)
		}
		out[i] = t
	}
	sigCache.Store(sig, out)
	return out, nil
}

// dispatch is the SQLite function kf(name, signature, args...): it decodes the
// arguments, calls the Go function and encodes its result.
func dispatch(args ...any) (out any, err error) {
	defer func() {
		// a function that panics on odd input fails its query, never the process
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%v: internal error: %v", args[0], r)
		}
	}()
	if len(args) < 2 {
		return nil, errors.New("kf: missing name")
	}
	name, _ := args[0].(string)
	sig, _ := args[1].(string)
	d, ok := funcs()[name]
	if !ok {
		return nil, fmt.Errorf("unknown function %s", name)
	}
	types, err := signature(sig)
	if err != nil || len(types) != len(args)-1 {
		return nil, fmt.Errorf("%s: bad signature %q", name, sig)
	}
	vals := make([]any, len(args)-2)
	for i := range vals {
		vals[i] = decode(args[i+2], types[i])
	}
	r := d.fn(vals)
	if err, ok := r.(error); ok {
		return nil, err
	}
	return encode(r, types[len(types)-1]), nil
}
