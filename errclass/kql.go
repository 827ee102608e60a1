package errclass

import (
	"slices"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

// kqlOutline puts a KQL query's shape in the outline SQL queries are compared in, so
// one comparison serves both: where filters are conditions; summarize's aggregates
// (with its by keys as GROUP BY) or else the output columns are the result terms;
// sort/order by, take/limit/top, the distinct operator and the tables read (join and
// lookup as joins) are their SQL counterparts.
func kqlOutline(sh *qeval.Shape) *sqlparse.Outline {
	o := &sqlparse.Outline{Kind: sh.Kind, GroupBy: sh.GroupBy, Limit: sh.Limit,
		Distinct: slices.Contains(sh.Operators, "distinct")}
	joins := 0
	for _, op := range sh.Operators {
		if op == "join" || op == "lookup" {
			joins++
		}
	}
	for i, t := range sh.Tables {
		s := sqlparse.Source{Table: t}
		if i > 0 {
			s.Join = "union"
			if i <= joins {
				s.Join = "join"
			}
		}
		o.From = append(o.From, s)
	}
	for _, f := range sh.Filters {
		if f.Clause != "where" && f.Clause != "" {
			continue
		}
		text := strings.TrimSpace(f.Column + " " + f.Operator + " " + f.Value)
		o.Where = append(o.Where, sqlparse.Condition{Text: text, Left: f.Column, Op: f.Operator, Right: f.Value, Literal: f.Value != ""})
	}
	for range max(len(o.Where)-1, 0) {
		o.WhereOps = append(o.WhereOps, "and")
	}
	if len(sh.Aggregates) > 0 {
		for _, a := range sh.Aggregates {
			o.Select = append(o.Select, sqlparse.Term{Text: a.Func + "(" + a.Arg + ")", Aggs: []string{a.Func}, AggArgs: []string{a.Arg}})
		}
	} else {
		for _, c := range sh.Output {
			o.Select = append(o.Select, sqlparse.Term{Text: c})
		}
	}
	for _, t := range sh.OrderBy {
		o.OrderBy = append(o.OrderBy, sqlparse.Order{Term: sqlparse.Term{Text: t.Expr}, Desc: t.Desc})
	}
	return o
}
