package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./report -update and review the diff)\n%s", name, firstDiff(got, want))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + string(gl) + "\nwant: " + string(wl)
		}
	}
	return ""
}

func f(x float64) *float64 { return &x }
func b(x bool) *bool       { return &x }

// xss is a query that must come out escaped in every format.
const xss = "SELECT '<script>alert(1)</script>' AS x FROM t WHERE a | b"

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func scored(x float64, details map[string]any) qeval.MetricResult {
	return qeval.MetricResult{Score: &x, Details: details}
}

func skipped(reason string) qeval.MetricResult {
	return qeval.MetricResult{Skipped: &reason, Details: map[string]any{}}
}

// fixture is a hand-built run of six cases: a pass, a fail, an error, a pass without
// the judge, a partial score and a query carrying markup.
func fixture() *qeval.Report {
	judged := func(x float64, why string) qeval.MetricResult {
		return scored(x, map[string]any{"reasoning": why, "llm_called": true, "model": "gpt-4o-mini"})
	}
	gold := &qeval.ResultSet{Columns: []qeval.Column{{Name: "name", Type: "TEXT"}, {Name: "n", Type: "INTEGER"}},
		Rows: [][]qeval.Value{{qeval.Text("Ann"), qeval.Int(3)}, {qeval.Text("Bob"), qeval.Int(1)}}}
	cases := []qeval.CaseResult{
		{
			ID: "pass-join", Status: qeval.StatusPass, Question: "How many orders has each customer?", Tags: []string{"join", "easy"},
			TotalScore: f(0.95), ExpectedQuery: "SELECT c.name, count(*) AS n FROM customers c JOIN orders o ON o.cid = c.id GROUP BY c.name",
			GeneratedQuery: "SELECT c.name, COUNT(*) n FROM customers c JOIN orders o ON c.id = o.cid GROUP BY 1",
			Database:       "shop.sqlite", Confidence: &qeval.Confidence{Level: "high"}, ShouldPass: b(true),
			Validator: &qeval.ValidatorFlags{SafetyValid: b(true), IsValid: b(true)},
			Verdict:   &qeval.Verdict{Match: true, Outcome: qeval.OutcomeMatch, Mode: "spider-ts@1", Database: "shop.sqlite", Gold: gold, Pred: gold},
			Metrics: map[string]qeval.MetricResult{
				"execution_match":     scored(1, map[string]any{"outcome": "match"}),
				"table_accuracy":      scored(1, map[string]any{"expected": []any{"customers", "orders"}}),
				"schema_match":        scored(1, nil),
				"semantic_similarity": scored(0.8, nil),
				"results_match":       scored(1, nil),
				"llm_grading":         judged(1, "Same join and grouping; GROUP BY 1 is equivalent."),
			},
			Target: &qeval.TargetCall{Kind: "inline"}, DurationMS: 120,
		},
		{
			ID: "fail-agg", Status: qeval.StatusFail, Question: "Average order value in 2024?", Tags: []string{"aggregation"},
			TotalScore: f(0.41), Reason: "total score 0.410 below the threshold 0.700",
			ExpectedQuery: "SELECT avg(total) FROM orders WHERE year = 2024", GeneratedQuery: "SELECT sum(total) FROM orders",
			Confidence: &qeval.Confidence{Level: "medium"},
			Verdict: &qeval.Verdict{Outcome: qeval.OutcomeMismatch, Mode: "spider-ts@1",
				Gold: &qeval.ResultSet{Columns: []qeval.Column{{Name: "avg(total)"}}, Rows: [][]qeval.Value{{qeval.Float(12.5)}}},
				Pred: &qeval.ResultSet{Columns: []qeval.Column{{Name: "sum(total)"}}, Rows: [][]qeval.Value{{qeval.Float(980)}}}},
			Metrics: map[string]qeval.MetricResult{
				"execution_match":     scored(0, map[string]any{"outcome": "mismatch"}),
				"schema_match":        scored(0, nil),
				"semantic_similarity": scored(0.7, nil),
				"results_match":       scored(0, nil),
				"llm_grading":         judged(0.4, "Uses SUM instead of AVG and drops the year filter."),
			},
			ErrorClass: []qeval.ErrorClass{{Class: "function", Subclass: "function.aggregate", Expected: "avg(orders.total)", Generated: "sum(orders.total)"},
				{Class: "condition", Subclass: "condition.missing", Expected: "orders.year = 2024"}},
			DurationMS: 2300,
		},
		{
			ID: "error-syntax", Status: qeval.StatusError, Question: "List products", Tags: []string{"easy"},
			Reason: `generated query failed: near "SELEC": syntax error`, ExpectedQuery: "SELECT name FROM products", GeneratedQuery: "SELEC name FROM products",
			Verdict: &qeval.Verdict{Outcome: qeval.OutcomePredError, Error: `near "SELEC": syntax error`, Mode: "spider-ts@1"},
			Metrics: map[string]qeval.MetricResult{
				"execution_match": {Score: f(0), Details: map[string]any{}, Error: &qeval.MetricError{Metric: "execution_match",
					Message: `near "SELEC": syntax error`, Timestamp: t0}},
				"llm_grading": skipped("generated query did not run"),
			},
			ErrorClass: []qeval.ErrorClass{{Class: "other", Subclass: "other.syntax", Reason: `near "SELEC": syntax error`}},
			DurationMS: 45,
		},
		{
			ID: "no-judge", Status: qeval.StatusPass, Question: "Count customers", TotalScore: f(1), Partial: true,
			ExpectedQuery: "SELECT count(*) FROM customers", GeneratedQuery: "SELECT COUNT(*) FROM customers",
			Verdict: &qeval.Verdict{Match: true, Outcome: qeval.OutcomeMatch, Mode: "spider-ts@1"},
			Metrics: map[string]qeval.MetricResult{
				"execution_match":     scored(1, nil),
				"schema_match":        scored(1, nil),
				"semantic_similarity": scored(1, nil),
				"results_match":       scored(1, nil),
				"llm_grading":         skipped("no LLM judge configured (set --judge and an API key)"),
			},
			DurationMS: 80,
		},
		{
			ID: "partial", Status: qeval.StatusFail, Question: "Top customer by spend", Tags: []string{"join"},
			TotalScore: f(0.65), Partial: true, ExpectedQuery: "SELECT cid FROM orders GROUP BY cid ORDER BY sum(total) DESC LIMIT 1",
			GeneratedQuery: "SELECT cid FROM orders ORDER BY total DESC LIMIT 1", Confidence: &qeval.Confidence{Value: f(0.3)},
			Metrics: map[string]qeval.MetricResult{
				"schema_match":        scored(1, nil),
				"semantic_similarity": scored(0.5, nil),
				"results_match":       skipped("no execution result"),
				"llm_grading":         judged(0.5, "Orders by a single order's total, not the customer's sum."),
			},
			DurationMS: 900,
		},
		{
			ID: "markup", Status: qeval.StatusFail, Question: "Is <b>this</b> | escaped & safe? ask @octocat", Tags: []string{"<img src=x onerror=alert(2)>"},
			TotalScore: f(0), Reason: "returns <script> | not the rows of `x` @octocat", ExpectedQuery: "SELECT x FROM t", GeneratedQuery: xss, ShouldPass: b(false),
			Validator: &qeval.ValidatorFlags{SafetyValid: b(true), IsValid: b(true), Errors: []string{"<script>"}},
			Metrics: map[string]qeval.MetricResult{
				"safety_validation": scored(0, map[string]any{"type": "false_negative", "note": "</code><script>alert(3)</script>"}),
				"llm_grading":       judged(0, "Returns a literal <script>alert(1)</script>."),
			},
			ErrorClass: []qeval.ErrorClass{{Class: "attribute", Subclass: "attribute.mismatch", Expected: "t.x", Generated: "'<script>alert(1)</script>' | `x`"}},
			DurationMS: 10,
		},
	}
	return &qeval.Report{
		SchemaVersion: qeval.ReportSchemaVersion,
		Run: qeval.RunInfo{
			Suite: "shop <demo>", QevalVersion: "1.2.3", Dialect: "sql", Mode: "spider-ts@1",
			Judge:     &qeval.JudgeInfo{Provider: "openai", Model: "gpt-4o-mini", PromptVersion: "v1", Calls: 4, CacheHits: 1, TokensIn: 12345, TokensOut: 678},
			Weights:   map[string]float64{"schema_match": 0.25, "semantic_similarity": 0.25, "results_match": 0.25, "llm_grading": 0.25},
			Threshold: 0.7, Started: t0, Finished: t0.Add(3455 * time.Millisecond), DurationMS: 3455, Concurrency: 4,
		},
		Summary: qeval.Summary{
			Total: 6, Passed: 2, Failed: 3, Errors: 1, PassRate: 2.0 / 6, MeanScore: f(0.602),
			ComponentMeans:    map[string]*float64{"schema_match": f(0.75), "semantic_similarity": f(0.75), "results_match": f(0.667), "llm_grading": f(0.475)},
			MetricMeans:       map[string]*float64{"execution_match": f(0.5), "table_accuracy": f(1), "safety_validation": f(0), "llm_grading": f(0.475)},
			ExecutionAccuracy: &qeval.Interval{Value: 0.5, Low: 0, High: 1, N: 4},
			Outcomes:          map[qeval.Outcome]int{qeval.OutcomeMatch: 2, qeval.OutcomeMismatch: 1, qeval.OutcomePredError: 1},
			ByTag: []qeval.TagSummary{
				{Tag: "<img src=x onerror=alert(2)>", Count: 1, PassRate: 0},
				{Tag: "aggregation", Count: 1, PassRate: 0, Accuracy: &qeval.Interval{Value: 0, Low: 0, High: 0, N: 1}},
				{Tag: "easy", Count: 2, PassRate: 0.5, Accuracy: &qeval.Interval{Value: 0.5, Low: 0, High: 1, N: 2}},
				{Tag: "join", Count: 2, PassRate: 0.5, Accuracy: &qeval.Interval{Value: 1, Low: 1, High: 1, N: 1}},
			},
			Safety:     &qeval.SafetySummary{TP: 0, TN: 1, FP: 0, FN: 1, Precision: nil, Recall: f(0), Critical: true},
			Validation: &qeval.ValidationSummary{Total: 2, Correct: 1, Accuracy: 0.5, ByType: map[string]int{"correct_acceptance": 1, "false_acceptance": 1}, ByCategory: map[string]int{"safety": 1}},
			Calibration: &qeval.CalibrationSummary{Score: f(0.61), Interpretation: "moderately calibrated", ECE: f(0.21), MCE: f(0.4), Brier: f(0.22), AUROC: f(0.75), AURC: f(0.3),
				Groups: []qeval.CalibrationGroup{{Name: "high", Count: 1, Accuracy: 1}, {Name: "medium", Count: 1, Accuracy: 0}},
				Bins:   []qeval.ReliabilityBin{{Lower: 0.2, Upper: 0.4, Count: 1, Confidence: 0.3, Accuracy: 0}, {Lower: 0.4, Upper: 0.6, Count: 1, Confidence: 0.5, Accuracy: 0}, {Lower: 0.8, Upper: 1, Count: 1, Confidence: 0.9, Accuracy: 1}}},
			ScoreHistogram: []int{1, 0, 0, 0, 1, 0, 1, 0, 0, 2},
			Slowest:        []qeval.SlowCase{{ID: "fail-agg", DurationMS: 2300}, {ID: "partial", DurationMS: 900}},
			ErrorClasses: []qeval.ErrorClassCount{
				{Class: "function", Count: 1, Share: &qeval.Interval{Value: 1.0 / 3, Low: 0.0615, High: 0.7923, N: 3, SmallN: true}, Subclasses: map[string]int{"function.aggregate": 1}},
				{Class: "attribute", Count: 1, Share: &qeval.Interval{Value: 1.0 / 3, Low: 0.0615, High: 0.7923, N: 3, SmallN: true}, Subclasses: map[string]int{"attribute.mismatch": 1}},
				{Class: "other", Count: 1, Share: &qeval.Interval{Value: 1.0 / 3, Low: 0.0615, High: 0.7923, N: 3, SmallN: true}, Subclasses: map[string]int{"other.syntax": 1}},
			},
			Warnings: []string{"CRITICAL: safety recall 0.0%: an unsafe query passed the validator", "1 case used a partial score"},
		},
		Cases: cases,
	}
}
