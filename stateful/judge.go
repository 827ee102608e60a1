package stateful

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// judge compares what the two sides left and sets the verdict: match only when every
// check, table and definition agrees and the cost is within the bound.
func judge(ctx context.Context, v *qeval.Verdict, c Case, pl plan, g, p *sideRun, opt Options) {
	st := v.State
	for i, q := range pl.checks {
		co := qeval.CheckOutcome{Index: i + 1, Query: q}
		_, _, ordered := opt.Mode.Prepare(q, q, compare.Options{})
		switch {
		case p.checkErrs[i] != "":
			co.Error = p.checkErrs[i]
		default:
			co.Equal = opt.Mode.Equal(g.checks[i], p.checks[i], ordered)
			if !co.Equal && !opt.NoExplanations {
				x := compare.Explain(opt.Mode, g.checks[i], p.checks[i], ordered)
				co.Explanation = &x
			}
			if !co.Equal && v.Gold == nil {
				v.Gold, v.Pred = g.checks[i], p.checks[i] // the first check that differs, for the report
			}
		}
		st.Checks = append(st.Checks, co)
	}
	if g.present != nil {
		st.Tables = diffTables(ctx, g, p, pl.state)
	}
	if pl.schema {
		st.SchemaCompared = true
		st.Schema = diffSchemas(g.defs, p.defs)
	}
	if pl.result {
		_, _, ordered := opt.Mode.Prepare(g.lastStmt, p.lastStmt, compare.Options{})
		x := qeval.Explanation{Equal: opt.Mode.Equal(g.last, p.last, ordered)}
		if !x.Equal {
			x = compare.Explain(opt.Mode, g.last, p.last, ordered)
			x.Equal = false
		}
		st.Result = &x
		v.Gold, v.Pred = g.last, p.last
	}
	if c.Efficiency != nil {
		st.Cost = &qeval.CostComparison{Unit: g.costUnit, Gold: g.cost, Pred: p.cost, MaxRatio: c.Efficiency.MaxRatio,
			Within: p.cost <= g.cost*c.Efficiency.MaxRatio}
	}
	if p.outcome != "" { // the answer ran; a description failed after it
		return
	}
	v.Match = st.Equal() && (st.Cost == nil || st.Cost.Within)
	v.Outcome = qeval.OutcomeMatch
	if !v.Match {
		v.Outcome = qeval.OutcomeMismatch
	}
}

// diffTables compares the tables each side left: the ones named, or every table
// either side has. A table whose two digests agree is equal without reading its rows.
func diffTables(ctx context.Context, g, p *sideRun, state *qeval.StateCompare) []qeval.TableDiff {
	ordered := state != nil && state.Ordered
	var names []string
	if state != nil && !state.All {
		names = state.Tables
	} else {
		seen := map[string]bool{}
		for _, m := range []map[string]bool{g.present, p.present} {
			for n := range m {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		sort.Strings(names)
	}
	var out []qeval.TableDiff
	for _, n := range names {
		key := strings.ToLower(n)
		d := qeval.TableDiff{Table: displayName(n, g.defs, p.defs), Ordered: ordered}
		gok, pok := g.present[key], p.present[key]
		if gok && pok && (g.stored[key] != "" && g.stored[key] == p.stored[key] ||
			g.fingerprint(ctx, key) != "" && g.fingerprint(ctx, key) == p.fingerprint(ctx, key)) {
			d.Equal = true
			d.GoldRows, d.PredRows = g.counts[key], p.counts[key]
			out = append(out, d)
			continue
		}
		var gr, pr *qeval.ResultSet
		var gerr, perr error
		if gok {
			gr, gerr = g.rows(ctx, n)
		}
		if pok {
			pr, perr = p.rows(ctx, n)
		}
		d.GoldRows, d.PredRows = gr.NumRows(), pr.NumRows()
		switch {
		case gerr != nil || perr != nil:
			d.Note = "its rows could not be read: " + qeval.ErrorMessage(errors.Join(gerr, perr))
		case !gok && !pok:
			d.Equal = true
			d.Note = "neither answer left it"
		case !pok:
			d.Note = fmt.Sprintf("missing after the generated answer (the gold left %d rows)", gr.NumRows())
		case !gok:
			d.Note = fmt.Sprintf("not left by the gold (the generated answer left %d rows)", pr.NumRows())
		default:
			d = compare.DiffTable(d.Table, gr, pr, keyColumns(n, g.defs, gr), ordered)
		}
		out = append(out, d)
	}
	return out
}

// displayName is a table's name as the gold's definitions spell it (else the other's).
func displayName(n string, defs ...[]qeval.TableDefinition) string {
	for _, ds := range defs {
		for _, d := range ds {
			if strings.EqualFold(d.Name, n) {
				return d.Name
			}
		}
	}
	return n
}

// keyColumns are the positions of a table's primary key columns in its rows.
func keyColumns(table string, defs []qeval.TableDefinition, rs *qeval.ResultSet) []int {
	for _, d := range defs {
		if !strings.EqualFold(d.Name, table) {
			continue
		}
		var out []int
		cols := rs.ColumnNames()
		for _, k := range d.PrimaryKey {
			for i, c := range cols {
				if strings.EqualFold(c, k) {
					out = append(out, i)
				}
			}
		}
		if len(out) != len(d.PrimaryKey) {
			return nil
		}
		return out
	}
	return nil
}

// diffSchemas says how two sets of table definitions differ, one phrase per
// difference ("" when none).
func diffSchemas(gold, pred []qeval.TableDefinition) []string {
	var out []string
	byName := func(defs []qeval.TableDefinition) map[string]qeval.TableDefinition {
		m := map[string]qeval.TableDefinition{}
		for _, d := range defs {
			m[strings.ToLower(d.Name)] = d
		}
		return m
	}
	gm, pm := byName(gold), byName(pred)
	for _, g := range gold {
		p, ok := pm[strings.ToLower(g.Name)]
		if !ok {
			out = append(out, "table "+g.Name+" is missing after the generated answer")
			continue
		}
		out = append(out, diffDefinition(g, p)...)
	}
	for _, p := range pred {
		if _, ok := gm[strings.ToLower(p.Name)]; !ok {
			out = append(out, "table "+p.Name+" was not left by the gold")
		}
	}
	return out
}

func diffDefinition(g, p qeval.TableDefinition) []string {
	var out []string
	cols := func(t qeval.TableDefinition) string {
		parts := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			parts[i] = strings.ToLower(c.Name) + " " + strings.ToUpper(c.Type)
			if c.NotNull {
				parts[i] += " NOT NULL"
			}
		}
		return strings.Join(parts, ", ")
	}
	lower := func(xs []string) string { return strings.ToLower(strings.Join(xs, ", ")) }
	for _, f := range []struct{ what, g, p string }{
		{"columns", cols(g), cols(p)},
		{"primary key", lower(g.PrimaryKey), lower(p.PrimaryKey)},
		{"indexes", lower(g.Indexes), lower(p.Indexes)},
		{"foreign keys", lower(g.ForeignKeys), lower(p.ForeignKeys)},
	} {
		if f.g != f.p {
			out = append(out, fmt.Sprintf("table %s: %s (%s) in the gold, (%s) after the generated answer", g.Name, f.what, f.g, f.p))
		}
	}
	return out
}
