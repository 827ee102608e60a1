package server_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

// scoreReply is the seed's response contract, read field for field.
type scoreReply struct {
	Success bool `json:"success"`
	Score   struct {
		TotalScore   *float64 `json:"total_score"`
		IsSuccessful bool     `json:"is_successful"`
		Threshold    float64  `json:"threshold"`
		Partial      bool     `json:"partial"`
		Method       string   `json:"method"`
		Components   map[string]struct {
			Score         *float64       `json:"score"`
			WeightedScore *float64       `json:"weighted_score"`
			Weight        *float64       `json:"weight"`
			Details       map[string]any `json:"details"`
			Skipped       string         `json:"skipped"`
			Error         string         `json:"error"`
		} `json:"components"`
	} `json:"score"`
	Reasoning *string `json:"reasoning"`
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScoreQuery_KQLWithoutJudge(t *testing.T) {
	ts := MustServer(t, nil)
	r := postJSON(t, ts.URL+"/api/score-query", map[string]any{
		"prompt":            "Storm events in Texas by type",
		"generated_kql":     `StormEvents | where State == "TEXAS" | summarize count() by EventType`,
		"expected_kql":      `StormEvents | where State == "TEXAS" | summarize count() by EventType`,
		"generated_columns": []string{"EventType", "count_"},
		"expected_columns":  []string{"EventType", "count_", "State"},
		"generated_results": []map[string]any{{"EventType": "Hail", "count_": 10}, {"EventType": "Flood", "count_": 5}},
		"expected_results":  []map[string]any{{"EventType": "Hail", "count_": 10}, {"EventType": "Flood", "count_": 6}},
		"model":             "any-model",
	})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d %s, want 200", r.Status, r.Body)
	}
	var got scoreReply
	r.json(t, &got)
	if !got.Success {
		t.Fatalf("success = false: %s", r.Body)
	}
	c := got.Score.Components
	for _, name := range []string{"schema_match", "semantic_similarity", "results_match", "llm_grading"} {
		comp, ok := c[name]
		if !ok || comp.Weight == nil || !near(*comp.Weight, 0.25) || comp.Details == nil {
			t.Fatalf("component %s = %+v, want weight 0.25 and details", name, comp)
		}
	}
	// schema: 2 of the 3 expected columns; semantic: identical; results: 1 of 2 rows
	want := map[string]float64{"schema_match": 2.0 / 3, "semantic_similarity": 1, "results_match": 0.5}
	for name, w := range want {
		comp := c[name]
		if comp.Score == nil || !near(*comp.Score, w) || comp.WeightedScore == nil || !near(*comp.WeightedScore, w*0.25) {
			t.Errorf("%s score %v weighted %v, want %v and %v", name, comp.Score, comp.WeightedScore, w, w*0.25)
		}
	}
	llm := c["llm_grading"]
	if llm.Score != nil || llm.WeightedScore != nil || llm.Skipped == "" || llm.Details["skipped"] != true {
		t.Errorf("llm_grading = %+v, want skipped with no score", llm)
	}
	how, _ := llm.Details["total_score"].(string)
	if !strings.Contains(how, "renormalised") || !strings.Contains(how, "llm_grading skipped") {
		t.Errorf("llm_grading details say %q, want how the total was computed", how)
	}
	total := (2.0/3 + 1 + 0.5) / 3
	if got.Score.TotalScore == nil || !near(*got.Score.TotalScore, total) {
		t.Errorf("total_score = %v, want %v (the mean of the three others)", got.Score.TotalScore, total)
	}
	if got.Score.IsSuccessful || !near(got.Score.Threshold, 0.9) || !got.Score.Partial {
		t.Errorf("is_successful %v threshold %v partial %v, want false 0.9 true", got.Score.IsSuccessful, got.Score.Threshold, got.Score.Partial)
	}
	if got.Reasoning != nil {
		t.Errorf("reasoning = %q, want null without a judge", *got.Reasoning)
	}
}

func TestScoreQuery_SQLWithJudge(t *testing.T) {
	j := &fakeJudge{score: 0.8, reasoning: "Same table, but it counts a different country."}
	ts := MustServer(t, func(c *server.Config) {
		c.Judge, c.JudgeInfo = j, &qeval.JudgeInfo{Provider: "fake", Model: "fake-1"}
	})
	r := postJSON(t, ts.URL+"/api/score-query", map[string]any{
		"prompt":        "How many customers are from Brazil?",
		"generated_sql": "SELECT count(*) AS n FROM Customer WHERE Country = 'Canada'",
		"expected_sql":  "SELECT count(*) AS n FROM Customer WHERE Country = 'Brazil'",
		"dialect":       "sqlite",
		"threshold":     0.5,
	})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	var got scoreReply
	r.json(t, &got)
	if got.Reasoning == nil || *got.Reasoning != j.reasoning {
		t.Errorf("reasoning = %v, want the judge's", got.Reasoning)
	}
	if j.calls.Load() != 1 {
		t.Errorf("judge called %d times, want 1", j.calls.Load())
	}
	c := got.Score.Components
	// no results: results_match is skipped; schema from the query text (n = n)
	if c["results_match"].Skipped == "" || c["schema_match"].Score == nil || *c["schema_match"].Score != 1 {
		t.Errorf("results_match %+v schema_match %+v, want skipped and 1", c["results_match"], c["schema_match"])
	}
	sem := *c["semantic_similarity"].Score // tables 1, filters ½ (same column, other value), aggregates 1
	if !near(sem, 0.4+0.15+0.3) {
		t.Errorf("semantic_similarity = %v, want 0.85", sem)
	}
	total := (1 + 0.85 + 0.8) / 3
	if !near(*got.Score.TotalScore, total) || !got.Score.IsSuccessful || !near(got.Score.Threshold, 0.5) {
		t.Errorf("total %v successful %v threshold %v, want %v true 0.5", *got.Score.TotalScore, got.Score.IsSuccessful, got.Score.Threshold, total)
	}
	if got.Score.Components["llm_grading"].Details["effective_weight"] == nil {
		t.Errorf("llm_grading details %v lack effective_weight while results_match is skipped", c["llm_grading"].Details)
	}
}

func TestScoreQuery_UnparsableGeneratedScoresZero(t *testing.T) {
	ts := MustServer(t, nil)
	r := postJSON(t, ts.URL+"/api/score-query", map[string]any{
		"generated_kql": "StormEvents | where (", "expected_kql": "StormEvents | take 5",
		"generated_columns": []string{"a"}, "expected_columns": []string{"a"},
	})
	var got scoreReply
	r.json(t, &got)
	sem := got.Score.Components["semantic_similarity"]
	if r.Status != http.StatusOK || sem.Score == nil || *sem.Score != 0 || !strings.Contains(sem.Error, "parse generated query") {
		t.Fatalf("status %d semantic %+v, want 200 with score 0 and the parse error", r.Status, sem)
	}
}

func TestScoreQuery_Model(t *testing.T) {
	j := &fakeJudge{score: 1, reasoning: "ok"}
	other := &fakeJudge{score: 0.25, reasoning: "other model"}
	var asked []string
	ts := MustServer(t, func(c *server.Config) {
		c.Judge, c.JudgeInfo = j, &qeval.JudgeInfo{Provider: "fake", Model: "fake-1"}
		c.JudgeFor = func(model string) (qeval.Judge, error) { asked = append(asked, model); return other, nil }
	})
	body := map[string]any{"generated_sql": "SELECT a FROM t", "expected_sql": "SELECT b FROM t", "model": "fake-2"}
	for range 2 {
		var got scoreReply
		postJSON(t, ts.URL+"/api/score-query", body).json(t, &got)
		if got.Reasoning == nil || *got.Reasoning != "other model" {
			t.Fatalf("reasoning %v, want the other model's", got.Reasoning)
		}
	}
	if len(asked) != 1 {
		t.Errorf("JudgeFor called %d times, want once (the judge is kept)", len(asked))
	}

	t.Run("ErrNoOtherModels", func(t *testing.T) {
		ts := MustServer(t, func(c *server.Config) { c.Judge, c.JudgeInfo = j, &qeval.JudgeInfo{Model: "fake-1"} })
		r := postJSON(t, ts.URL+"/api/score-query", body)
		e := r.apiError(t)
		if r.Status != http.StatusBadRequest || e.Error.Field == nil || *e.Error.Field != "model" {
			t.Fatalf("status %d %s, want 400 on field model", r.Status, r.Body)
		}
	})
}

func TestScoreQuery_Errors(t *testing.T) {
	ts := MustServer(t, nil)
	tests := []struct {
		name, body string
		status     int
		field      string
	}{
		{"Empty", ``, 400, ""},
		{"NotAnObject", `[1, 2]`, 400, ""},
		{"Malformed", `{"generated_kql": "T", `, 400, ""},
		{"Trailing", `{"generated_kql": "T", "expected_kql": "T"} {}`, 400, ""},
		{"UnknownField", `{"generated_kql": "T", "expected_kql": "T", "generated_kq": "x"}`, 400, "generated_kq"},
		{"WrongType", `{"generated_kql": 5, "expected_kql": "T"}`, 400, "generated_kql"},
		{"WrongRows", `{"generated_kql": "T", "expected_kql": "T", "generated_results": [1]}`, 400, "generated_results"},
		{"WrongColumns", `{"generated_kql": "T", "expected_kql": "T", "expected_columns": "a,b"}`, 400, "expected_columns"},
		{"Missing", `{"prompt": "p"}`, 400, "generated_kql"},
		{"MissingExpected", `{"generated_kql": "T"}`, 400, "expected_kql"},
		{"BlankGenerated", `{"generated_sql": "  ", "expected_sql": "SELECT 1"}`, 400, "generated_sql"},
		{"BothLanguages", `{"generated_kql": "T", "expected_sql": "SELECT 1"}`, 400, "generated_sql"},
		{"KQLWithSQLDialect", `{"generated_kql": "T", "expected_kql": "T", "dialect": "mysql"}`, 400, "dialect"},
		{"UnknownDialect", `{"generated_sql": "SELECT 1", "expected_sql": "SELECT 1", "dialect": "oracle"}`, 400, "dialect"},
		{"Threshold", `{"generated_kql": "T", "expected_kql": "T", "threshold": 1.5}`, 400, "threshold"},
		{"UnknownWeight", `{"generated_kql": "T", "expected_kql": "T", "weights": {"speed": 1}}`, 400, "weights.speed"},
		{"ZeroWeights", `{"generated_kql": "T", "expected_kql": "T", "weights": {"llm_grading": 0}}`, 400, "weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, http.MethodPost, ts.URL+"/api/score-query", strings.NewReader(tt.body), "Content-Type: application/json")
			e := r.apiError(t)
			if r.Status != tt.status {
				t.Fatalf("status %d %s, want %d", r.Status, r.Body, tt.status)
			}
			got := ""
			if e.Error.Field != nil {
				got = *e.Error.Field
			}
			if got != tt.field {
				t.Errorf("field %q (%s), want %q", got, e.Error.Message, tt.field)
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		big := `{"generated_kql": "` + strings.Repeat("x", 11<<20) + `", "expected_kql": "T"}`
		r := do(t, http.MethodPost, ts.URL+"/api/score-query", strings.NewReader(big), "Content-Type: application/json")
		if e := r.apiError(t); r.Status != http.StatusRequestEntityTooLarge || e.Error.Code != "too_large" {
			t.Fatalf("status %d %s, want 413 too_large", r.Status, r.Body)
		}
	})
	t.Run("MediaType", func(t *testing.T) {
		r := do(t, http.MethodPost, ts.URL+"/api/score-query", strings.NewReader(`{"generated_kql": "T", "expected_kql": "T"}`),
			"Content-Type: application/x-www-form-urlencoded")
		if e := r.apiError(t); r.Status != http.StatusUnsupportedMediaType || e.Error.Code != "unsupported_media_type" {
			t.Fatalf("status %d %s, want 415", r.Status, r.Body)
		}
	})
	t.Run("Method", func(t *testing.T) {
		r := do(t, http.MethodGet, ts.URL+"/api/score-query", nil)
		if r.apiError(t); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
			t.Fatalf("GET = %d Allow %q, want 405 POST", r.Status, r.Header.Get("Allow"))
		}
	})
}

// A request's model whose provider has no API key (the seed's "gpt-4o-mini" on a server
// whose judge is Anthropic) is not a 0: the LLM component is skipped with the reason and
// the total is renormalised over the others.
func TestScoreQuery_ModelWithoutKeySkips(t *testing.T) {
	j := &fakeJudge{score: 1, reasoning: "ok"}
	ts := MustServer(t, func(c *server.Config) {
		c.Judge, c.JudgeInfo = j, &qeval.JudgeInfo{Provider: "anthropic", Model: "claude-x"}
		c.JudgeFor = func(model string) (qeval.Judge, error) {
			return nil, fmt.Errorf("model %s is served by openai: %w (set OPENAI_API_KEY)", model, qeval.ErrNoAPIKey)
		}
	})
	body := map[string]any{"generated_sql": "SELECT a FROM t", "expected_sql": "SELECT a FROM t", "model": "gpt-4o-mini"}
	var got scoreReply
	r := postJSON(t, ts.URL+"/api/score-query", body)
	r.json(t, &got)
	llm := got.Score.Components["llm_grading"]
	if r.Status != http.StatusOK || llm.Score != nil || !strings.Contains(llm.Skipped, "OPENAI_API_KEY") {
		t.Fatalf("status %d llm_grading %+v, want 200 and skipped with the reason", r.Status, llm)
	}
	if got.Score.TotalScore == nil || *got.Score.TotalScore < 0.9 || !got.Score.IsSuccessful {
		t.Errorf("total %v (successful %v), want the other components' renormalised total", got.Score.TotalScore, got.Score.IsSuccessful)
	}
}
