package metric

import (
	"context"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Weights of the parts of the semantic similarity.
const (
	WeightTables       = 0.4
	WeightFilters      = 0.3
	WeightAggregations = 0.3
)

// SemanticSimilarity compares two query shapes, SQL or KQL alike:
//
//	score = 0.4·tables + 0.3·filters + 0.3·aggregations
//
// Each part is in [0,1], and a part absent from both shapes (no filters in either, say)
// counts as full agreement (1); present in one only, it is 0.
//
//   - tables: Jaccard index of the table names (as TableAccuracy).
//   - filters: the filters of clauses "where" and "having" (join conditions are left
//     out: they say how tables connect, which KQL writes differently). Each filter gives
//     a column key, its column name (normalised as a table name: no qualifier, lower
//     case), and a full key, column|operator|value, with operators unified (== =~ = are
//     "="; != <> !~ are "!="; others lower-cased) and the value unquoted, lower-cased and
//     numbers canonical. filters = ½·Jaccard(column keys) + ½·Jaccard(full keys), so the
//     right column compared with a wrong value earns half.
//   - aggregations: each aggregate gives a function key and a call key func(arg), with
//     functions lower-cased, count(DISTINCT x) and count_distinct(x) written dcount(x),
//     mean written avg, and the arguments normalised as column names; count() and
//     count(*) are both count(*). aggregations = ½·Jaccard(function keys) +
//     ½·Jaccard(call keys); when either query groups (GROUP BY, summarize … by), the
//     grouping columns are a third part: ⅓ each, so a missing grouping is penalised.
//     Boolean literals compare as numbers: active = true is active = 1.
//
// Details: tables, filters, aggregations (the three parts) and the keys compared.
func SemanticSimilarity(generated, expected *qeval.Shape) Result {
	if generated == nil {
		generated = &qeval.Shape{}
	}
	if expected == nil {
		expected = &qeval.Shape{}
	}
	ta := TableAccuracy(generated, expected.Tables)
	tables := *ta.Score

	gc, gf := filterKeys(generated.Filters)
	ec, ef := filterKeys(expected.Filters)
	filters := 0.5*jaccardKeys(gc, ec) + 0.5*jaccardKeys(gf, ef)

	gfn, gcall := aggregateKeys(generated.Aggregates)
	efn, ecall := aggregateKeys(expected.Aggregates)
	aggs := 0.5*jaccardKeys(gfn, efn) + 0.5*jaccardKeys(gcall, ecall)
	gg, eg := groupKeys(generated), groupKeys(expected)
	if len(gg) > 0 || len(eg) > 0 {
		aggs = (jaccardKeys(gfn, efn) + jaccardKeys(gcall, ecall) + jaccardKeys(gg, eg)) / 3
	}

	score := WeightTables*tables + WeightFilters*filters + WeightAggregations*aggs
	return Scored(score, map[string]any{
		"tables":                 tables,
		"filters":                filters,
		"aggregations":           aggs,
		"generated_tables":       ta.Details["generated_tables"],
		"expected_tables":        ta.Details["expected_tables"],
		"generated_filters":      gf,
		"expected_filters":       ef,
		"generated_aggregations": gcall,
		"expected_aggregations":  ecall,
		"generated_group_by":     gg,
		"expected_group_by":      eg,
	})
}

// groupKeys are the grouping columns of a shape, a position (GROUP BY 1) read as the
// output column it names.
func groupKeys(s *qeval.Shape) []string {
	out := make([]string, 0, len(s.GroupBy))
	for _, c := range s.GroupBy {
		if n, err := strconv.Atoi(strings.TrimSpace(c)); err == nil && n >= 1 && n <= len(s.Output) {
			c = s.Output[n-1]
		}
		out = append(out, normName(c))
	}
	return out
}

func filterKeys(fs []qeval.Filter) (cols, full []string) {
	cols, full = []string{}, []string{}
	for _, f := range fs {
		if strings.EqualFold(f.Clause, "join") {
			continue
		}
		c := normName(f.Column)
		cols = append(cols, c)
		full = append(full, c+"|"+normOp(f.Operator)+"|"+normLiteral(f.Value))
	}
	return cols, full
}

func normOp(op string) string {
	op = strings.ToLower(strings.Join(strings.Fields(op), " "))
	switch op {
	case "==", "=~", "=":
		return "="
	case "!=", "<>", "!~":
		return "!="
	}
	return op
}

func normLiteral(v string) string {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	if u := unquote(v); u != v && v[0] != '[' {
		return strings.ToLower(u)
	}
	return normText(v)
}

func aggregateKeys(as []qeval.Aggregate) (funcs, calls []string) {
	funcs, calls = []string{}, []string{}
	for _, a := range as {
		fn := strings.ToLower(strings.TrimSpace(a.Func))
		arg := strings.TrimSpace(a.Arg)
		if fn == "count" && len(arg) > 9 && strings.EqualFold(arg[:9], "distinct ") {
			fn, arg = "dcount", strings.TrimSpace(arg[9:])
		}
		if fn == "count_distinct" {
			fn = "dcount"
		}
		if fn == "mean" {
			fn = "avg"
		}
		if fn == "count" && arg == "" {
			arg = "*"
		}
		funcs = append(funcs, fn)
		calls = append(calls, fn+"("+normName(arg)+")")
	}
	return funcs, calls
}

func semanticSimilarity(_ context.Context, c *Case, _ *Options) (Result, error) {
	if c.Generated == "" && c.GeneratedShape == nil {
		return Skip("no generated query"), nil
	}
	if c.Expected == "" && c.ExpectedShape == nil {
		return Skip("no expected query"), nil
	}
	es, err := c.expectedShape()
	if err != nil {
		return Result{}, prefixError("parse expected query", err)
	}
	gs, err := c.generatedShape()
	if err != nil {
		return shapeFailure(opParseGenerated, err)
	}
	return SemanticSimilarity(gs, es), nil
}
