package compare

import (
	"strconv"

	"github.com/qeval/qeval"
)

// Mode is one comparison semantics.
type Mode struct {
	Name    string
	Version int
	// Doc says in one paragraph what the mode compares.
	Doc string
	// Rewrite prepares the gold and predicted query texts before execution; nil keeps
	// them as they are.
	Rewrite func(gold, pred string, o Options) (string, string)
	// OrderMatters reports whether row order is compared, given the gold query as
	// rewritten.
	OrderMatters func(gold string) bool
	// Equal compares a gold and a predicted result.
	Equal func(gold, pred *qeval.ResultSet, orderMatters bool) bool
	// Replaced, for a retired mode, names the mode that replaced it.
	Replaced string
}

// Options changes how a mode rewrites queries.
type Options struct {
	// KeepDistinct keeps DISTINCT in both queries (spider-ts removes it by default, as
	// the official evaluator does).
	KeepDistinct bool
}

// ID returns name@version, the form recorded in reports.
func (m Mode) ID() string { return m.Name + "@" + strconv.Itoa(m.Version) }

// Prepare applies the mode's rewrite (if any) and decides whether order matters.
func (m Mode) Prepare(gold, pred string, o Options) (g, p string, orderMatters bool) {
	g, p = gold, pred
	if m.Rewrite != nil {
		g, p = m.Rewrite(gold, pred, o)
	}
	if m.OrderMatters != nil {
		orderMatters = m.OrderMatters(g)
	}
	return g, p, orderMatters
}
