package kqlexec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// schemaMerge translates T | evaluate schema_merge([PreserveOrder]): T holds schemas as
// getschema writes them (ColumnName, ColumnOrdinal, DataType, ColumnType; a schema
// starts again at ordinal 0), read in order while translating. The merged schema has
// each column once, in the order columns first appear (without PreserveOrder, in the
// order of the largest ordinal a schema gives them), numbered from 0. With
// PreserveOrder (the default) a column a later schema puts at another ordinal than the
// first schema that had it is reported as out of order (ordinal -1, ERROR types) and
// listed after the other columns.
// Columns of different types are not merged (unsupported: Kusto reduces some).
func (t *translator) schemaMerge(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	preserve := true
	if args := o.Plugin.Args; len(args) > 0 {
		x, err := t.expr(valueOf(args[0]), &scope{env: e})
		if err != nil {
			return nil, err
		}
		b, ok := x.lit.(bool)
		if !x.isLit || !ok {
			return nil, t.errAt(args[0], "schema_merge's PreserveOrder is true or false")
		}
		preserve = b
	}
	idx := map[string]int{}
	for _, n := range []string{"ColumnName", "ColumnOrdinal", "DataType", "ColumnType"} {
		if idx[n] = in.index(n); idx[n] < 0 {
			return nil, t.errAt(o, "schema_merge reads schemas as getschema writes them: the input has no column %s", n)
		}
	}
	if t.probe == nil {
		return nil, t.unsupported(o, "schema_merge without an engine")
	}
	q := "SELECT t." + colName(idx["ColumnName"]) + ", t." + colName(idx["ColumnOrdinal"]) + ", t." + colName(idx["DataType"]) + ", t." +
		colName(idx["ColumnType"]) + " FROM " + in.from + " t ORDER BY t._o LIMIT 10001"
	if len(t.ctes) > 0 {
		q = "WITH RECURSIVE " + strings.Join(t.ctes, ",\n") + "\n" + q
	}
	rows, err := t.probe(q)
	if err != nil {
		return nil, err
	}
	if len(rows) > 10000 {
		return nil, t.unsupported(o, "schema_merge of more than 10,000 columns")
	}
	type merged struct {
		name, dataType, colType string
		ordinal                 int64 // in the first schema that had it
		last                    int64 // the largest ordinal any schema gives it
		outOfOrder              bool
	}
	var cols []*merged
	byName := map[string]*merged{}
	for _, r := range rows {
		name := toString(decode(r[0], TString))
		ord, _ := toLong(decode(r[1], TLong))
		dt, ct := toString(decode(r[2], TString)), toString(decode(r[3], TString))
		m, seen := byName[name]
		if !seen {
			m = &merged{name: name, dataType: dt, colType: ct, ordinal: ord, last: ord}
			byName[name] = m
			cols = append(cols, m)
			continue
		}
		if !strings.EqualFold(m.colType, ct) {
			return nil, t.unsupported(o, "schema_merge of column "+name+" with types "+m.colType+" and "+ct)
		}
		if preserve && ord != m.ordinal {
			m.outOfOrder = true
		}
		if ord > m.last {
			m.last = ord
		}
	}
	if !preserve {
		// without PreserveOrder a column goes where its latest place puts it (the
		// schema_merge page: a column moved from 1 to 2 comes after the new column 1)
		sort.SliceStable(cols, func(i, j int) bool { return cols[i].last < cols[j].last })
	}
	out := []column{{"ColumnName", TString}, {"ColumnOrdinal", TLong}, {"DataType", TString}, {"ColumnType", TString}}
	if len(cols) == 0 {
		return t.stage(out, "SELECT NULL, NULL, NULL, NULL, 0 WHERE 0"), nil
	}
	// the columns out of order follow the others (the schema_merge page's example)
	var ordered []*merged
	for _, m := range cols {
		if !m.outOfOrder {
			ordered = append(ordered, m)
		}
	}
	for _, m := range cols {
		if m.outOfOrder {
			ordered = append(ordered, m)
		}
	}
	var vals []string
	n := 0
	for i, m := range ordered {
		ord, dt, ct := strconv.Itoa(n), m.dataType, m.colType
		if m.outOfOrder {
			ord, dt, ct = "-1", "ERROR(unknown CSL type:ERROR(columns are out of order))", "ERROR(columns are out of order)"
		} else {
			n++
		}
		vals = append(vals, "("+quote(m.name)+", "+ord+", "+quote(dt)+", "+quote(ct)+", "+strconv.Itoa(i)+")")
	}
	return t.stage(out, "VALUES "+strings.Join(vals, ", ")), nil
}
