package metric

import (
	"context"
	"strings"
	"sync"

	"github.com/qeval/qeval/exactmatch"
)

// NameExactMatch is Spider's exact-set match (spider-em@1).
const NameExactMatch = "exact_match"

// emSchemas keeps the official parser's schema of each database schema seen, so that
// it is built once per database, not once per case.
var emSchemas sync.Map // *qeval.Schema → *exactmatch.Schema

// exactMatch scores the case with the official Spider exact-set match: 1 when every
// clause matches as a set with values masked. Details: hardness, the partial F1 of
// each component, and parse_error when the generated query did not parse (scored as
// an empty query, as the official evaluator does). It needs SQLite SQL and the
// database's schema; a gold query the official parser cannot read is skipped with its
// reason. Foreign keys are not unified (that needs Spider's tables.json: qeval spider
// --table).
func exactMatch(_ context.Context, c *Case, _ *Options) (Result, error) {
	d := strings.ToLower(c.Dialect)
	switch {
	case d != "" && d != "sqlite" && d != "sql":
		return Skip("exact-set match reads SQLite SQL; this case is " + c.Dialect), nil
	case c.Schema == nil || len(c.Schema.Tables) == 0:
		return Skip("exact-set match needs the database's schema (the queries were not run on a database)"), nil
	case strings.TrimSpace(c.Generated) == "" || strings.TrimSpace(c.Expected) == "":
		return Skip("no generated or no expected query"), nil
	}
	s, ok := emSchemas.Load(c.Schema)
	if !ok {
		s, _ = emSchemas.LoadOrStore(c.Schema, exactmatch.NewSchema(c.Schema))
	}
	r, err := exactmatch.Match(s.(*exactmatch.Schema), nil, c.Expected, c.Generated)
	if err != nil {
		return Skip("exact-set match not judged: " + err.Error()), nil
	}
	partial := map[string]any{}
	for _, k := range exactmatch.Components {
		partial[k] = r.Partial[k].F1
	}
	d2 := map[string]any{"hardness": r.Hardness, "partial_f1": partial, "mode": "spider-em@1"}
	if r.ParseError != "" {
		d2["parse_error"] = r.ParseError
	}
	score := 0.0
	if r.Exact {
		score = 1
	}
	return Scored(score, d2), nil
}
