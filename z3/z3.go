// Package z3 is a small cgo binding of the Z3 SMT solver's C library (Debian's
// libz3-4): a context, Boolean, integer and real terms, uninterpreted predicates,
// and a solver that stops when its context.Context ends. It wraps that one library and
// knows nothing of SQL; the bounded model of queries that uses it is equiv's.
//
// The library is opened at run time (dlopen), not linked: qeval builds and runs on a
// machine without Z3, where Load says what to install and nothing else is called.
//
// A Context is not safe for concurrent use; make one per goroutine. Terms live as long
// as their Context.
package z3

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "z3load.h"

static void qeval_z3_ignore_errors(Z3_context c, Z3_error_code e) {}
static void qeval_z3_quiet(Z3_context c) { Z3_set_error_handler(c, qeval_z3_ignore_errors); }
*/
import "C"

import (
	"context"
	"errors"
	"math/big"
	"strconv"
	"sync"
	"unsafe"
)

// Context owns every term and solver made from it.
type Context struct {
	c      C.Z3_context
	mu     sync.Mutex // guards closed against Interrupt
	closed bool
	bools  C.Z3_sort
	ints   C.Z3_sort
	reals  C.Z3_sort
	names  int
}

// Term is a Boolean, integer or real term.
type Term struct {
	ctx *Context
	a   C.Z3_ast
}

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens Z3's library, once: nil when it is there, else an error saying what to
// install. Call it before anything else of this package.
func Load() error {
	loadOnce.Do(func() {
		if missing := C.qeval_z3_load(); missing != nil {
			loadErr = errors.New("Z3's library is not installed (" + C.GoString(missing) + " not found): install libz3-4 (Debian/Ubuntu: apt-get install libz3-4)")
		}
	})
	return loadErr
}

// SetMemoryLimit caps the memory of every Z3 context of the process, in bytes (Z3's
// global memory_max_size): past it the solver gives up and Check returns Unknown.
func SetMemoryLimit(bytes int64) {
	if Load() != nil {
		return
	}
	mb := bytes >> 20
	if mb < 1 {
		mb = 1
	}
	k, v := C.CString("memory_max_size"), C.CString(strconv.FormatInt(mb, 10))
	C.Z3_global_param_set(k, v)
	C.free(unsafe.Pointer(k))
	C.free(unsafe.Pointer(v))
}

// NewContext makes a context whose solvers produce models.
// Load must have succeeded.
func NewContext() *Context {
	if err := Load(); err != nil {
		panic("z3.NewContext without the library (check z3.Load first): " + err.Error())
	}
	cfg := C.Z3_mk_config()
	k, v := C.CString("model"), C.CString("true")
	C.Z3_set_param_value(cfg, k, v)
	C.free(unsafe.Pointer(k))
	C.free(unsafe.Pointer(v))
	c := C.Z3_mk_context(cfg)
	C.Z3_del_config(cfg)
	C.qeval_z3_quiet(c)
	ctx := &Context{c: c}
	ctx.bools, ctx.ints, ctx.reals = C.Z3_mk_bool_sort(c), C.Z3_mk_int_sort(c), C.Z3_mk_real_sort(c)
	return ctx
}

// Close frees the context and everything made from it.
func (ctx *Context) Close() {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if !ctx.closed {
		ctx.closed = true
		C.Z3_del_context(ctx.c)
	}
}

// err returns the context's last error, if any.
func (ctx *Context) err() error {
	if code := C.Z3_get_error_code(ctx.c); code != C.Z3_OK {
		return errors.New(C.GoString(C.Z3_get_error_msg(ctx.c, code)))
	}
	return nil
}

func (ctx *Context) term(a C.Z3_ast) Term { return Term{ctx, a} }

func (ctx *Context) fresh(prefix string) C.Z3_symbol {
	ctx.names++
	s := C.CString(prefix + "!" + strconv.Itoa(ctx.names))
	defer C.free(unsafe.Pointer(s))
	return C.Z3_mk_string_symbol(ctx.c, s)
}

// Bool, Int and Real make fresh constants (the name is a hint for models).
func (ctx *Context) Bool(name string) Term {
	return ctx.term(C.Z3_mk_const(ctx.c, ctx.fresh(name), ctx.bools))
}
func (ctx *Context) Int(name string) Term {
	return ctx.term(C.Z3_mk_const(ctx.c, ctx.fresh(name), ctx.ints))
}
func (ctx *Context) Real(name string) Term {
	return ctx.term(C.Z3_mk_const(ctx.c, ctx.fresh(name), ctx.reals))
}

// True and False are the Boolean constants.
func (ctx *Context) True() Term  { return ctx.term(C.Z3_mk_true(ctx.c)) }
func (ctx *Context) False() Term { return ctx.term(C.Z3_mk_false(ctx.c)) }

// BoolVal is true or false.
func (ctx *Context) BoolVal(b bool) Term {
	if b {
		return ctx.True()
	}
	return ctx.False()
}

// IntVal is an integer constant.
func (ctx *Context) IntVal(v int64) Term {
	return ctx.term(C.Z3_mk_int64(ctx.c, C.int64_t(v), ctx.ints))
}

// RealVal is a real constant from a decimal or rational text ("1.25", "-3/7").
func (ctx *Context) RealVal(text string) Term {
	s := C.CString(text)
	defer C.free(unsafe.Pointer(s))
	return ctx.term(C.Z3_mk_numeral(ctx.c, s, ctx.reals))
}

// Predicate makes a fresh uninterpreted predicate of one real argument.
func (ctx *Context) Predicate(name string) func(Term) Term {
	dom := []C.Z3_sort{ctx.reals}
	f := C.Z3_mk_func_decl(ctx.c, ctx.fresh(name), 1, &dom[0], ctx.bools)
	return func(x Term) Term {
		args := []C.Z3_ast{x.a}
		return ctx.term(C.Z3_mk_app(ctx.c, f, 1, &args[0]))
	}
}

// Function makes a fresh uninterpreted function from reals to reals.
func (ctx *Context) Function(name string) func(Term) Term {
	dom := []C.Z3_sort{ctx.reals}
	f := C.Z3_mk_func_decl(ctx.c, ctx.fresh(name), 1, &dom[0], ctx.reals)
	return func(x Term) Term {
		args := []C.Z3_ast{x.a}
		return ctx.term(C.Z3_mk_app(ctx.c, f, 1, &args[0]))
	}
}

func (ctx *Context) list(ts []Term) (*C.Z3_ast, C.uint) {
	as := make([]C.Z3_ast, len(ts))
	for i, t := range ts {
		as[i] = t.a
	}
	// the slice is Go memory holding C pointers only, passed for the call's duration
	return &as[0], C.uint(len(as))
}

// And and Or of any number of terms (And() is true, Or() false).
func (ctx *Context) And(ts ...Term) Term {
	switch len(ts) {
	case 0:
		return ctx.True()
	case 1:
		return ts[0]
	}
	p, n := ctx.list(ts)
	return ctx.term(C.Z3_mk_and(ctx.c, n, p))
}
func (ctx *Context) Or(ts ...Term) Term {
	switch len(ts) {
	case 0:
		return ctx.False()
	case 1:
		return ts[0]
	}
	p, n := ctx.list(ts)
	return ctx.term(C.Z3_mk_or(ctx.c, n, p))
}

// Sum of integer or real terms (the zero of sort when empty: give it as zero).
func (ctx *Context) Sum(zero Term, ts ...Term) Term {
	switch len(ts) {
	case 0:
		return zero
	case 1:
		return ts[0]
	}
	p, n := ctx.list(ts)
	return ctx.term(C.Z3_mk_add(ctx.c, n, p))
}

// Not, Implies, Iff, Ite.
func (t Term) Not() Term           { return t.ctx.term(C.Z3_mk_not(t.ctx.c, t.a)) }
func (t Term) Implies(u Term) Term { return t.ctx.term(C.Z3_mk_implies(t.ctx.c, t.a, u.a)) }
func (t Term) Iff(u Term) Term     { return t.ctx.term(C.Z3_mk_iff(t.ctx.c, t.a, u.a)) }

// Ite is if t then a else b.
func (t Term) Ite(a, b Term) Term { return t.ctx.term(C.Z3_mk_ite(t.ctx.c, t.a, a.a, b.a)) }

// Eq, Lt, Le, Gt, Ge compare terms of one sort.
func (t Term) Eq(u Term) Term { return t.ctx.term(C.Z3_mk_eq(t.ctx.c, t.a, u.a)) }
func (t Term) Lt(u Term) Term { return t.ctx.term(C.Z3_mk_lt(t.ctx.c, t.a, u.a)) }
func (t Term) Le(u Term) Term { return t.ctx.term(C.Z3_mk_le(t.ctx.c, t.a, u.a)) }
func (t Term) Gt(u Term) Term { return t.ctx.term(C.Z3_mk_gt(t.ctx.c, t.a, u.a)) }
func (t Term) Ge(u Term) Term { return t.ctx.term(C.Z3_mk_ge(t.ctx.c, t.a, u.a)) }

// Add, Sub, Mul, Div (real division) and Neg of arithmetic terms.
func (t Term) Add(u Term) Term {
	as := []C.Z3_ast{t.a, u.a}
	return t.ctx.term(C.Z3_mk_add(t.ctx.c, 2, &as[0]))
}
func (t Term) Sub(u Term) Term {
	as := []C.Z3_ast{t.a, u.a}
	return t.ctx.term(C.Z3_mk_sub(t.ctx.c, 2, &as[0]))
}
func (t Term) Mul(u Term) Term {
	as := []C.Z3_ast{t.a, u.a}
	return t.ctx.term(C.Z3_mk_mul(t.ctx.c, 2, &as[0]))
}
func (t Term) Div(u Term) Term { return t.ctx.term(C.Z3_mk_div(t.ctx.c, t.a, u.a)) }
func (t Term) Neg() Term       { return t.ctx.term(C.Z3_mk_unary_minus(t.ctx.c, t.a)) }

// ToReal converts an integer term to a real one; IsInt says a real term is integral.
func (t Term) ToReal() Term { return t.ctx.term(C.Z3_mk_int2real(t.ctx.c, t.a)) }
func (t Term) IsInt() Term  { return t.ctx.term(C.Z3_mk_is_int(t.ctx.c, t.a)) }

// Result is a solver's answer.
type Result int

const (
	Unknown Result = iota
	Sat
	Unsat
)

// Solver holds assertions.
type Solver struct {
	ctx *Context
	s   C.Z3_solver
}

// NewSolver makes a solver.
func (ctx *Context) NewSolver() *Solver {
	s := C.Z3_mk_solver(ctx.c)
	C.Z3_solver_inc_ref(ctx.c, s)
	return &Solver{ctx: ctx, s: s}
}

// Close frees the solver.
func (s *Solver) Close() { C.Z3_solver_dec_ref(s.ctx.c, s.s) }

// Assert adds a Boolean term.
func (s *Solver) Assert(t Term) { C.Z3_solver_assert(s.ctx.c, s.s, t.a) }

// Push and Pop scope assertions.
func (s *Solver) Push() { C.Z3_solver_push(s.ctx.c, s.s) }
func (s *Solver) Pop()  { C.Z3_solver_pop(s.ctx.c, s.s, 1) }

// Check decides the assertions; when ctx ends the solver is interrupted and Check
// returns Unknown with ctx's error. An Unknown without error carries the solver's
// reason (a memory limit, incompleteness).
func (s *Solver) Check(ctx context.Context) (Result, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			s.ctx.mu.Lock()
			if !s.ctx.closed {
				C.Z3_interrupt(s.ctx.c)
			}
			s.ctx.mu.Unlock()
		case <-done:
		}
	}()
	r := C.Z3_solver_check(s.ctx.c, s.s)
	close(done)
	wg.Wait()
	switch r {
	case C.Z3_L_TRUE:
		return Sat, nil
	case C.Z3_L_FALSE:
		return Unsat, nil
	}
	if err := ctx.Err(); err != nil {
		return Unknown, err
	}
	reason := C.GoString(C.Z3_solver_get_reason_unknown(s.ctx.c, s.s))
	if err := s.ctx.err(); err != nil {
		reason += ": " + err.Error()
	}
	return Unknown, errors.New("solver gave up: " + reason)
}

// Model is a satisfying assignment.
type Model struct {
	ctx *Context
	m   C.Z3_model
}

// Model returns the model of the last Sat check.
func (s *Solver) Model() *Model {
	m := C.Z3_solver_get_model(s.ctx.c, s.s)
	if m == nil {
		return nil
	}
	C.Z3_model_inc_ref(s.ctx.c, m)
	return &Model{ctx: s.ctx, m: m}
}

// Close frees the model.
func (m *Model) Close() { C.Z3_model_dec_ref(m.ctx.c, m.m) }

// Eval evaluates a term in the model (completing unassigned constants) and returns its
// text: "true", "false", an integer, or a rational "p/q" or decimal.
func (m *Model) Eval(t Term) (string, bool) {
	var out C.Z3_ast
	if !C.Z3_model_eval(m.ctx.c, m.m, t.a, true, &out) {
		return "", false
	}
	return C.GoString(C.Z3_ast_to_string(m.ctx.c, out)), true
}

// Bool evaluates a Boolean term in the model.
func (m *Model) Bool(t Term) (bool, bool) {
	var out C.Z3_ast
	if !C.Z3_model_eval(m.ctx.c, m.m, t.a, true, &out) {
		return false, false
	}
	switch C.Z3_get_bool_value(m.ctx.c, out) {
	case C.Z3_L_TRUE:
		return true, true
	case C.Z3_L_FALSE:
		return false, true
	}
	return false, false
}

// Number evaluates an integer or real term in the model, as a rational.
func (m *Model) Number(t Term) (*big.Rat, bool) {
	var out C.Z3_ast
	if !C.Z3_model_eval(m.ctx.c, m.m, t.a, true, &out) || !C.Z3_is_numeral_ast(m.ctx.c, out) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(C.GoString(C.Z3_get_numeral_string(m.ctx.c, out)))
	return r, ok
}
