package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// sessionCount is evaluate session_count(Id, Timeline, Start, End, Bin, LookBack
// [, dims…]), written as KQL: an id's row starts a session when the id (with the
// same dimensions) has no row in the LookBack before it; each bin of Timeline
// (bin(Timeline, Bin), from Start to End) counts the sessions that start in it.
// The session-count page's example, ids appearing every Id slots with a look-back
// of 41, counts every row of the ids above 41 and one of each other, as its chart
// shows. Bins where no session starts are left out.
func (t *translator) sessionCount(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	args, id, tl, err := t.activityPrologue(in, o, 6, "session_count(IdColumn, TimelineColumn, Start, End, Bin, LookBackWindow [, dims…]) takes 6 arguments or more")
	if err != nil {
		return nil, err
	}
	if err := t.calendarWindow(args[4], "session_count"); err != nil {
		return nil, err
	}
	dims, err := t.columnArgs(in, "session_count dimensions", args[6:]...)
	if err != nil {
		return nil, err
	}
	p := argText(args)
	start, end, bin, look := p(2), p(3), p(4), p(5)
	keys := append(append([]string(nil), dims...), "__id")
	same := make([]string, len(keys))
	for i, k := range keys {
		same[i] = k + " == prev(" + k + ")"
	}
	src := "__input | project __id = " + id + ", __t = " + tl + joinDims(dims) +
		" | where isnotnull(__t) and __t >= " + start + " and __t <= " + end +
		" | sort by " + strings.Join(keys, " asc, ") + " asc, __t asc" +
		" | extend __new = not(" + strings.Join(same, " and ") + " and __t - prev(__t) <= " + look + ")" +
		" | where __new" +
		" | summarize count_sessions = count() by " + tl + " = bin(__t, " + bin + ")" + joinDims(dims)
	return t.viaKQL(o, in, e, src)
}
