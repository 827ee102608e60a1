package metric

import (
	"context"

	"github.com/qeval/qeval"
)

// ModelReuse says how well a Malloy query used its model: of the computations it
// makes that the model declares (a measure such as singer_count is count(), a
// dimension), the share it took by name rather than re-deriving inline:
//
//	score = used / (used + re-derived)
//
// 1 when it re-derived nothing (also when it computes nothing the model declares).
// It is reported beside the composite, never part of it: a query that writes count()
// where the model has singer_count is right, and this says it did not reuse the model.
//
// Details: used (the model's fields named), rederived (each with the query's field,
// the expression, the model's field it duplicates, line and column), declared (how
// many measures and dimensions the query's source and its joins offer).
func ModelReuse(m *qeval.MalloyShape) Result {
	used, re := len(m.Used), len(m.Rederived)
	score := 1.0
	if used+re > 0 {
		score = float64(used) / float64(used+re)
	}
	usedNames := make([]string, 0, used)
	for _, u := range m.Used {
		usedNames = append(usedNames, u.Name)
	}
	rederived := make([]map[string]any, 0, re)
	for _, r := range m.Rederived {
		x := map[string]any{"expr": r.Expr, "model_field": r.ModelField, "kind": r.Kind}
		if r.Field != "" {
			x["field"] = r.Field
		}
		if r.Line > 0 {
			x["line"], x["col"] = r.Line, r.Col
		}
		rederived = append(rederived, x)
	}
	return Scored(score, map[string]any{"used": usedNames, "rederived": rederived, "declared": len(m.Declared)})
}

func modelReuse(_ context.Context, c *Case, _ *Options) (Result, error) {
	if c.GeneratedShape == nil || c.GeneratedShape.Malloy == nil {
		if c.GeneratedError != nil {
			return Skip("the generated query did not compile: " + qeval.ErrorMessage(c.GeneratedError)), nil
		}
		return Skip("no compiled Malloy query"), nil
	}
	return ModelReuse(c.GeneratedShape.Malloy), nil
}
