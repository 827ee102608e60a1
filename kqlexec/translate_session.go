package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/kql"
)

// windowSessionItem returns the index of the first extend item that is
// Name = row_window_session(...), or -1.
func windowSessionItem(items []kql.Expr) int {
	for i, it := range items {
		n, ok := it.(*kql.NamedExpr)
		if !ok || len(n.Names) != 1 {
			continue
		}
		if c, ok := n.Value.(*kql.Call); ok && strings.EqualFold(c.Name(), "row_window_session") {
			return i
		}
	}
	return -1
}

// prevCall is prev(Column) in a restart predicate: the previous row's value.
var prevCall = lazyregexp.New(`\bprev\(\s*(\['[^']*'\]|[A-Za-z_][A-Za-z0-9_]*)\s*\)`)

// extendWindowSession translates an extend whose item i is
//
//	Name = row_window_session(Expr, MaxDistanceFromFirst, MaxDistanceBetweenNeighbors [, Restart])
//
// on a serialized row set: each row gets the Expr value of the row that started its
// session, and a new session starts when Expr is more than MaxDistanceFromFirst past
// the session's first value, more than MaxDistanceBetweenNeighbors past the previous
// row's, or Restart holds. A session depends on where the last one started, so it is
// written as a one-step scan whose state keeps the session start and the previous
// value; prev(Column) in Restart reads the previous row from the scan's state. The
// items before and after are extended around it, in order.
func (t *translator) extendWindowSession(in *rel, o *kql.ExtendOp, i int, e *env) (*rel, error) {
	item := o.Items[i].(*kql.NamedExpr)
	c := item.Value.(*kql.Call)
	if len(c.Args) < 3 || len(c.Args) > 4 {
		return nil, t.errAt(c, "row_window_session() takes Expr, MaxDistanceFromFirst, MaxDistanceBetweenNeighbors and an optional Restart")
	}
	cur := in
	if i > 0 {
		var err error
		if cur, err = t.project(in, o.Items[:i], e, true); err != nil {
			return nil, err
		}
	}
	x, err := t.expr(c.Args[0], &scope{env: e, cols: cur.cols})
	if err != nil {
		return nil, err
	}
	ty := x.t
	if ty == "" || ty == TDynamic {
		return nil, t.unsupported(c, "row_window_session() of a "+string(TDynamic)+" value")
	}
	restart := "false"
	if len(c.Args) == 4 {
		restart = prevCall.ReplaceAllString(kql.Format(c.Args[3]), "__rws.$1")
		if strings.Contains(restart, "prev(") || strings.Contains(restart, "next(") {
			return nil, t.unsupported(c, "row_window_session() with a restart predicate other than prev(Column) comparisons")
		}
	}
	name := quoteName(item.Names[0].Name)
	val := "(" + kql.Format(c.Args[0]) + ")"
	src := "__input | scan declare (" + name + ": " + string(ty) + ", __rws_prev: " + string(ty) + ") with (step __rws: true => " +
		name + " = iff(isnull(__rws." + name + ") or coalesce(" + restart + ", false) or " +
		val + " - __rws." + name + " > (" + kql.Format(c.Args[1]) + ") or " +
		val + " - __rws.__rws_prev > (" + kql.Format(c.Args[2]) + "), " + val + ", __rws." + name + "), __rws_prev = " + val + ";)" +
		" | project-away __rws_prev"
	out, err := t.viaKQL(c, cur, e, src)
	if err != nil {
		return nil, err
	}
	if rest := o.Items[i+1:]; len(rest) > 0 {
		return t.tabularExtend(out, rest, e)
	}
	return out, nil
}

// tabularExtend extends in with items, as an extend operator does (an item that is a
// row_window_session call included).
func (t *translator) tabularExtend(in *rel, items []kql.Expr, e *env) (*rel, error) {
	if i := windowSessionItem(items); i >= 0 {
		return t.extendWindowSession(in, &kql.ExtendOp{Items: items}, i, e)
	}
	return t.project(in, items, e, true)
}
