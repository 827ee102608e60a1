package z3_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/qeval/qeval/z3"
)

// TestMain skips every test, saying why, on a machine without Z3's library (.ci/run
// installs it).
func TestMain(m *testing.M) {
	if err := z3.Load(); err != nil {
		fmt.Println("skip: z3:", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSolver(t *testing.T) {
	ctx := z3.NewContext()
	defer ctx.Close()
	x, y := ctx.Real("x"), ctx.Real("y")
	s := ctx.NewSolver()
	defer s.Close()
	// x + y = 3, x > y, x integral: sat (e.g. x = 2, y = 1)
	s.Assert(ctx.And(x.Add(y).Eq(ctx.RealVal("3")), x.Gt(y), x.IsInt()))
	if r, err := s.Check(context.Background()); r != z3.Sat || err != nil {
		t.Fatalf("Check=%v, %v, want sat", r, err)
	}
	m := s.Model()
	xv, ok1 := m.Eval(x)
	yv, ok2 := m.Eval(y)
	m.Close()
	if !ok1 || !ok2 || xv == "" || yv == "" {
		t.Errorf("model x=%q y=%q", xv, yv)
	}
	// and x < y too: unsat
	s.Push()
	s.Assert(x.Lt(y))
	if r, err := s.Check(context.Background()); r != z3.Unsat || err != nil {
		t.Errorf("Check=%v, %v, want unsat", r, err)
	}
	s.Pop()
	// an uninterpreted predicate is free: p(x) and not p(y) with x = y is unsat
	p := ctx.Predicate("p")
	s.Assert(ctx.And(p(x), p(y).Not(), x.Eq(y)))
	if r, _ := s.Check(context.Background()); r != z3.Unsat {
		t.Errorf("Check=%v, want unsat", r)
	}
	// so is an uninterpreted function: f(1) = 2 and f(1) = 3 is unsat, f(1) = f(2) + 1 sat
	f := ctx.Function("f")
	one, two := ctx.RealVal("1"), ctx.RealVal("2")
	s2 := ctx.NewSolver()
	defer s2.Close()
	s2.Assert(f(one).Eq(f(two).Add(one)))
	if r, _ := s2.Check(context.Background()); r != z3.Sat {
		t.Errorf("Check=%v, want sat", r)
	}
	s2.Assert(ctx.And(f(one).Eq(two), f(one).Eq(ctx.RealVal("3"))))
	if r, _ := s2.Check(context.Background()); r != z3.Unsat {
		t.Errorf("Check=%v, want unsat", r)
	}
}

// TestSolver_Canceled: a context that ended stops the solver with its error.
func TestSolver_Canceled(t *testing.T) {
	ctx := z3.NewContext()
	defer ctx.Close()
	s := ctx.NewSolver()
	defer s.Close()
	c, cancel := context.WithCancel(context.Background())
	cancel()
	// a problem Z3 cannot decide at once: many products of integers
	var terms []z3.Term
	for i := 0; i < 12; i++ {
		v := ctx.Int("v")
		terms = append(terms, v.Mul(v).Mul(v).Eq(ctx.IntVal(int64(7919*i+3))))
	}
	s.Assert(ctx.And(terms...))
	r, err := s.Check(c)
	if r == z3.Unknown && err == nil || r == z3.Unknown && err != context.Canceled {
		t.Errorf("Check=%v, %v, want context.Canceled when undecided", r, err)
	}
}

func TestModel_Values(t *testing.T) {
	ctx := z3.NewContext()
	defer ctx.Close()
	x, b := ctx.Real("x"), ctx.Bool("b")
	s := ctx.NewSolver()
	defer s.Close()
	s.Assert(ctx.And(x.Mul(ctx.RealVal("2")).Eq(ctx.RealVal("-3")), b))
	if r, err := s.Check(context.Background()); r != z3.Sat || err != nil {
		t.Fatalf("Check=%v, %v", r, err)
	}
	m := s.Model()
	defer m.Close()
	if v, ok := m.Number(x); !ok || v.String() != "-3/2" {
		t.Errorf("x=%v, %v, want -3/2", v, ok)
	}
	if v, ok := m.Bool(b); !ok || !v {
		t.Errorf("b=%v, %v, want true", v, ok)
	}
}
