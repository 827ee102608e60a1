package metric_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// The seed scenarios of MC-REQ-02, scored through Evaluate so the parser is included.
func TestTableAccuracy_Seed(t *testing.T) {
	tests := []struct {
		name      string
		generated string
		expected  []string
		want      float64
	}{
		{"Join", "SELECT * FROM users JOIN orders ON users.id = orders.user_id", []string{"users", "orders"}, 1.0},
		{"OneOfTwo", "SELECT * FROM users", []string{"users", "orders"}, 0.5},
		{"Alias", "SELECT u.name FROM users AS u", []string{"users"}, 1.0},
		{"Case", "SELECT * FROM USERS", []string{"users"}, 1.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := evalOne(t, metric.NameTableAccuracy, metric.Case{Generated: tt.generated, ExpectedTables: tt.expected})
			if r.Score == nil || *r.Score != tt.want {
				t.Fatalf("table_accuracy(%q, %v)=%v, want %v (details %v, error %v)", tt.generated, tt.expected, ptr(r.Score), tt.want, r.Details, r.Error)
			}
		})
	}
}

func TestTableAccuracy_FromExpectedQuery(t *testing.T) {
	r := evalOne(t, metric.NameTableAccuracy, metric.Case{
		Generated: "SELECT name FROM singer",
		Expected:  "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id",
	})
	if r.Score == nil || *r.Score != 0.5 {
		t.Fatalf("score=%v, want 0.5 (%v)", ptr(r.Score), r.Details)
	}
	if r.Details["expected_source"] != "expected_query" {
		t.Errorf("expected_source=%v, want expected_query", r.Details["expected_source"])
	}
	if m := r.Details["missing"].([]string); len(m) != 1 || m[0] != "concert" {
		t.Errorf("missing=%v, want [concert]", m)
	}
}

// MC-REQ-07 seed: malformed generated SQL gives table accuracy 0.0 with the error flag
// and the parser's message, and the other metrics are still computed.
func TestTableAccuracy_MalformedSQL(t *testing.T) {
	yes, no := true, false
	rs := metric.Evaluate(context.Background(), metric.Case{
		ID:             "bad-1",
		Generated:      "SELEC name FROM users",
		ExpectedTables: []string{"users"},
		SafetyValid:    &yes, IsValid: &no, ShouldPass: &yes,
	}, metric.Options{})
	r := rs[metric.NameTableAccuracy]
	if r.Score == nil || *r.Score != 0 || r.Error == nil {
		t.Fatalf("table_accuracy=%+v, want score 0 with an error", r)
	}
	if !strings.Contains(r.Error.Message, "parse generated query") || !strings.Contains(r.Error.Message, "line 1") {
		t.Errorf("error message %q lacks the operation or the position", r.Error.Message)
	}
	if r.Error.Metric != metric.NameTableAccuracy || r.Error.Inputs["generated"] != "SELEC name FROM users" || r.Error.Timestamp.IsZero() {
		t.Errorf("error=%+v, want metric, inputs and timestamp", r.Error)
	}
	if s := rs[metric.NameSafetyValidation]; s.Score == nil || *s.Score != 1 {
		t.Errorf("safety_validation=%+v, want 1 although table accuracy failed", s)
	}
	if s := rs[metric.NameValidationAccuracy]; s.Score == nil || *s.Score != 0 || s.Error != nil {
		t.Errorf("validation_accuracy=%+v, want 0 (false rejection) without error", s)
	}
}

func TestTableAccuracy_Shapes(t *testing.T) {
	tests := []struct {
		name     string
		shape    *qeval.Shape
		expected []string
		want     float64
	}{
		{"BothEmpty", &qeval.Shape{}, nil, 1},
		{"ExpectedEmpty", &qeval.Shape{Tables: []string{"a"}}, nil, 0},
		{"Quoted", &qeval.Shape{Tables: []string{`"Users"`, "[Orders]"}}, []string{"users", "orders"}, 1},
		{"Qualified", &qeval.Shape{Tables: []string{"main.users"}}, []string{"users"}, 1},
		{"AliasListed", &qeval.Shape{Tables: []string{"u"}, Aliases: map[string]string{"U": "users"}}, []string{"users"}, 1},
		{"Duplicates", &qeval.Shape{Tables: []string{"a", "A", "b"}}, []string{"a", "c"}, 1.0 / 3},
		{"NilShape", nil, []string{"a"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := metric.TableAccuracy(tt.shape, tt.expected)
			if !near(*r.Score, tt.want) {
				t.Errorf("TableAccuracy(%v, %v)=%v, want %v", tt.shape, tt.expected, *r.Score, tt.want)
			}
		})
	}
}

func TestTableAccuracy_Skips(t *testing.T) {
	if r := evalOne(t, metric.NameTableAccuracy, metric.Case{Generated: "SELECT 1"}); r.Skipped == nil || r.Score != nil {
		t.Errorf("without expected tables: %+v, want skipped", r)
	}
	if r := evalOne(t, metric.NameTableAccuracy, metric.Case{ExpectedTables: []string{"a"}}); r.Skipped == nil {
		t.Errorf("without generated query: %+v, want skipped", r)
	}
}

// TestEvaluate_ErrorInputsBounded checks that a failed metric records a clipped copy of
// a huge generated query, not the whole of it (the case holds it once).
func TestEvaluate_ErrorInputsBounded(t *testing.T) {
	huge := "SELEC " + strings.Repeat("x + ", 1<<20)
	rs := metric.Evaluate(context.Background(), metric.Case{ID: "huge", Generated: huge, ExpectedTables: []string{"users"}}, metric.Options{})
	r := rs[metric.NameTableAccuracy]
	if r.Error == nil {
		t.Fatalf("table_accuracy = %+v, want an error", r)
	}
	in := r.Error.Inputs["generated"]
	if len(in) > 4200 || !strings.HasPrefix(in, "SELEC x + ") || !strings.Contains(in, "bytes in all)") {
		t.Errorf("recorded input: %d bytes, ending %q", len(in), in[max(0, len(in)-40):])
	}
}
