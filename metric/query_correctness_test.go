package metric_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// fakeJudge answers with a fixed verdict or error and records what it was asked.
type fakeJudge struct {
	v     qeval.JudgeVerdict
	err   error
	calls atomic.Int64
	last  atomic.Pointer[qeval.JudgeInput]
}

func (f *fakeJudge) Judge(_ context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	f.calls.Add(1)
	f.last.Store(&in)
	return f.v, f.err
}

func verdict(v string, score float64) *fakeJudge {
	return &fakeJudge{v: qeval.JudgeVerdict{Score: score, Verdict: v, Reasoning: "because", LLMCalled: true,
		Provider: "fake", Model: "m1", PromptVersion: "query_correctness@1", Latency: 1500 * time.Microsecond,
		Attempts: 1, InputTokens: 100, OutputTokens: 20}}
}

func TestQueryCorrectness_Verdicts(t *testing.T) {
	for _, tt := range []struct {
		verdict string
		score   float64
	}{{"correct", 1}, {"partially_correct", 0.5}, {"incorrect", 0}} {
		t.Run(tt.verdict, func(t *testing.T) {
			j := verdict(tt.verdict, tt.score)
			in := qeval.JudgeInput{Generated: "SELECT a FROM t", Expected: "SELECT b FROM t", Dialect: "sqlite", Question: "q?"}
			r := metric.QueryCorrectness(context.Background(), j, in, metric.JudgeOptions{})
			if r.Score == nil || *r.Score != tt.score || r.Error != nil {
				t.Fatalf("QueryCorrectness = %+v, want score %v", r, tt.score)
			}
			d := r.Details
			if d["verdict"] != tt.verdict || d["reasoning"] != "because" || d["llm_called"] != true || d["cached"] != false ||
				d["provider"] != "fake" || d["model"] != "m1" || d["prompt_version"] != "query_correctness@1" ||
				d["latency_ms"] != 1.5 || d["input_tokens"] != 100 || d["output_tokens"] != 20 {
				t.Errorf("Details = %v", d)
			}
			if got := j.last.Load(); got.Task != qeval.TaskQueryCorrectness || got.Question != "q?" {
				t.Errorf("judge asked %+v, want task query_correctness with the question", got)
			}
		})
	}
}

func TestQueryCorrectness_Identical(t *testing.T) {
	tests := []struct {
		name, a, b, dialect string
		same                bool
	}{
		{"Whitespace", "SELECT name\n  FROM singer\tWHERE age > 30", "SELECT name FROM singer WHERE age > 30", "sqlite", true},
		{"KeywordCase", "select name from singer where age>30", "SELECT name FROM singer WHERE age > 30", "sqlite", true},
		{"TrailingSemicolon", "SELECT count(*) FROM t;  ", "SELECT COUNT ( * ) FROM t", "", true},
		{"FunctionCase", "SELECT Count(*), AVG(x) FROM t", "select count(*), avg(x) from t", "postgres", true},
		{"LiteralCaseDiffers", "SELECT * FROM t WHERE c = 'Paris'", "SELECT * FROM t WHERE c = 'paris'", "sqlite", false},
		{"LiteralSpacingKept", "SELECT * FROM t WHERE c = 'a  b'", "SELECT * FROM t WHERE c = 'a b'", "sqlite", false},
		{"OtherColumn", "SELECT name FROM singer", "SELECT age FROM singer", "sqlite", false},
		{"CommentIsNotMinus", "SELECT a - -1 FROM t", "SELECT a --1\nFROM t", "sqlite", false},
		{"KQLKeepsCase", "T | where x > 1", "T | WHERE x > 1", "kql", false},
		{"KQLWhitespace", "T\n| where x > 1\n| count", "T | where x>1 | count", "kql", true},
		{"QuotedWithDoubledQuote", "SELECT 'it''s' FROM t", "select 'it''s' from t", "sqlite", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := verdict("incorrect", 0)
			in := qeval.JudgeInput{Generated: tt.a, Expected: tt.b, Dialect: tt.dialect}
			r := metric.QueryCorrectness(context.Background(), j, in, metric.JudgeOptions{})
			calls := j.calls.Load()
			if tt.same {
				if calls != 0 || r.Score == nil || *r.Score != 1 || r.Details["reasoning"] != metric.ReasonIdentical ||
					r.Details["llm_called"] != false || r.Details["verdict"] != "correct" {
					t.Errorf("identical queries: calls %d, result %+v; want 1.0 %q without a call", calls, r, metric.ReasonIdentical)
				}
			} else if calls != 1 || *r.Score != 0 {
				t.Errorf("different queries: calls %d, score %v; want the judge asked once", calls, *r.Score)
			}
		})
	}
}

func TestQueryCorrectness_ExecMatch(t *testing.T) {
	in := qeval.JudgeInput{Generated: "SELECT a FROM t JOIN u ON t.id = u.id", Expected: "SELECT a FROM u JOIN t ON u.id = t.id"}
	t.Run("SkipsCallByDefault", func(t *testing.T) {
		j := verdict("incorrect", 0)
		r := metric.QueryCorrectness(context.Background(), j, in, metric.JudgeOptions{ExecMatch: true})
		if j.calls.Load() != 0 || *r.Score != 1 || r.Details["reasoning"] != metric.ReasonExecMatch || r.Details["shortcut"] != "execution_match" {
			t.Errorf("calls %d, result %+v; want 1.0 from the execution match without a call", j.calls.Load(), r)
		}
	})
	t.Run("JudgeExecMatch", func(t *testing.T) {
		j := verdict("partially_correct", 0.5)
		r := metric.QueryCorrectness(context.Background(), j, in, metric.JudgeOptions{ExecMatch: true, JudgeExecMatch: true})
		if j.calls.Load() != 1 || *r.Score != 0.5 {
			t.Errorf("calls %d, score %v; want the judge's 0.5", j.calls.Load(), *r.Score)
		}
	})
}

// No judge: identical queries (after normalising) still score 1 without a call, as the
// seed scores them; every other case is skipped with the reason.
func TestQueryCorrectness_NoJudge(t *testing.T) {
	same := qeval.JudgeInput{Generated: "select  1;", Expected: "SELECT 1"}
	r := metric.QueryCorrectness(context.Background(), nil, same, metric.JudgeOptions{NoJudgeReason: "no LLM judge: ANTHROPIC_API_KEY is not set"})
	if r.Score == nil || *r.Score != 1 || r.Details["llm_called"] != false || r.Details["reasoning"] != metric.ReasonIdentical {
		t.Errorf("QueryCorrectness(nil judge, identical) = %+v, want 1 without a call", r)
	}
	in := qeval.JudgeInput{Generated: "SELECT 2", Expected: "SELECT 1"}
	r = metric.QueryCorrectness(context.Background(), nil, in, metric.JudgeOptions{NoJudgeReason: "no LLM judge: ANTHROPIC_API_KEY is not set"})
	if r.Skipped == nil || *r.Skipped != "no LLM judge: ANTHROPIC_API_KEY is not set" || r.Score != nil {
		t.Errorf("QueryCorrectness(nil judge) = %+v, want skipped with the reason", r)
	}
	r = metric.QueryCorrectness(context.Background(), nil, in, metric.JudgeOptions{})
	if r.Skipped == nil || *r.Skipped != metric.NoJudgeReason {
		t.Errorf("QueryCorrectness(nil judge) = %+v, want skipped with NoJudgeReason", r)
	}
}

func TestQueryCorrectness_JudgeError(t *testing.T) {
	j := verdict("", 0)
	j.v.Reasoning = ""
	j.err = &qeval.Error{Code: qeval.CodeTimeout, Op: "judge: fake", Message: "LLM judge timeout after 30s", Hint: "raise --judge-timeout"}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r := metric.QueryCorrectness(context.Background(), j, qeval.JudgeInput{Generated: "SELECT a FROM t", Expected: "SELECT b FROM t"},
		metric.JudgeOptions{Now: func() time.Time { return now }})
	if r.Score == nil || *r.Score != 0 || r.Error == nil {
		t.Fatalf("QueryCorrectness = %+v, want score 0 with an error", r)
	}
	if r.Error.Message != "judge: fake: LLM judge timeout after 30s" || r.Error.Metric != metric.NameQueryCorrectness || !r.Error.Timestamp.Equal(now) {
		t.Errorf("Error = %+v", r.Error)
	}
	if r.Details["error_code"] != "timeout" || r.Details["hint"] != "raise --judge-timeout" || r.Details["llm_called"] != true {
		t.Errorf("Details = %v", r.Details)
	}
}

func TestQueryCorrectness_MissingQuery(t *testing.T) {
	j := verdict("correct", 1)
	r := metric.QueryCorrectness(context.Background(), j, qeval.JudgeInput{Generated: "  ", Expected: "SELECT 1"}, metric.JudgeOptions{})
	if r.Skipped == nil || j.calls.Load() != 0 {
		t.Errorf("QueryCorrectness(no generated query) = %+v, calls %d; want skipped without a call", r, j.calls.Load())
	}
}

// The metrics table feeds the judge what it knows of the case: the question, the
// dialect, the schema as DDL and the results of the execution verdict.
func TestQueryCorrectness_FromCase(t *testing.T) {
	j := verdict("correct", 1)
	gold := &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}}, Rows: [][]qeval.Value{{qeval.Int(3)}}}
	pred := &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}}, Rows: [][]qeval.Value{{qeval.Int(4)}}}
	c := metric.Case{
		ID: "c1", Question: "How many?", Generated: "SELECT count(*) FROM a", Expected: "SELECT count(*) FROM b",
		Schema: &qeval.Schema{Tables: []qeval.TableSchema{
			{Name: "a", DDL: "CREATE TABLE a (x INT);"},
			{Name: "b", Columns: []qeval.Column{{Name: "y", Type: "TEXT"}, {Name: "z"}}},
		}},
		Execution: &qeval.Verdict{Match: false, Outcome: qeval.OutcomeMismatch, Gold: gold, Pred: pred},
	}
	ms, err := metric.Lookup(metric.NameQueryCorrectness, metric.NameLLMGrading)
	if err != nil {
		t.Fatal(err)
	}
	rs := metric.Evaluate(context.Background(), c, metric.Options{Metrics: ms, Judge: j})
	if r := rs[metric.NameQueryCorrectness]; r.Score == nil || *r.Score != 1 {
		t.Fatalf("query_correctness = %+v, want the judge's 1", r)
	}
	in := j.last.Load()
	if in.Question != "How many?" || in.Dialect != "sqlite" || in.ExpectedResult != gold || in.GeneratedResult != pred ||
		in.Schema != "CREATE TABLE a (x INT);\nCREATE TABLE b (y TEXT, z);\n" {
		t.Errorf("judge input = %+v", in)
	}
	if j.calls.Load() != 2 {
		t.Errorf("judge calls = %d, want 2 (query_correctness and llm_grading)", j.calls.Load())
	}
}

func TestQueryCorrectness_FromCaseFailure(t *testing.T) {
	j := &fakeJudge{err: errors.New("boom")}
	ms, _ := metric.Lookup(metric.NameQueryCorrectness)
	c := metric.Case{ID: "c2", Generated: "SELECT a FROM t", Expected: "SELECT b FROM t"}
	r := metric.Evaluate(context.Background(), c, metric.Options{Metrics: ms, Judge: j})[metric.NameQueryCorrectness]
	if r.Error == nil || r.Error.Inputs["id"] != "c2" || r.Error.Inputs["generated"] != "SELECT a FROM t" || *r.Score != 0 {
		t.Errorf("result = %+v, want a failure that records the case's inputs", r)
	}
}

// Query text is untrusted: normalising it never panics, and a query always counts as
// identical to itself with its whitespace and semicolons changed.
func FuzzQueryCorrectness_Identical(f *testing.F) {
	f.Add("SELECT 'it''s' FROM t -- note", "sqlite")
	f.Add("T | where x == \"a\" // c", "kql")
	f.Add("'unterminated", "postgres")
	f.Fuzz(func(t *testing.T, q, dialect string) {
		j := verdict("incorrect", 0)
		in := qeval.JudgeInput{Generated: q, Expected: "  " + q + " ;", Dialect: dialect}
		r := metric.QueryCorrectness(context.Background(), j, in, metric.JudgeOptions{})
		if r.Skipped != nil {
			return // blank query
		}
		if j.calls.Load() != 0 || *r.Score != 1 {
			t.Fatalf("query %q vs itself padded: score %v after %d calls, want 1 without a call", q, *r.Score, j.calls.Load())
		}
	})
}
