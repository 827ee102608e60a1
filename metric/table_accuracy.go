package metric

import (
	"context"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
	"github.com/qeval/qeval/sqlparse"
)

// TableAccuracy scores the tables a generated query reads against the tables it should
// read: the Jaccard index |generated ∩ expected| / |generated ∪ expected| over table
// names compared case-insensitively, without quoting or schema qualifiers. Aliases are
// resolved to their base tables through shape.Aliases. Two empty lists score 1.
//
// Details: generated_tables, expected_tables, matched, missing (expected but not read),
// extra (read but not expected).
func TableAccuracy(generated *qeval.Shape, expected []string) Result {
	gen := newNameSet(nil)
	if generated != nil {
		aliases := make(map[string]string, len(generated.Aliases))
		for a, base := range generated.Aliases {
			aliases[normName(a)] = base
		}
		for _, t := range generated.Tables {
			if base, ok := aliases[normName(t)]; ok && base != "" {
				t = base
			}
			gen.add(t)
		}
	}
	exp := newNameSet(expected)
	score, both, extra, missing := jaccard(gen, exp)
	return Scored(score, map[string]any{
		"generated_tables": gen.keys,
		"expected_tables":  exp.keys,
		"matched":          both,
		"missing":          missing,
		"extra":            extra,
	})
}

// tableAccuracy is the table_accuracy calculator of a case: it parses the generated
// query (a parse error fails the metric with the parser's message) and takes the
// expected tables from c.ExpectedTables or, when that is nil, from the expected query.
func tableAccuracy(_ context.Context, c *Case, _ *Options) (Result, error) {
	if strings.TrimSpace(c.Generated) == "" && c.GeneratedShape == nil {
		return Skip("no generated query"), nil
	}
	expected := c.ExpectedTables
	source := "expected_tables"
	if expected == nil {
		if strings.TrimSpace(c.Expected) == "" && c.ExpectedShape == nil {
			return Skip("no expected tables and no expected query"), nil
		}
		if c.ExpectedReads != nil {
			expected, source = c.ExpectedReads.Tables, "expected_query (engine)"
		} else {
			shape, err := c.expectedShape()
			if err != nil {
				return Result{}, prefixError("parse expected query", err)
			}
			expected, source = shape.Tables, "expected_query"
		}
	}
	shape, path := c.GeneratedReads, "engine"
	if shape == nil {
		var err error
		if shape, err = c.generatedShape(); err != nil {
			return shapeFailure(opParseGenerated, err)
		}
		path = "parser"
	}
	r := TableAccuracy(shape, expected)
	r.Details["expected_source"] = source
	// path says how the generated query's tables were found: asked of the database
	// engine, or parsed from the text
	r.Details["path"] = path
	return r, nil
}

// shapeFailure is the result of a metric whose query has no shape: skipped for a
// query its compiler rejected (a Malloy compile_error, scored by execution), failed
// with the parser's message otherwise.
func shapeFailure(op string, err error) (Result, error) {
	if qeval.ErrorCode(err) == qeval.CodeCompile {
		return Skip("the query did not compile: " + qeval.ErrorMessage(err)), nil
	}
	return Result{}, prefixError(op, err)
}

// prepare parses each query once, before the metrics that read the shapes run (a
// shared prerequisite, as x/tools' analysis Requires): the parse errors are kept for
// every metric to report.
func (c *Case) prepare() {
	if c.prepared {
		return
	}
	c.prepared = true
	if c.GeneratedShape == nil && c.GeneratedError != nil {
		c.generatedErr = c.GeneratedError
	} else if c.GeneratedShape == nil && c.Generated != "" {
		c.GeneratedShape, c.generatedErr = parseShape(c.Dialect, c.Generated)
	}
	if c.ExpectedShape == nil && c.Expected != "" {
		c.ExpectedShape, c.expectedErr = parseShape(c.Dialect, c.Expected)
	}
}

// generatedShape returns the shape of the generated query, parsed once.
func (c *Case) generatedShape() (*qeval.Shape, error) {
	c.prepare()
	if c.generatedErr != nil {
		return nil, c.generatedErr
	}
	if c.GeneratedShape == nil {
		return parseShape(c.Dialect, c.Generated) // an empty query: the parser says so
	}
	return c.GeneratedShape, nil
}

// expectedShape returns the shape of the expected query, parsed once.
func (c *Case) expectedShape() (*qeval.Shape, error) {
	c.prepare()
	if c.expectedErr != nil {
		return nil, c.expectedErr
	}
	if c.ExpectedShape == nil {
		return parseShape(c.Dialect, c.Expected)
	}
	return c.ExpectedShape, nil
}

// parseShape parses a query of a SQL dialect or KQL. A Malloy query is not parsed
// here: its structure is what its compiler describes (Case.GeneratedShape).
func parseShape(dialect, text string) (*qeval.Shape, error) {
	if strings.EqualFold(dialect, qeval.DialectMalloy) {
		return nil, &qeval.Error{Code: qeval.CodeCompile, Message: "a Malloy query's structure comes from its compiler, which did not describe this one"}
	}
	if strings.EqualFold(dialect, "kql") {
		s, err := kql.ParseShape(text)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return sqlparse.Parse(dialect, text)
}
