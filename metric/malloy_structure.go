package metric

import (
	"context"
	"strings"

	"github.com/qeval/qeval"
)

// Names of the Malloy metrics.
const (
	NameMalloyStructure = "malloy_structure"
	NameModelReuse      = "model_reuse"
)

// MalloyStructure compares a compiled Malloy query with the gold, part by part, each
// part a set compared by its Jaccard index as in SemanticSimilarity:
//
//   - source: 1 when both run on the same model source, else 0 (only when the gold
//     is Malloy too);
//   - group_by, aggregates, filters, order_by: Jaccard of the two sets;
//   - limit: 1 when equal.
//
// A part absent from both queries counts as agreement (1). The score is the mean of
// the parts. Against a Malloy gold the sets are the compiler's descriptions of both
// queries, with the model's measures and dimensions expanded (aggregate: singer_count
// and aggregate: n is count() both read count()), so a query that reaches the same
// computation by another name agrees. Against a SQL gold the generic parts of the
// Malloy query's shape (columns, func(arg), column|op|value) are compared with the
// SQL's, as SemanticSimilarity does.
//
// Details: each part's score, and the generated and expected sets of each.
func MalloyStructure(generated, expected *qeval.Shape) Result {
	d := map[string]any{}
	var parts []float64
	part := func(name string, g, e []string) {
		if g == nil {
			g = []string{}
		}
		if e == nil {
			e = []string{}
		}
		s := jaccardKeys(g, e)
		d[name] = s
		d["generated_"+name], d["expected_"+name] = g, e
		parts = append(parts, s)
	}
	gm, em := generated.Malloy, expected.Malloy
	if gm != nil && em != nil {
		d["against"] = "malloy"
		src := 0.0
		if strings.EqualFold(gm.Source, em.Source) {
			src = 1
		}
		d["source"], d["generated_source"], d["expected_source"] = src, gm.Source, em.Source
		parts = append(parts, src)
		part("group_by", malloyKeys(gm.GroupBy), malloyKeys(em.GroupBy))
		part("aggregates", malloyKeys(gm.Aggregates), malloyKeys(em.Aggregates))
		part("filters", malloyKeys(gm.Filters), malloyKeys(em.Filters))
		part("order_by", malloyKeys(gm.OrderBy), malloyKeys(em.OrderBy))
		part("limit", limitKeys(gm.Limit), limitKeys(em.Limit))
	} else {
		d["against"] = "sql"
		if gm != nil {
			d["generated_source"] = gm.Source
		}
		part("group_by", groupKeys(generated), groupKeys(expected))
		_, gcall := aggregateKeys(generated.Aggregates)
		_, ecall := aggregateKeys(expected.Aggregates)
		part("aggregates", gcall, ecall)
		_, gf := filterKeys(generated.Filters)
		_, ef := filterKeys(expected.Filters)
		part("filters", gf, ef)
		part("order_by", orderKeys(generated.OrderBy), orderKeys(expected.OrderBy))
		part("limit", limitKeys(generated.Limit), limitKeys(expected.Limit))
	}
	sum := 0.0
	for _, p := range parts {
		sum += p
	}
	return Scored(sum/float64(len(parts)), d)
}

// malloyKeys normalises Malloy expressions for comparison: case and spacing.
func malloyKeys(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, strings.ToLower(strings.Join(strings.Fields(x), " ")))
	}
	return out
}

func orderKeys(os []qeval.OrderTerm) []string {
	out := make([]string, 0, len(os))
	for _, o := range os {
		dir := " asc"
		if o.Desc {
			dir = " desc"
		}
		out = append(out, normName(o.Expr)+dir)
	}
	return out
}

func limitKeys(l string) []string {
	if l = strings.TrimSpace(l); l == "" {
		return []string{}
	}
	return []string{l}
}

func malloyStructure(_ context.Context, c *Case, _ *Options) (Result, error) {
	if c.GeneratedShape == nil || c.GeneratedShape.Malloy == nil {
		if c.GeneratedError != nil {
			return Skip("the generated query did not compile: " + qeval.ErrorMessage(c.GeneratedError)), nil
		}
		return Skip("no compiled Malloy query"), nil
	}
	if c.Expected == "" && c.ExpectedShape == nil {
		return Skip("no expected query"), nil
	}
	es, err := c.expectedShape()
	if err != nil {
		return Result{}, prefixError("parse expected query", err)
	}
	return MalloyStructure(c.GeneratedShape, es), nil
}
