package metric

import (
	"context"
	"slices"
)

// SchemaMatch scores the columns of a generated result against the expected ones:
// 1 - (expected columns missing from the generated ones) / (expected columns). Extra
// generated columns do not lower it. Names are compared case-insensitively, without
// quoting or table qualifiers (T1.name is name); expressions such as count(*) are
// compared without spaces. Repeated expected names count once. Between two results, an
// expected column no generated one matches by name is lined up by its values first
// (see alignColumns).
//
// Details: generated_columns, expected_columns, matched, missing, extra.
func SchemaMatch(generated, expected []string) Result {
	gen, exp := newNameSet(generated), newNameSet(expected)
	_, both, extra, missing := jaccard(gen, exp)
	score := 1.0
	if len(exp.keys) > 0 {
		score = 1 - float64(len(missing))/float64(len(exp.keys))
	}
	return Scored(score, map[string]any{
		"generated_columns": gen.keys,
		"expected_columns":  exp.keys,
		"matched":           both,
		"missing":           missing,
		"extra":             extra,
	})
}

// schemaMatch compares the result columns when both results are known, else the output
// columns the parser read from both queries (unless either selects *).
func schemaMatch(_ context.Context, c *Case, o *Options) (Result, error) {
	if c.GeneratedColumns != nil && c.ExpectedColumns != nil {
		r := SchemaMatch(c.GeneratedColumns, c.ExpectedColumns)
		r.Details["source"] = "columns"
		return r, nil
	}
	gen, exp := c.results()
	if gen != nil && exp != nil {
		if len(exp.Columns) == 0 {
			return Skip("the expected result has no columns"), nil
		}
		norm := seedValue
		if o.LenientResults {
			norm = normValue
		}
		aligned, al := alignColumns(gen, exp, o.MaxRows, norm)
		r := SchemaMatch(aligned.ColumnNames(), exp.ColumnNames())
		r.Details["source"] = "results"
		al.record(r.Details)
		return r, nil
	}
	if c.Expected == "" && c.ExpectedShape == nil {
		return Skip("no expected query or result"), nil
	}
	if c.Generated == "" && c.GeneratedShape == nil {
		return Skip("no generated query or result"), nil
	}
	es, err := c.expectedShape()
	if err != nil {
		return Result{}, prefixError("parse expected query", err)
	}
	gs, err := c.generatedShape()
	if err != nil {
		return shapeFailure(opParseGenerated, err)
	}
	if len(es.Output) == 0 || slices.Contains(es.Output, "*") || slices.Contains(gs.Output, "*") {
		return Skip("output columns unknown without results (run both queries with --db)"), nil
	}
	r := SchemaMatch(gs.Output, es.Output)
	r.Details["source"] = "query text"
	return r, nil
}
