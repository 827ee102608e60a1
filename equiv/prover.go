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

// prove encodes both queries over one model with up to r.Bound rows per table and
// decides whether a database of it tells them apart under r.Rule. A construct outside
// the model panics with unsupported (see fail), which Prove recovers.
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
		e.requireRowOrder(g, p)
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
	if pr, broken := checkObligations(ctx, z, s, e.obligations); broken {
		return pr
	}
	if e.sameRowsProved(ctx, s, r.Rule, g, p, ordered) {
		return verify.Proof{Equivalent: true, Note: "assumes " + note}
	}
	return decide(ctx, s, m, eq, note)
}

// requireRowOrder adds the obligation that the results are not equal bags of several
// rows, for a pair compared in order where a query's outer SELECT has no ORDER BY.
// Spider compares in order when the gold says ORDER BY anywhere. Where the results
// differ as bags they differ as lists, and one row has no order; the model knows no
// other order of rows, so equal bags of several rows make the pair unsupported.
func (e *enc) requireRowOrder(g, p *relation) {
	z := e.m.ctx
	var several []z3.Term
	for i := range g.rows {
		for j := i + 1; j < len(g.rows); j++ {
			several = append(several, z.And(g.rows[i].exists, g.rows[j].exists))
		}
	}
	e.obligations = append(e.obligations, obligation{"rows compared in order (the gold says ORDER BY), but a query's outer SELECT has no ORDER BY and can return several rows equal to the other's",
		z.And(z.Or(several...), e.equal(g, p, false)).Not()})
}

// checkObligations asks the solver for a database that breaks the obligations, each
// kind at once, in the order the kinds first arose: a database breaking one makes the
// pair unsupported, named by that kind, and a solver that gives up ends the check
// with an Error. done is false when every obligation holds.
func checkObligations(ctx context.Context, z *z3.Context, s *z3.Solver, obligations []obligation) (pr verify.Proof, done bool) {
	byWhat := map[string][]z3.Term{}
	var order []string
	for _, o := range obligations {
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
			return verify.Proof{Error: err.Error()}, true
		case res == z3.Sat:
			return verify.Proof{Unsupported: what}, true
		}
	}
	return verify.Proof{}, false
}

// sameRowsProved is the quick proof tried before the full one: it reports whether the
// solver proves that both results have the same rows in the same places (see
// sameRows) for some column order of fitting kinds — the columns' own order under
// RuleSet. It holds when the queries differ only in spelling, aliases, the order of
// conditions; false (a solver error included) leaves the pair to decide.
func (e *enc) sameRowsProved(ctx context.Context, s *z3.Solver, rule string, g, p *relation, ordered bool) bool {
	if len(g.cols) != len(p.cols) {
		return false
	}
	orders := perms(len(g.cols))
	if rule == verify.RuleSet {
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
			return true
		}
	}
	return false
}

// decide asks the solver for a database on which the results are not equal (eq):
// none proves the pair equivalent, assuming note; one makes them differ, with the
// rows of that database.
func decide(ctx context.Context, s *z3.Solver, m *model, eq z3.Term, note string) verify.Proof {
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
