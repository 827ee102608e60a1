package server

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
	"github.com/qeval/qeval/sqlparse"
)

// ScoreRequest is the body of POST /api/score-query: a generated query and the
// expected one, in KQL (generated_kql, expected_kql) or SQL (generated_sql,
// expected_sql, dialect), with what is known of their results.
type ScoreRequest struct {
	GeneratedKQL     *string          `json:"generated_kql"`
	ExpectedKQL      *string          `json:"expected_kql"`
	GeneratedSQL     *string          `json:"generated_sql"`
	ExpectedSQL      *string          `json:"expected_sql"`
	Dialect          string           `json:"dialect"`
	Prompt           string           `json:"prompt"`
	GeneratedColumns []string         `json:"generated_columns"`
	ExpectedColumns  []string         `json:"expected_columns"`
	GeneratedResults []map[string]any `json:"generated_results"`
	ExpectedResults  []map[string]any `json:"expected_results"`
	// Model is the judge model to grade with (default: the server's).
	Model string `json:"model"`
	// Threshold and Weights override the defaults (0.9; a quarter each).
	Threshold *float64           `json:"threshold"`
	Weights   map[string]float64 `json:"weights"`
}

// ScoreResponse is the answer of POST /api/score-query.
type ScoreResponse struct {
	Success bool       `json:"success"`
	Score   ScoreTotal `json:"score"`
	// Reasoning is the judge's reasoning (null when no judge graded the query).
	Reasoning *string `json:"reasoning"`
}

// ScoreTotal is the composite score and its components.
type ScoreTotal struct {
	TotalScore   *float64 `json:"total_score"`
	IsSuccessful bool     `json:"is_successful"`
	Threshold    float64  `json:"threshold"`
	// Partial is set when a weighted component was skipped; Method says how the total
	// was computed then.
	Partial    bool                 `json:"partial"`
	Method     string               `json:"method"`
	Components map[string]Component `json:"components"`
}

// Component is one part of the composite score. Skipped (the reason) or Error is set
// when it has no score of its own.
type Component struct {
	Score         *float64 `json:"score"`
	WeightedScore *float64 `json:"weighted_score"`
	Weight        float64  `json:"weight"`
	// EffectiveWeight is the weight after renormalisation over the components that
	// were scored; the effective weights add up to 1.
	EffectiveWeight float64        `json:"effective_weight"`
	Details         map[string]any `json:"details"`
	Skipped         string         `json:"skipped,omitempty"`
	Error           string         `json:"error,omitempty"`
}

func (s *Server) handleScore(w http.ResponseWriter, r *http.Request) {
	var req ScoreRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	resp, err := s.Score(r.Context(), &req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// scoreInput is a checked ScoreRequest.
type scoreInput struct {
	dialect             string // "kql" or a SQL dialect
	generated, expected string
	threshold           float64
	weights             map[string]float64
	judge               qeval.Judge
	judgeSkipped        string // why the judge-based components are skipped, when judge is nil
}

// Score computes the composite score of one request. It returns a *FieldError for a
// request that cannot be scored; a generated query that does not parse is not such an
// error: the components that need its structure fail and count as 0.
func (s *Server) Score(ctx context.Context, req *ScoreRequest) (*ScoreResponse, error) {
	in, err := s.checkScore(req)
	if err != nil {
		return nil, err
	}
	c := metric.Case{Dialect: in.dialect, Question: req.Prompt, Generated: in.generated, Expected: in.expected,
		GeneratedColumns: req.GeneratedColumns, ExpectedColumns: req.ExpectedColumns}
	if req.GeneratedResults != nil && req.ExpectedResults != nil {
		c.GeneratedRows, c.ExpectedRows = req.GeneratedResults, req.ExpectedResults
		if c.GeneratedColumns == nil && c.ExpectedColumns == nil {
			c.GeneratedColumns, c.ExpectedColumns = rowKeys(req.GeneratedResults), rowKeys(req.ExpectedResults)
		}
		// the judge sees the first rows of both
		c.GeneratedResult = resultSet(c.GeneratedColumns, req.GeneratedResults)
		c.ExpectedResult = resultSet(c.ExpectedColumns, req.ExpectedResults)
	}
	sc := metric.Score(ctx, c, metric.Config{
		Options:      metric.Options{Metrics: scoreMetrics, Judge: in.judge, Now: s.now},
		Weights:      in.weights,
		Threshold:    &in.threshold,
		JudgeSkipped: in.judgeSkipped,
	})
	return scoreResponse(sc, in), nil
}

// scoreMetrics are the metrics of /api/score-query: the composite's components.
var scoreMetrics, _ = metric.Lookup(qeval.Components...)

func (s *Server) checkScore(req *ScoreRequest) (*scoreInput, error) {
	in := &scoreInput{threshold: qeval.DefaultThreshold, weights: qeval.DefaultWeights()}
	kqlSent := req.GeneratedKQL != nil || req.ExpectedKQL != nil
	sqlSent := req.GeneratedSQL != nil || req.ExpectedSQL != nil
	switch {
	case kqlSent && sqlSent:
		return nil, invalid("generated_sql", "send KQL (generated_kql, expected_kql) or SQL (generated_sql, expected_sql), not both")
	case kqlSent:
		if req.Dialect != "" && !strings.EqualFold(req.Dialect, "kql") {
			return nil, invalid("dialect", "dialect %q does not go with generated_kql; leave it out or send generated_sql", req.Dialect)
		}
		in.dialect = "kql"
		if err := required("generated_kql", req.GeneratedKQL); err != nil {
			return nil, err
		}
		if err := required("expected_kql", req.ExpectedKQL); err != nil {
			return nil, err
		}
		in.generated, in.expected = *req.GeneratedKQL, *req.ExpectedKQL
	case sqlSent:
		in.dialect = strings.ToLower(strings.TrimSpace(req.Dialect))
		if in.dialect == "" {
			in.dialect = sqlparse.SQLite
		}
		if !contains(sqlparse.Dialects, in.dialect) {
			return nil, invalid("dialect", "unknown SQL dialect %q (known: %s)", req.Dialect, strings.Join(sqlparse.Dialects, ", "))
		}
		if err := required("generated_sql", req.GeneratedSQL); err != nil {
			return nil, err
		}
		if err := required("expected_sql", req.ExpectedSQL); err != nil {
			return nil, err
		}
		in.generated, in.expected = *req.GeneratedSQL, *req.ExpectedSQL
	default:
		return nil, invalid("generated_kql", "missing generated_kql (or generated_sql for SQL)")
	}
	if req.Threshold != nil {
		if err := qeval.CheckFraction("threshold", *req.Threshold); err != nil {
			return nil, &FieldError{Field: "threshold", Err: err}
		}
		in.threshold = *req.Threshold
	}
	if req.Weights != nil {
		if len(req.Weights) == 0 {
			return nil, invalid("weights", "weights is empty: leave it out for the defaults")
		}
		sum := 0.0
		for k, v := range req.Weights {
			if !qeval.IsComponent(k) {
				return nil, invalid("weights."+k, "unknown component %q (known: %s)", k, strings.Join(qeval.Components, ", "))
			}
			if !(v >= 0 && v <= 1e6) {
				return nil, invalid("weights."+k, "weight %v must be a number from 0 to 1000000", v)
			}
			sum += v
		}
		if sum == 0 {
			return nil, invalid("weights", "the weights add up to 0")
		}
		in.weights = req.Weights
	}
	j, skipped, err := s.judgeFor(req.Model)
	if err != nil {
		return nil, err
	}
	in.judge, in.judgeSkipped = j, skipped
	return in, nil
}

func required(field string, v *string) error {
	if v == nil {
		return invalid(field, "missing %s", field)
	}
	if strings.TrimSpace(*v) == "" {
		return invalid(field, "%s is empty", field)
	}
	return nil
}

// scoreResponse gives the composite and says how it was computed.
func scoreResponse(sc metric.CaseScore, in *scoreInput) *ScoreResponse {
	comp, m := sc.Composite, sc.Metrics
	out := &ScoreResponse{Success: true, Score: ScoreTotal{TotalScore: comp.Total, Threshold: in.threshold,
		Partial: comp.Partial, Components: make(map[string]Component, len(qeval.Components))}}
	out.Score.IsSuccessful = comp.Total != nil && metric.Passes(*comp.Total, in.threshold)

	var used []string
	wsum := 0.0
	for _, n := range qeval.Components {
		if c, ok := comp.Components[n]; ok && c.Score != nil && c.Weight > 0 {
			used = append(used, n)
			wsum += c.Weight
		}
	}
	out.Score.Method = method(used, comp.Missing, wsum)
	for _, n := range qeval.Components {
		r := m[n]
		c := Component{Score: r.Score, Weight: in.weights[n], Details: r.Details}
		if cs, ok := comp.Components[n]; ok {
			c.WeightedScore, c.EffectiveWeight = cs.WeightedScore, cs.EffectiveWeight
		}
		if c.Details == nil {
			c.Details = map[string]any{}
		}
		if r.Error != nil {
			c.Error = r.Error.Message
		}
		if r.Skipped != nil {
			c.Skipped = *r.Skipped
			d := make(map[string]any, len(c.Details)+3)
			for k, v := range c.Details {
				d[k] = v
			}
			d["skipped"] = true
			d["reason"] = *r.Skipped
			d["total_score"] = out.Score.Method
			c.Details = d
		}
		if comp.Partial && c.Score != nil && c.Weight > 0 {
			d := make(map[string]any, len(c.Details)+1)
			for k, v := range c.Details {
				d[k] = v
			}
			d["effective_weight"] = c.EffectiveWeight
			c.Details = d
		}
		out.Score.Components[n] = c
	}
	if r := m[metric.NameLLMGrading]; r.Score != nil {
		if s, ok := r.Details["reasoning"].(string); ok {
			out.Reasoning = &s
		}
	}
	return out
}

// method says in words how the total was computed.
func method(used, missing []string, wsum float64) string {
	if len(used) == 0 {
		return "no component could be scored, so there is no total"
	}
	if len(missing) == 0 {
		return "weighted mean of " + strings.Join(used, ", ")
	}
	return fmt.Sprintf("weighted mean of %s only: %s skipped, so the remaining weights (sum %.4g) were renormalised to sum to 1",
		strings.Join(used, ", "), strings.Join(missing, ", "), wsum)
}

// rowKeys returns the keys of rows in first-seen order (each row's keys sorted, since
// JSON objects do not keep theirs).
func rowKeys(rows []map[string]any) []string {
	keys := []string{}
	seen := map[string]bool{}
	for _, row := range rows {
		ks := make([]string, 0, len(row))
		for k := range row {
			if !seen[k] {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		for _, k := range ks {
			seen[k] = true
		}
		keys = append(keys, ks...)
	}
	return keys
}

// resultSet turns rows into a result set for the judge's preview (its first rows).
func resultSet(cols []string, rows []map[string]any) *qeval.ResultSet {
	if cols == nil {
		cols = rowKeys(rows)
	}
	const preview = 20
	rs := &qeval.ResultSet{Columns: make([]qeval.Column, len(cols))}
	for i, c := range cols {
		rs.Columns[i] = qeval.Column{Name: c}
	}
	for i, row := range rows {
		if i == preview {
			break
		}
		vals := make([]qeval.Value, len(cols))
		for j, c := range cols {
			vals[j] = qeval.FromJSON(row[c])
		}
		rs.Rows = append(rs.Rows, vals)
	}
	return rs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
