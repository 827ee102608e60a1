package kqlexec

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// scanSteps translates a scan of several steps, following Kusto's matching logic.
// Each step s_k has a state: empty, or the records of s_1..s_k of one sequence (the
// input columns and declared variables of the row each step last matched) and the
// sequence's match id. Every row is checked against the steps from the last to the
// first:
//
//   - Check 1: the state of s_k-1 is not empty and the row meets s_k's condition,
//     read against that state: s_k-1's state moves to s_k (s_k-1 is left empty), the
//     row, extended by s_k's assignments, becomes s_k's record and is output.
//   - Check 2 (when Check 1 did not match): s_k's state is not empty, or s_k is the
//     first step, and the row meets s_k's condition read against s_k's own state: the
//     extended row replaces s_k's record and is output unless the step says
//     output=none. A first step whose state was empty starts a sequence with the
//     next match id.
//
// Unassigned declared variables keep the value of the state's latest record (their
// default in a new sequence). It is a recursive common table expression, one input
// row per level, whose row carries every step's state and what each step outputs;
// the outputs are then unfolded, a row's in the order its steps were checked.
// A step with output=last outputs only the last row of each series of its matches (a
// series starts with Check 1, or a new sequence of the first step, and goes on with
// Check 2): each row records how it matched each step, and a row is output when the
// step's next match does not continue its series.
func (t *translator) scanSteps(in *rel, o *kql.ScanOp, e *env, ord *rel, vars []scanVar, matchID string) (*rel, error) {
	steps := o.Steps
	K := len(steps)
	n := len(in.cols)
	nf := n + len(vars) // a record: the input columns, then the variables
	seen := map[string]bool{}
	outputs := make([]string, K) // all, none or last
	for k, st := range steps {
		if seen[st.Name.Name] {
			return nil, t.errAt(st, "scan has two steps named %s", st.Name.Name)
		}
		seen[st.Name.Name] = true
		outputs[k] = "all"
		if out := opParam(st.Params, "output"); out != nil {
			switch o := strings.ToLower(kql.Format(out)); o {
			case "none", "all", "last":
				outputs[k] = o
			default:
				return nil, t.errAt(out, "a scan step's output is all, last or none, not %s", kql.Format(out))
			}
		}
	}
	fieldType := func(f int) Type {
		if f < n {
			return in.cols[f].Type
		}
		return vars[f-n].t
	}
	fieldName := func(f int) string {
		if f < n {
			return in.cols[f].Name
		}
		return vars[f-n].name
	}
	// column names of the recursive stage
	act := func(k int) string { return "a" + strconv.Itoa(k) }
	seq := func(k int) string { return "i" + strconv.Itoa(k) }
	rec := func(k, j, f int) string { return "x" + strconv.Itoa(k) + "_" + strconv.Itoa(j) + "_" + strconv.Itoa(f) }
	outFlag := func(k int) string { return "o" + strconv.Itoa(k) }
	outSeq := func(k int) string { return "q" + strconv.Itoa(k) }
	outVar := func(k, v int) string { return "e" + strconv.Itoa(k) + "_" + strconv.Itoa(v) }

	// level builds one SELECT; prev reads a column of the state before the row (nil:
	// the empty state of the first row)
	level := func(from string, prev func(col string) string) (string, error) {
		p := func(col, empty string) string {
			if prev == nil {
				return empty
			}
			return prev(col)
		}
		// stateOf gives the step-name scope of a state: the records of steps 0..last,
		// each field guarded by live; a column of an empty state (or of a later step)
		// is NULL, a declared variable its default
		stateOf := func(k, last int, live string) map[string]map[string]expr {
			m := map[string]map[string]expr{}
			for j, st := range steps {
				fields := map[string]expr{}
				for f := 0; f < nf; f++ {
					absent := "NULL"
					if f >= n {
						absent = vars[f-n].def.sql
					}
					x := expr{sql: absent, t: fieldType(f)}
					if j <= last {
						x.sql = "(CASE WHEN " + live + " THEN " + p(rec(k, j, f), "NULL") + " ELSE " + absent + " END)"
					}
					fields[fieldName(f)] = x
				}
				m[st.Name.Name] = fields
			}
			return m
		}
		type check struct {
			cond    string
			assigns map[string]expr
		}
		eval := func(st *kql.ScanStep, state map[string]map[string]expr) (check, error) {
			sc := &scope{env: e, cols: in.cols, alias: "o", steps: state}
			c := check{cond: "1", assigns: map[string]expr{}}
			if st.Cond != nil {
				x, err := t.expr(st.Cond, sc)
				if err != nil {
					return c, err
				}
				c.cond = "coalesce(" + coerce(x, TBool).sql + ", 0)"
			}
			for _, a := range st.Assigns {
				names, val := itemParts(a)
				if len(names) != 1 {
					return c, t.errAt(a, "a scan assignment sets one variable")
				}
				known := false
				for _, v := range vars {
					known = known || v.name == names[0]
				}
				if !known {
					return c, t.errAt(a, "scan assigns %q, which is not declared", names[0])
				}
				x, err := t.expr(val, sc)
				if err != nil {
					return c, err
				}
				c.assigns[names[0]] = x
			}
			return c, nil
		}
		active := make([]string, K)
		for k := range steps {
			active[k] = "(" + p(act(k), "0") + " = 1)"
		}
		// Check 1 of each step (against the state of the step before)
		m1 := make([]string, K)
		c1 := make([]check, K)
		for k, st := range steps {
			if k == 0 {
				m1[k] = "0"
				continue
			}
			c, err := eval(st, stateOf(k-1, k-1, active[k-1]))
			if err != nil {
				return "", err
			}
			c1[k] = c
			m1[k] = "(" + active[k-1] + " AND " + c.cond + ")"
		}
		// a state is live for its own Check 2 when it was active and the next step's
		// Check 1 did not take it
		live := make([]string, K)
		m2 := make([]string, K)
		c2 := make([]check, K)
		for k := K - 1; k >= 0; k-- {
			live[k] = active[k]
			if k+1 < K {
				live[k] = "(" + active[k] + " AND NOT " + m1[k+1] + ")"
			}
			c, err := eval(steps[k], stateOf(k, k, live[k]))
			if err != nil {
				return "", err
			}
			c2[k] = c
			eligible := live[k]
			if k == 0 {
				eligible = "1"
			}
			m2[k] = "(NOT " + m1[k] + " AND " + eligible + " AND " + c.cond + ")"
		}
		g := p("g", "-1")
		newSeq := "(" + m2[0] + " AND NOT " + live[0] + ")"
		var sels []string
		for i := range in.cols {
			sels = append(sels, "o."+colName(i))
		}
		// each step's extended row: its variables, and its sequence's id
		ext := make([][]string, K)
		ids := make([]string, K)
		for k := range steps {
			ext[k] = make([]string, len(vars))
			for v, vr := range vars {
				carry2 := "(CASE WHEN " + live[k] + " THEN " + p(rec(k, k, n+v), "NULL") + " ELSE " + vr.def.sql + " END)"
				via2 := carry2
				if x, ok := c2[k].assigns[vr.name]; ok {
					via2 = coerce(x, vr.t).sql
				}
				if k == 0 {
					ext[k][v] = via2
					continue
				}
				via1 := p(rec(k-1, k-1, n+v), "NULL")
				if x, ok := c1[k].assigns[vr.name]; ok {
					via1 = coerce(x, vr.t).sql
				}
				ext[k][v] = "(CASE WHEN " + m1[k] + " THEN " + via1 + " ELSE " + via2 + " END)"
			}
			if k == 0 {
				ids[k] = "(CASE WHEN " + live[0] + " THEN " + p(seq(0), "NULL") + " ELSE " + g + " + 1 END)"
			} else {
				ids[k] = "(CASE WHEN " + m1[k] + " THEN " + p(seq(k-1), "NULL") + " ELSE " + p(seq(k), "NULL") + " END)"
			}
		}
		// the states after the row
		for k := range steps {
			matched := "(" + m1[k] + " OR " + m2[k] + ")"
			cleared := "0"
			if k+1 < K {
				cleared = m1[k+1]
			}
			sels = append(sels, "(CASE WHEN "+matched+" THEN 1 WHEN "+cleared+" THEN 0 ELSE "+p(act(k), "0")+" END)")
			sels = append(sels, "(CASE WHEN "+matched+" THEN "+ids[k]+" ELSE "+p(seq(k), "NULL")+" END)")
			for j := 0; j <= k; j++ {
				for f := 0; f < nf; f++ {
					switch {
					case j < k && k > 0:
						sels = append(sels, "(CASE WHEN "+m1[k]+" THEN "+p(rec(k-1, j, f), "NULL")+" ELSE "+p(rec(k, j, f), "NULL")+" END)")
					case f < n:
						sels = append(sels, "(CASE WHEN "+matched+" THEN o."+colName(f)+" ELSE "+p(rec(k, j, f), "NULL")+" END)")
					default:
						sels = append(sels, "(CASE WHEN "+matched+" THEN "+ext[k][f-n]+" ELSE "+p(rec(k, j, f), "NULL")+" END)")
					}
				}
			}
		}
		sels = append(sels, "("+g+" + (CASE WHEN "+newSeq+" THEN 1 ELSE 0 END))")
		// what each step outputs for this row: 1 (all) or nothing (none); for last,
		// how the row matched: 1 starts a series, 2 continues one
		for k := range steps {
			var out string
			switch outputs[k] {
			case "none":
				out = "0"
			case "all":
				out = "(CASE WHEN " + m1[k] + " OR " + m2[k] + " THEN 1 ELSE 0 END)"
			case "last":
				cont := "2"
				if k == 0 {
					cont = "(CASE WHEN " + live[0] + " THEN 2 ELSE 1 END)"
				}
				out = "(CASE WHEN " + m1[k] + " THEN 1 WHEN " + m2[k] + " THEN " + cont + " ELSE 0 END)"
			}
			sels = append(sels, out, ids[k])
			sels = append(sels, ext[k]...)
		}
		sels = append(sels, "o."+colName(n), "o._o")
		return "SELECT " + strings.Join(sels, ", ") + " FROM " + from, nil
	}
	cte := "s" + strconv.Itoa(t.n+1)
	base, err := level(ord.from+" o WHERE o."+colName(n)+" = 1", nil)
	if err != nil {
		return nil, err
	}
	join := "o." + colName(n) + " = r.rn + 1"
	if pi := in.index(t.part); t.part != "" && pi >= 0 {
		join += " AND o." + colName(pi) + " IS r.c" + strconv.Itoa(pi) // the group's own state
	}
	step, err := level(ord.from+" o JOIN "+cte+" r ON "+join, func(col string) string { return "r." + col })
	if err != nil {
		return nil, err
	}
	var head []string
	for i := range in.cols {
		head = append(head, "c"+strconv.Itoa(i))
	}
	for k := range steps {
		head = append(head, act(k), seq(k))
		for j := 0; j <= k; j++ {
			for f := 0; f < nf; f++ {
				head = append(head, rec(k, j, f))
			}
		}
	}
	head = append(head, "g")
	for k := range steps {
		head = append(head, outFlag(k), outSeq(k))
		for v := range vars {
			head = append(head, outVar(k, v))
		}
	}
	head = append(head, "rn", "_o")
	t.n++
	t.ctes = append(t.ctes, cte+"("+strings.Join(head, ",")+") AS ("+base+" UNION ALL "+step+")")

	// the output: per row, what each step output, from the last step to the first
	cols := append([]column(nil), in.cols...)
	varAt := make([]int, len(vars))
	for v, vr := range vars {
		if j := indexOf2(cols, vr.name); j >= 0 {
			cols[j] = column{vr.name, vr.t}
			varAt[v] = j
			continue
		}
		varAt[v] = len(cols)
		cols = append(cols, column{vr.name, vr.t})
	}
	if matchID != "" {
		cols = append(cols, column{matchID, TLong})
	}
	var parts []string
	for k := K - 1; k >= 0; k-- {
		sels := make([]string, len(cols))
		for i := range in.cols {
			sels[i] = "t.c" + strconv.Itoa(i)
		}
		for v := range vars {
			sels[varAt[v]] = "t." + outVar(k, v)
		}
		if matchID != "" {
			sels[len(cols)-1] = "t." + outSeq(k)
		}
		sels = append(sels, "t.rn * "+strconv.Itoa(K)+" + "+strconv.Itoa(K-1-k))
		if outputs[k] != "last" {
			parts = append(parts, "SELECT "+strings.Join(sels, ", ")+" FROM "+cte+" t WHERE t."+outFlag(k)+" = 1")
			continue
		}
		// the last row of each series: the step's next match does not continue it
		over := "ORDER BY t.rn"
		if pi := in.index(t.part); t.part != "" && pi >= 0 {
			over = "PARTITION BY t.c" + strconv.Itoa(pi) + " " + over
		}
		parts = append(parts, "SELECT "+strings.Join(sels, ", ")+" FROM (SELECT t.*, lead(t."+outFlag(k)+") OVER ("+over+") AS nk FROM "+cte+
			" t WHERE t."+outFlag(k)+" > 0) t WHERE coalesce(t.nk, 0) != 2")
	}
	return t.stage(cols, strings.Join(parts, " UNION ALL ")), nil
}
