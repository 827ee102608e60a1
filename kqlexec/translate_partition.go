package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// partition translates T | partition by Key (subquery): the subquery runs on the rows
// of each key separately and the results are put together. Like mv-apply, it keeps
// the groups apart by a hidden column that aggregation, sorting and limits honour
// (translator.part), so the key need not survive the subquery. The braced form, whose
// body is a whole query naming the key's value, is not translated.
func (t *translator) partition(in *rel, o *kql.PartitionOp, e *env) (*rel, error) {
	if t.part != "" {
		return nil, t.unsupported(o, "partition inside mv-apply or partition")
	}
	body, ok := o.Body.(*kql.PipeExpr)
	if !ok || body.Source != nil {
		return nil, t.unsupported(o, "partition with a braced body (a query per key value)")
	}
	key, err := t.expr(o.By, inScope(in, e))
	if err != nil {
		return nil, err
	}
	const part = "\x00partition"
	gcols := append(append([]column(nil), in.cols...), column{part, key.t})
	g := t.stage(gcols, "SELECT "+strings.Join(append(selectCols(in), key.sql, "t._o"), ", ")+" FROM "+in.from+" t")
	t.part = part
	r := g
	for _, op := range body.Ops {
		if r, err = t.op(r, op, e); err != nil {
			t.part = ""
			return nil, err
		}
	}
	t.part = ""
	ri := r.index(part)
	if ri < 0 {
		return nil, t.unsupported(o, "this partition subquery")
	}
	var cols []column
	var sqls []string
	for i, c := range r.cols {
		if i != ri {
			cols = append(cols, c)
			sqls = append(sqls, "t."+colName(i))
		}
	}
	// the groups one after the other, each in its own order
	return t.stage(cols, "SELECT "+strings.Join(append(sqls, "row_number() OVER (ORDER BY t."+colName(ri)+", t._o)"), ", ")+" FROM "+r.from+" t"), nil
}
