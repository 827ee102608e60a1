package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// scan translates a one-step scan: the rows, in order, carry a state (the declared
// variables and the columns of the last row the step matched); a row that meets the
// step's condition updates the state by the step's assignments and is output with it.
//
//	T | scan declare (total:long=0) with (step s: true => total = x + s.total;)
//
// It is a recursive common table expression, one row per level. Conditions and
// assignments read the state as Step.Name. Sequences of several steps, partition by
// and order by are not translated.
func (t *translator) scan(in *rel, o *kql.ScanOp, e *env) (*rel, error) {
	if len(o.Steps) != 1 {
		return nil, t.unsupported(o, "scan with "+strconv.Itoa(len(o.Steps))+" steps")
	}
	if len(o.PartitionBy) > 0 || len(o.OrderBy) > 0 {
		return nil, t.unsupported(o, "scan with partition by or order by")
	}
	st := o.Steps[0]
	if out := opParam(st.Params, "output"); out != nil && kql.Format(out) == "none" {
		return nil, t.unsupported(o, "scan step with output=none")
	}
	matchID := ""
	if p := o.Param("with_match_id"); p != nil {
		id, ok := p.(*kql.Ident)
		if !ok {
			return nil, t.errAt(p, "with_match_id takes a column name")
		}
		matchID = id.Name
	}
	// the rows in order, numbered: c0..cN-1 the row, cN its number
	n := len(in.cols)
	ord := t.stage(append(append([]column(nil), in.cols...), column{"\x00rn", TLong}),
		"SELECT "+strings.Join(append(selectCols(in), "row_number() OVER (ORDER BY t._o)", "t._o"), ", ")+" FROM "+in.from+" t")

	// the declared variables: names, types, defaults
	type variable struct {
		name string
		t    Type
		def  expr
	}
	vars := make([]variable, len(o.Declare))
	for i, d := range o.Declare {
		ty, err := t.declType(d, d.Type, TDynamic)
		if err != nil {
			return nil, err
		}
		def := expr{sql: "NULL", t: ty}
		if d.Default != nil {
			x, err := t.expr(d.Default, &scope{env: e})
			if err != nil {
				return nil, err
			}
			def = coerce(x, ty)
		}
		vars[i] = variable{d.Name.Name, ty, def}
	}
	// the recursive stage's columns: the row (c0..), the variables, the state's copy
	// of the row, the matched flag, the row number
	cte := "s" + strconv.Itoa(t.n+1)
	rowCol := func(i int) string { return "c" + strconv.Itoa(i) }
	varCol := func(i int) string { return "v" + strconv.Itoa(i) }
	stCol := func(i int) string { return "p" + strconv.Itoa(i) }
	// level builds one SELECT: prev names the state's columns (nil: the initial state,
	// the declared defaults and no row)
	level := func(from string, prev func(col string) string) (string, error) {
		sc := &scope{env: e, cols: in.cols, alias: "o", steps: map[string]map[string]expr{}}
		state := map[string]expr{}
		for i, c := range in.cols {
			if prev == nil {
				state[c.Name] = expr{sql: "NULL", t: c.Type}
			} else {
				state[c.Name] = expr{sql: prev(stCol(i)), t: c.Type}
			}
		}
		for i, v := range vars {
			if prev == nil {
				state[v.name] = v.def
			} else {
				state[v.name] = expr{sql: prev(varCol(i)), t: v.t}
			}
		}
		sc.steps[st.Name.Name] = state
		cond := "1"
		if st.Cond != nil {
			c, err := t.expr(st.Cond, sc)
			if err != nil {
				return "", err
			}
			cond = "coalesce(" + coerce(c, TBool).sql + ", 0)"
		}
		sels := make([]string, 0, 2*n+len(vars)+3)
		for i := range in.cols {
			sels = append(sels, "o."+colName(i))
		}
		assigned := map[string]expr{}
		for _, a := range st.Assigns {
			names, val := itemParts(a)
			if len(names) != 1 {
				return "", t.errAt(a, "a scan assignment sets one variable")
			}
			x, err := t.expr(val, sc)
			if err != nil {
				return "", err
			}
			assigned[names[0]] = x
		}
		for _, v := range vars {
			keep := state[v.name].sql
			if x, ok := assigned[v.name]; ok {
				sels = append(sels, "CASE WHEN "+cond+" THEN "+coerce(x, v.t).sql+" ELSE "+keep+" END")
			} else {
				sels = append(sels, "CASE WHEN "+cond+" THEN "+keep+" ELSE "+keep+" END")
			}
			delete(assigned, v.name)
		}
		for name := range assigned {
			return "", t.errAt(st, "scan assigns %q, which is not declared", name)
		}
		for i := range in.cols {
			sels = append(sels, "CASE WHEN "+cond+" THEN o."+colName(i)+" ELSE "+state[in.cols[i].Name].sql+" END")
		}
		sels = append(sels, cond, "o."+colName(n), "o._o")
		return "SELECT " + strings.Join(sels, ", ") + " FROM " + from, nil
	}
	base, err := level(ord.from+" o WHERE o."+colName(n)+" = 1", nil)
	if err != nil {
		return nil, err
	}
	step, err := level(ord.from+" o JOIN "+cte+" r ON o."+colName(n)+" = r.rn + 1", func(col string) string { return "r." + col })
	if err != nil {
		return nil, err
	}
	var head []string
	for i := range in.cols {
		head = append(head, rowCol(i))
	}
	for i := range vars {
		head = append(head, varCol(i))
	}
	for i := range in.cols {
		head = append(head, stCol(i))
	}
	head = append(head, "m", "rn", "_o")
	t.n++
	t.ctes = append(t.ctes, cte+"("+strings.Join(head, ",")+") AS ("+base+" UNION ALL "+step+")")

	// the output: the matched rows with the variables (and the match number)
	cols := append([]column(nil), in.cols...)
	var sels []string
	for i := range in.cols {
		sels = append(sels, "t."+rowCol(i))
	}
	for i, v := range vars {
		if j := indexOf2(cols, v.name); j >= 0 {
			cols[j] = column{v.name, v.t}
			sels[j] = "t." + varCol(i)
			continue
		}
		cols = append(cols, column{v.name, v.t})
		sels = append(sels, "t."+varCol(i))
	}
	if matchID != "" {
		cols = append(cols, column{matchID, TLong})
		sels = append(sels, "(sum(t.m) OVER (ORDER BY t.rn ROWS UNBOUNDED PRECEDING) - 1)")
	}
	return t.stage(cols, "SELECT "+strings.Join(append(sels, "t._o"), ", ")+" FROM "+cte+" t WHERE t.m"), nil
}

func indexOf2(cols []column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// opParam returns the value of a named parameter in a list, or nil.
func opParam(ps []*kql.OpParam, name string) kql.Expr {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return nil
}
