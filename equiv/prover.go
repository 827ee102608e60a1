package equiv

import (
	"context"
	"fmt"
	"strings"
	"sync"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/verify"
	"github.com/qeval/qeval/z3"
)

// Prover is the complete check: verify.Prover over Z3.
type Prover struct {
	// MemoryBytes caps the solver's memory (qeval.DefaultMaxBytes when 0); it is Z3's
	// limit for the whole process, set on first use.
	MemoryBytes int64
}

var _ verify.Prover = Prover{}

var memoryOnce sync.Once

// Prove decides whether a database with up to r.Bound rows per table tells the two
// queries apart. It never panics: a construct outside the model is Unsupported, a
// solver that gives up (ctx's deadline, the memory cap) an Error.
func (p Prover) Prove(ctx context.Context, r verify.ProveRequest) (out verify.Proof) {
	if err := z3.Load(); err != nil {
		return verify.Proof{Unsupported: "the complete check: " + err.Error()}
	}
	memoryOnce.Do(func() {
		mb := p.MemoryBytes
		if mb <= 0 {
			mb = qeval.DefaultMaxBytes
		}
		z3.SetMemoryLimit(mb)
	})
	gs, err := parse(r.Gold)
	if err != nil {
		return verify.Proof{Unsupported: "the gold query is not read by the model's parser: " + err.Error()}
	}
	ps, err := parse(r.Pred)
	if err != nil {
		return verify.Proof{Unsupported: "the prediction is not read by the model's parser: " + err.Error()}
	}
	z := z3.NewContext()
	defer z.Close()
	defer func() {
		if v := recover(); v != nil {
			u, ok := v.(unsupported)
			if !ok {
				panic(v)
			}
			out = verify.Proof{Unsupported: u.what}
		}
	}()
	return prove(ctx, z, r, gs, ps)
}

func parse(q string) (*rq.SelectStatement, error) {
	st, err := rq.NewParser(strings.NewReader(strings.TrimRight(strings.TrimSpace(q), ";"))).ParseStatement()
	if err != nil {
		return nil, err
	}
	s, ok := st.(*rq.SelectStatement)
	if !ok {
		return nil, fmt.Errorf("not a SELECT")
	}
	return s, nil
}

func prove(ctx context.Context, z *z3.Context, r verify.ProveRequest, gs, ps *rq.SelectStatement) verify.Proof {
	if r.Bound < 1 {
		fail("a bound below 1")
	}
	if r.Rule != verify.RuleSpider && r.Rule != verify.RuleSet {
		fail("the comparison rule %q", r.Rule)
	}
	m := newModel(z, r.Schema.Tables, r.Bound)
	e := &enc{m: m}
	e.inGold = true
	g := e.query(gs, nil)
	e.inGold = false
	p := e.query(ps, nil)
	ordered := r.Ordered
	if ordered && (g.pos == nil || p.pos == nil) {
		// Spider compares in order when the gold says ORDER BY anywhere. Where the
		// results differ as bags they differ as lists, and one row has no order; the
		// model knows no other order of rows, so equal bags of several rows make the
		// pair unsupported
		var several []z3.Term
		for i := range g.rows {
			for j := i + 1; j < len(g.rows); j++ {
				several = append(several, z.And(g.rows[i].exists, g.rows[j].exists))
			}
		}
		e.obligations = append(e.obligations, obligation{"rows compared in order (the gold says ORDER BY), but a query's outer SELECT has no ORDER BY and can return several rows equal to the other's",
			z.And(z.Or(several...), e.equal(g, p, false)).Not()})
		ordered = false
	}
	assume := e.assumptions
	note := "values of each column's declared type"
	if len(assume) > 0 {
		note += "; no tie in the gold's ORDER BY where it matters"
	}
	eq := e.equal(g, p, ordered)
	if r.Rule == verify.RuleSet {
		eq = e.setEqual(g, p)
	}
	m.assignTexts()
	s := z.NewSolver()
	defer s.Close()
	for _, f := range m.facts {
		s.Assert(f)
	}
	for _, a := range assume {
		s.Assert(a)
	}
	// the obligations, each kind at once: a database breaking one makes the pair
	// unsupported
	byWhat := map[string][]z3.Term{}
	var order []string
	for _, o := range e.obligations {
		if _, ok := byWhat[o.what]; !ok {
			order = append(order, o.what)
		}
		byWhat[o.what] = append(byWhat[o.what], o.hold)
	}
	for _, what := range order {
		s.Push()
		s.Assert(z.And(byWhat[what]...).Not())
		res, err := s.Check(ctx)
		s.Pop()
		switch {
		case err != nil:
			return verify.Proof{Error: err.Error()}
		case res == z3.Sat:
			return verify.Proof{Unsupported: what}
		}
	}
	// a quick proof first: the same rows in the same places (the queries differ in
	// spelling, aliases, the order of conditions)
	if len(g.cols) == len(p.cols) {
		orders := perms(len(g.cols))
		if r.Rule == verify.RuleSet {
			orders = orders[:0]
			orders = append(orders, identity(len(g.cols)))
		}
		for _, perm := range orders {
			if !kindsFit(g, p, perm) {
				continue
			}
			same := e.sameRows(g, p, ordered, perm)
			if same == nil {
				break
			}
			s.Push()
			s.Assert(same.Not())
			res, err := s.Check(ctx)
			s.Pop()
			if err == nil && res == z3.Unsat {
				return verify.Proof{Equivalent: true, Note: "assumes " + note}
			}
		}
	}
	s.Assert(eq.Not())
	res, err := s.Check(ctx)
	switch {
	case err != nil:
		return verify.Proof{Error: err.Error()}
	case res == z3.Unsat:
		return verify.Proof{Equivalent: true, Note: "assumes " + note}
	case res == z3.Sat:
		pr := verify.Proof{Differ: true}
		if md := s.Model(); md != nil {
			pr.Rows = m.realize(md)
			md.Close()
		}
		return pr
	}
	return verify.Proof{Error: "the solver could not decide"}
}
