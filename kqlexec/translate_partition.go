package kqlexec

import (
	"strconv"
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
		return t.partitionEach(in, o, e)
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

// maxPartitions bounds the key values a braced partition runs its query for.
const maxPartitions = 256

// partitionEach translates T | partition by Key { Query }: Query (which has its own
// source) runs once per distinct value of Key, reading the value as Key (or
// toscalar(Key)), and the results are put together in the order the values first
// appear. The values are read from the data while translating (at most
// maxPartitions).
// probeKeys reads the distinct values of column col of in from the data while
// translating, in the order they first appear (NULL left out when notNull); more than
// maxPartitions is unsupported (what names the construct).
func (t *translator) probeKeys(o kql.Node, in *rel, col string, notNull bool, what string) ([][]any, error) {
	c := "t." + colName(in.index(col))
	where := ""
	if notNull {
		where = " WHERE " + c + " IS NOT NULL"
	}
	q := "SELECT " + c + " FROM " + in.from + " t" + where + " GROUP BY 1 ORDER BY min(t._o) LIMIT " + strconv.Itoa(maxPartitions+1)
	if len(t.ctes) > 0 {
		q = "WITH RECURSIVE " + strings.Join(t.ctes, ",\n") + "\n" + q
	}
	rows, err := t.probe(q)
	if err != nil {
		return nil, err
	}
	if len(rows) > maxPartitions {
		return nil, t.unsupported(o, what+" of more than "+strconv.Itoa(maxPartitions)+" key values")
	}
	return rows, nil
}

func (t *translator) partitionEach(in *rel, o *kql.PartitionOp, e *env) (*rel, error) {
	id, ok := o.By.(*kql.Ident)
	if !ok || in.index(id.Name) < 0 {
		return nil, t.errAt(o.By, "partition by needs a column of the input")
	}
	if t.probe == nil {
		return nil, t.unsupported(o, "partition with a braced body without an engine")
	}
	ci := in.index(id.Name)
	rows, err := t.probeKeys(o, in, id.Name, false, "a braced partition")
	if err != nil {
		return nil, err
	}
	parts := e.child()
	u := &kql.UnionOp{}
	for i, r := range rows {
		inner := e.child()
		x := expr{sql: sqlValue(r[0]), t: in.cols[ci].Type}
		inner.binds[id.Name] = &binding{scalar: &x}
		res, err := t.subquery(o.Body, inner)
		if err != nil {
			return nil, err
		}
		name := "__partition" + strconv.Itoa(i)
		parts.binds[name] = &binding{rel: res}
		u.Tables = append(u.Tables, &kql.Ident{Name: name})
	}
	if len(u.Tables) == 0 {
		// no key value: the query's columns, no rows
		inner := e.child()
		x := expr{sql: "NULL", t: in.cols[ci].Type}
		inner.binds[id.Name] = &binding{scalar: &x}
		res, err := t.subquery(o.Body, inner)
		if err != nil {
			return nil, err
		}
		return t.stage(res.cols, "SELECT "+strings.Join(append(selectCols(res), "t._o"), ", ")+" FROM "+res.from+" t WHERE 0"), nil
	}
	return t.union(nil, u, parts)
}

// subquery translates a query that may be a braced block of let statements and one
// tabular expression.
func (t *translator) subquery(x kql.Expr, e *env) (*rel, error) {
	b, ok := x.(*kql.Block)
	if !ok {
		return t.tabular(x, e)
	}
	last, err := t.blockQuery(b, e)
	if err != nil {
		return nil, err
	}
	if last == nil {
		return nil, t.errAt(x, "the subquery has no tabular expression")
	}
	return t.tabular(last, e)
}
